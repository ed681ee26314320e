// A local OAuth 2.1 authorization server and an MCP server it protects, both on 127.0.0.1,
// written for the tests (docs/auth.md): real HTTP, real PKCE, real tokens; nothing mocked on the
// client side. The authorization server approves without a person (as test servers do), so the
// redirect can be followed by a page or by `--headless`.
//
//   AS:  /.well-known/oauth-authorization-server, /register (DCR), /authorize, /token
//        (authorization_code with PKCE S256 + resource, refresh_token), iss in the redirect
//   MCP: /.well-known/oauth-protected-resource/mcp, /mcp (401 + WWW-Authenticate without a
//        valid token), tools `whoami` (no arguments), `echo`, and `admin` (needs the `admin`
//        scope: 403 insufficient_scope until a step-up sign-in)
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

interface Client {
  id: string;
  secret?: string;
  redirectUris: string[];
  authMethod: string;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string | null;
  scope: string;
}

interface Token {
  clientId: string;
  expiresAt: number;
  scope: string;
}

export interface OAuthServers {
  asUrl: string;
  mcpUrl: string;
  /** Every Authorization header the MCP server received (to prove no passthrough). */
  authorizationHeaders: string[];
  /** Every access token, refresh token and client secret issued (for the leak search). */
  issuedSecrets(): string[];
  counts: { registrations: number; authorizations: number; codeExchanges: number; refreshes: number; mcpRequests: number; unauthorized: number };
  /** Forced expiry: every access token issued so far stops working (refresh tokens still do). */
  expireAccessTokens(): void;
  /** Refresh tokens stop working too: the next sign-in needs a person. */
  revokeRefreshTokens(): void;
  /** The MCP server moves to another authorization server (SEP-2352): its metadata names it, its tokens count. */
  useAuthorizationServer(other: OAuthServers): void;
  /** A token this authorization server issued and that is still valid. */
  verify(token: string): { clientId: string; scope: string } | undefined;
  /** Lets this authorization server issue tokens for another resource too. */
  allowResource(url: string): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface OAuthServerOptions {
  accessTokenTtlS?: number;
  /** What the redirect carries as `iss` (RFC 9207): the issuer (default), another one, or none. */
  issInRedirect?: 'correct' | 'wrong' | 'missing';
  /** The `issuer` its metadata names: its own URL (default) or an attacker's. */
  metadataIssuer?: 'correct' | 'wrong';
}

export async function startOAuthServers(opts: OAuthServerOptions = {}): Promise<OAuthServers> {
  const ttl = opts.accessTokenTtlS ?? 3600;
  const clients = new Map<string, Client>();
  const codes = new Map<string, Grant>();
  const access = new Map<string, Token>();
  const refresh = new Map<string, { clientId: string; scope: string; resource: string | null }>();
  const issued: string[] = [];
  const counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, mcpRequests: 0, unauthorized: 0 };
  const authorizationHeaders: string[] = [];
  let asUrl = '';
  let mcpUrl = '';
  let movedTo: OAuthServers | undefined;
  const resources = new Set<string>();

  const verify = (t: string) => {
    const token = access.get(t);
    return token && token.expiresAt > Date.now() ? token : undefined;
  };
  const issueTokens = (clientId: string, scope: string, resource: string | null) => {
    const at = `at_${randomBytes(24).toString('hex')}`;
    const rt = `rt_${randomBytes(24).toString('hex')}`;
    access.set(at, { clientId, expiresAt: Date.now() + ttl * 1000, scope });
    refresh.set(rt, { clientId, scope, resource });
    issued.push(at, rt);
    return { access_token: at, token_type: 'Bearer', expires_in: ttl, refresh_token: rt, scope };
  };

  const authenticateClient = (req: IncomingMessage, form: URLSearchParams): Client | undefined => {
    const basic = req.headers.authorization?.startsWith('Basic ') ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString('utf8') : undefined;
    const [id, secret] = basic ? basic.split(':').map(decodeURIComponent) : [form.get('client_id') ?? '', form.get('client_secret') ?? undefined];
    const client = clients.get(id ?? '');
    if (!client) return undefined;
    if (client.secret && client.secret !== secret) return undefined;
    return client;
  };

  const as = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', asUrl);
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: opts.metadataIssuer === 'wrong' ? 'https://attacker.example' : asUrl,
        authorization_endpoint: `${asUrl}/authorize`,
        token_endpoint: `${asUrl}/token`,
        registration_endpoint: `${asUrl}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        scopes_supported: ['mcp'],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (req.method === 'POST' && url.pathname === '/register') {
      const meta = JSON.parse(await readBody(req)) as { redirect_uris?: string[] };
      counts.registrations += 1;
      const client: Client = { id: `client_${randomBytes(8).toString('hex')}`, secret: `cs_${randomBytes(24).toString('hex')}`, redirectUris: meta.redirect_uris ?? [], authMethod: 'client_secret_basic' };
      clients.set(client.id, client);
      issued.push(client.secret!);
      return json(res, 201, { ...meta, client_id: client.id, client_secret: client.secret, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: client.authMethod });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const p = url.searchParams;
      const client = clients.get(p.get('client_id') ?? '');
      const redirectUri = p.get('redirect_uri') ?? '';
      if (!client || !client.redirectUris.includes(redirectUri)) return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
      if (p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) return json(res, 400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
      if (p.get('resource') !== mcpUrl && !resources.has(p.get('resource') ?? '')) return json(res, 400, { error: 'invalid_target', error_description: `resource must be ${mcpUrl}` });
      counts.authorizations += 1;
      const code = `code_${randomBytes(16).toString('hex')}`;
      codes.set(code, { clientId: client.id, redirectUri, challenge: p.get('code_challenge')!, resource: p.get('resource'), scope: p.get('scope') ?? 'mcp' });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (p.get('state')) back.searchParams.set('state', p.get('state')!);
      if (opts.issInRedirect !== 'missing') back.searchParams.set('iss', opts.issInRedirect === 'wrong' ? 'https://attacker.example' : asUrl);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await readBody(req));
      const client = authenticateClient(req, form);
      if (!client) return json(res, 401, { error: 'invalid_client' });
      if (form.get('grant_type') === 'authorization_code') {
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!grant || grant.clientId !== client.id || grant.redirectUri !== form.get('redirect_uri') || grant.challenge !== challenge || form.get('resource') !== grant.resource) {
          return json(res, 400, { error: 'invalid_grant' });
        }
        counts.codeExchanges += 1;
        return json(res, 200, issueTokens(client.id, grant.scope, grant.resource));
      }
      if (form.get('grant_type') === 'refresh_token') {
        const rt = refresh.get(form.get('refresh_token') ?? '');
        if (!rt || rt.clientId !== client.id) return json(res, 400, { error: 'invalid_grant' });
        refresh.delete(form.get('refresh_token')!); // rotation: a refresh token is used once
        counts.refreshes += 1;
        return json(res, 200, issueTokens(client.id, rt.scope, rt.resource));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    res.writeHead(404).end();
  });
  asUrl = await listen(as);

  const mcp = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return json(res, 200, { resource: mcpUrl, authorization_servers: [movedTo?.asUrl ?? asUrl], scopes_supported: ['mcp'], bearer_methods_supported: ['header'] });
    }
    if (url.pathname !== '/mcp') return json(res, 404, { error: 'not found' });
    counts.mcpRequests += 1;
    const header = req.headers.authorization ?? '';
    authorizationHeaders.push(header);
    const bearer = header.startsWith('Bearer ') ? header.slice(7) : '';
    const token = movedTo ? movedTo.verify(bearer) : verify(bearer);
    if (!token) {
      counts.unauthorized += 1;
      const meta = `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`;
      return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer resource_metadata="${meta}", scope="mcp"${header ? ', error="invalid_token"' : ''}` });
    }
    const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
    // Step-up: the `admin` tool needs the `admin` scope (403 insufficient_scope, RFC 6750 §3.1).
    if (body?.method === 'tools/call' && body.params?.name === 'admin' && !token.scope.split(' ').includes('admin')) {
      const meta = `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`;
      return json(res, 403, { error: 'insufficient_scope' }, { 'www-authenticate': `Bearer error="insufficient_scope", scope="mcp admin", resource_metadata="${meta}"` });
    }
    const server = new McpServer({ name: 'oauth-protected', version: '1.0.0' });
    server.registerTool('admin', { description: 'Needs the admin scope.', inputSchema: { confirm: z.boolean() } }, async () => ({ content: [{ type: 'text', text: 'admin done' }] }));
    server.registerTool('whoami', { description: 'Who the server thinks is calling.' }, async () => ({ content: [{ type: 'text', text: `hello ${token.clientId}` }] }));
    server.registerTool('echo', { description: 'Echoes its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  mcpUrl = `${await listen(mcp)}/mcp`;

  return {
    asUrl,
    mcpUrl,
    authorizationHeaders,
    issuedSecrets: () => [...issued],
    counts,
    expireAccessTokens: () => {
      for (const t of access.values()) t.expiresAt = 0;
    },
    revokeRefreshTokens: () => refresh.clear(),
    useAuthorizationServer: (other) => {
      movedTo = other;
      other.allowResource(mcpUrl);
    },
    verify,
    allowResource: (url) => resources.add(url),
    close: async () => {
      for (const s of [as, mcp]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}
