// `gatehouse auth check [--headless] URL`: connect to one remote server exactly as a launched
// profile's upstream does (the same UpstreamOAuth provider, the same SDK transport), sign in
// when it asks, initialize, list its tools, call each tool that needs no arguments, use the
// refresh token when there is one, and say whether all of that worked.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { CallToolResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { CredentialVault } from './credential-vault';
import type { SecretStore } from './secret-store';
import { UpstreamOAuth, type OAuthSettings } from './upstream-oauth';

export interface CheckOptions {
  url: string;
  store: SecretStore;
  settings: OAuthSettings;
  /** Sends the person (or the headless follower) to the authorization URL. */
  open: (url: URL, redirectUri: string) => void | Promise<void>;
  log: (line: string) => void;
  /** How long one sign-in may take. */
  signInTimeoutMs?: number;
  /** Seen by the caller's redactor (the CLI hides these in everything it prints). */
  onSecret?: (name: string, value: string) => void;
}

export interface CheckResult {
  ok: boolean;
  failures: string[];
  tools: number;
  called: number;
  refreshed: boolean;
  signIns: number;
}

/** A tool whose input schema requires nothing can be called with `{}`. */
export function needsNoArguments(tool: Tool): boolean {
  const required = (tool.inputSchema as { required?: unknown }).required;
  return !Array.isArray(required) || required.length === 0;
}

export async function runConnectCheck(opts: CheckOptions): Promise<CheckResult> {
  const failures: string[] = [];
  const provider = new UpstreamOAuth({
    name: 'check',
    serverUrl: opts.url,
    vault: new CredentialVault(opts.store),
    settings: opts.settings,
    onSecret: opts.onSecret,
  });
  let signIns = 0;
  await provider.beginInteractive((url) => {
    signIns += 1;
    return opts.open(url, provider.redirectUrl);
  });
  const timeout = opts.signInTimeoutMs ?? 300_000;
  let transport: StreamableHTTPClientTransport | undefined;
  let client: Client | undefined;
  /** Runs `fn`; when the server wants a (new) sign-in, completes it and tries again. */
  const withSignIn = async <T>(what: string, fn: () => Promise<T>, onRetry?: () => void): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof UnauthorizedError) || attempt >= 3 || !transport) throw err;
        opts.log(`${what}: the server wants a sign-in; waiting for the redirect`);
        const code = await provider.awaitAuthorizationCode(timeout);
        await transport.finishAuth(code);
        onRetry?.();
      }
    }
  };
  const fresh = () => {
    transport = new StreamableHTTPClientTransport(new URL(opts.url), { authProvider: provider, fetch: provider.fetch });
    client = new Client({ name: 'gatehouse-auth-check', version: '0.1.0' }, { capabilities: {} });
  };
  let tools: Tool[] = [];
  let called = 0;
  let refreshed = false;
  try {
    fresh();
    // A failed connect leaves its transport started: connect again on a new one.
    await withSignIn('initialize', () => client!.connect(transport!), () => {
      const t = transport!;
      fresh();
      void t.close().catch(() => {});
    });
    const info = client!.getServerVersion();
    opts.log(`initialized: ${info?.name ?? '?'} ${info?.version ?? ''} (protocol ${transport!.protocolVersion ?? '?'})`);
    if (client!.getServerCapabilities()?.tools) {
      const listed = await withSignIn('tools/list', () => client!.listTools());
      tools = listed.tools;
      opts.log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
      for (const tool of tools.filter(needsNoArguments)) {
        try {
          const res = await withSignIn(`tools/call ${tool.name}`, () => client!.request({ method: 'tools/call', params: { name: tool.name, arguments: {} } }, CallToolResultSchema));
          called += 1;
          if (res.isError) failures.push(`tool ${tool.name} answered with an error result`);
          else opts.log(`called ${tool.name}: ok`);
        } catch (err) {
          failures.push(`tool ${tool.name}: ${(err as Error).message}`);
        }
      }
    }
    // The refresh a launched profile would do before expiry, done now, then used.
    const outcome = await provider.refreshNow();
    if (outcome === 'refreshed') {
      refreshed = true;
      await withSignIn('ping after refresh', () => client!.ping());
      opts.log('refresh: a new access token was obtained and accepted');
    } else if (outcome === 'failed') {
      failures.push('refresh: the refresh token was refused');
    } else opts.log(`refresh: ${outcome}`);
  } catch (err) {
    failures.push((err as Error).message);
  } finally {
    await client?.close().catch(() => {});
    await provider.endInteractive();
  }
  return { ok: failures.length === 0, failures, tools: tools.length, called, refreshed, signIns };
}
