// The gateway's Streamable HTTP endpoint (MCP 2025-11-25, basic/transports), loopback only.
//
// Every request must carry `Authorization: Bearer <token>`. Host and Origin are checked before
// anything else: the spec says servers MUST validate Origin to prevent DNS rebinding, and a
// rebinding page reaches us with a foreign Host. Legacy HTTP+SSE clients (2024-11-05) get the
// compatibility endpoints `/sse` + `/messages`.
import http from 'node:http';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TappedTransport, type TrafficTap } from '../protocol/traffic-tap';
import type { Redactor } from '../secrets/redactor';
import type { Gateway } from './gateway';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpEndpointOptions {
  gateway: Gateway;
  tap: TrafficTap;
  redactor: Redactor;
  /** 0 asks the OS for a free port. */
  port: number;
  token: string;
  /** Extra Origins allowed besides the endpoint's own (e.g. the Gatehouse UI's). */
  allowedOrigins?: string[];
  /** Sessions idle longer than this are closed (default 1 h). */
  idleTimeoutMs?: number;
}

export interface HttpEndpoint {
  url: string;
  port: number;
  close(): Promise<void>;
  sessionCount(): number;
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header?.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice(7).trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function rpcError(res: http.ServerResponse, status: number, code: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body exceeds ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

interface HttpSession {
  id: string;
  transport: StreamableHTTPServerTransport | SSEServerTransport;
  lastActive: number;
}

export async function startHttpEndpoint(opts: HttpEndpointOptions): Promise<HttpEndpoint> {
  const sessions = new Map<string, HttpSession>();
  const idleTimeoutMs = opts.idleTimeoutMs ?? 60 * 60 * 1000;
  let port = opts.port;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const allowedOrigins = () =>
    new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...(opts.allowedOrigins ?? [])]);

  const tapped = (inner: Transport, agentSession: string): Transport =>
    new TappedTransport(inner, opts.tap, { session: opts.gateway.session, agentSession, inbound: 'agent_to_gateway', outbound: 'gateway_to_agent' }, opts.redactor);

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // DNS rebinding: a foreign Host or Origin never gets further than this.
    const host = req.headers.host ?? '';
    if (!allowedHosts().has(host)) return rpcError(res, 403, -32000, `Forbidden: Host '${host}' is not allowed`);
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) return rpcError(res, 403, -32000, `Forbidden: Origin '${origin}' is not allowed`);
    if (!tokenMatches(req.headers.authorization, opts.token)) {
      return rpcError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="gatehouse"' });
    }
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname === '/mcp') return handleStreamable(req, res);
    if (url.pathname === '/sse' && req.method === 'GET') return handleLegacySse(res);
    if (url.pathname === '/messages' && req.method === 'POST') return handleLegacyMessage(req, res, url);
    return rpcError(res, 404, -32000, `Not found: ${url.pathname} (the MCP endpoint is /mcp)`);
  }

  async function handleStreamable(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const sid = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    let body: unknown;
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readBody(req);
      } catch (err) {
        return rpcError(res, 413, -32600, (err as Error).message);
      }
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
    }
    if (sid) {
      const session = sessions.get(sid);
      if (!session || !(session.transport instanceof StreamableHTTPServerTransport)) {
        return rpcError(res, 404, -32001, 'Session not found (it ended or never existed); initialize a new one');
      }
      session.lastActive = Date.now();
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, 'Bad Request: no valid Mcp-Session-Id; the first request must be initialize');
    }
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        sessions.set(id, { id, transport, lastActive: Date.now() });
      },
    });
    transport.onclose = () => sessions.delete(id);
    const server = opts.gateway.createSessionServer({ id, transport: 'streamable-http' });
    await server.connect(tapped(transport, id));
    await transport.handleRequest(req, res, body);
  }

  async function handleLegacySse(res: http.ServerResponse): Promise<void> {
    const transport = new SSEServerTransport('/messages', res);
    const id = transport.sessionId;
    sessions.set(id, { id, transport, lastActive: Date.now() });
    transport.onclose = () => sessions.delete(id);
    const server = opts.gateway.createSessionServer({ id, transport: 'sse' });
    await server.connect(tapped(transport, id));
  }

  async function handleLegacyMessage(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const session = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (!session || !(session.transport instanceof SSEServerTransport)) return rpcError(res, 404, -32001, 'Session not found');
    session.lastActive = Date.now();
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req)).toString('utf8'));
    } catch {
      return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
    await session.transport.handlePostMessage(req, res, body);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) rpcError(res, 500, -32603, `Internal error: ${(err as Error).message}`);
      else res.end();
    });
  });
  // Streams (GET SSE) stay open for a long time; do not let Node's defaults cut them.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const s of sessions.values()) {
      if (now - s.lastActive > idleTimeoutMs) void s.transport.close().catch(() => {});
    }
  }, 60_000);
  sweeper.unref();

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => {})));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
