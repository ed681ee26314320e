// Upstream OAuth (docs/auth.md) end to end in one host: a local authorization server and the MCP
// server it protects (tests/support/oauth-servers.ts), a profile with `auth: oauth`, a real
// agent on the gateway's Streamable HTTP endpoint. Sign-in is followed headless (the page is
// played by followAuthorizationHeadless; the Chromium version is tests/e2e/oauth.spec.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import { followAuthorizationHeadless } from '../../main/auth/loopback-redirect';
import { startOAuthServers, type OAuthServers } from '../support/oauth-servers';
import { connectHttp, textOf, waitFor } from '../support/gateway';
import { tempDir, writeProfile } from '../support/temp';

const profileYaml = (url: string) => `
name: oauth-test
workspace: ./ws
servers:
  remote:
    url: ${url}
    transport: streamable-http
    auth: oauth
    restart: { max_restarts: 1, initial_backoff_ms: 50 }
policy:
  default: allow
`;

/** Every file under dir, as bytes (the audit SQLite file, its WAL, the secret store...). */
function allBytes(dir: string): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (statSync(file).isFile()) out.push([name, readFileSync(file)]);
  }
  return out;
}

describe('upstream OAuth: sign in once in Gatehouse, every agent is authorised without the token', () => {
  let tmp: ReturnType<typeof tempDir>;
  let servers: OAuthServers;
  let host: Host;
  let launch: Launch;
  let stderr: string[];
  let restoreStderr: () => void;
  const traffic: string[] = [];
  const status = () => launch.statuses().find((s) => s.id === 'remote')!;

  beforeEach(async () => {
    tmp = tempDir('gatehouse-oauth-');
    servers = await startOAuthServers({ accessTokenTtlS: 3600 });
    stderr = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      stderr.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    restoreStderr = () => (process.stderr.write = write);
    host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_SECRET_STORE: 'file' } });
    host.tap.subscribe((batch) => traffic.push(...batch.map((e) => JSON.stringify(e))));
    host.auth.opener = async (url) => {
      // Plays the person's browser: follows the authorization server's redirect back home.
      await followAuthorizationHeadless(new URL(url), host.auth.get(launch.id, 'remote')!.redirectUrl);
      return true;
    };
    launch = await host.launch(writeProfile(tmp.dir, profileYaml(servers.mcpUrl)), { httpPort: 0, token: 'gateway-token-for-agents-0123456789' });
  }, 30_000);

  afterEach(async () => {
    await host.shutdown();
    restoreStderr();
    await servers.close();
    tmp.cleanup();
  });

  it('shows sign-in needed, signs in through the loopback redirect, refreshes after a forced expiry, signs out; no token anywhere', async () => {
    // Not signed in: the server answered 401, and the launch waits for a person (no restarts).
    expect(status()).toMatchObject({ state: 'stopped', run: 1, restarts: 0, auth: { state: 'sign-in-needed' } });
    expect(status().reason).toMatch(/^sign-in needed/);
    expect(servers.counts.registrations).toBe(0); // nothing registered without a person

    const started = await host.signIn(launch.id, 'remote');
    expect(started.opened).toBe(true);
    expect(started.authorizationUrl).toMatch(new RegExp(`^${servers.asUrl}/authorize\\?`));
    const authUrl = new URL(started.authorizationUrl!);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(servers.mcpUrl);
    expect(authUrl.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await started.done;
    await waitFor(() => status().state === 'ready', 'the server to be ready after sign-in');
    expect(status().auth).toMatchObject({ state: 'signed-in', issuer: servers.asUrl, hasRefreshToken: true });
    expect(servers.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });

    // The redirect is one-time: replaying the state does nothing.
    const replay = await fetch(`${new URL(authUrl.searchParams.get('redirect_uri')!).origin}/callback?code=x&state=${authUrl.searchParams.get('state')}`).catch(() => undefined);
    expect(replay === undefined || replay.status === 400).toBe(true);

    // An agent calls through the gateway with the gateway's token; upstream sees only its own.
    const agent = await connectHttp(launch);
    const tools = await agent.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('whoami');
    const first = await agent.request({ method: 'tools/call', params: { name: 'whoami', arguments: {} } }, CallToolResultSchema);
    expect(textOf(first)).toMatch(/^hello client_/);

    // Forced expiry: the access token dies; the next call refreshes, with no second sign-in.
    servers.expireAccessTokens();
    const second = await agent.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'after expiry' } } }, CallToolResultSchema);
    expect(textOf(second)).toBe('after expiry');
    expect(servers.counts.refreshes).toBeGreaterThanOrEqual(1);
    expect(servers.counts.authorizations).toBe(1);

    // No token passthrough, either way.
    const bearer = servers.authorizationHeaders.filter((h) => h.startsWith('Bearer ')).map((h) => h.slice(7));
    expect(bearer.length).toBeGreaterThan(0);
    expect(bearer).not.toContain(launch.token);
    for (const t of bearer) expect(servers.issuedSecrets()).toContain(t);
    const agentSaw = JSON.stringify([tools, first, second]);
    for (const s of servers.issuedSecrets()) expect(agentSaw).not.toContain(s);
    await agent.close();

    // Sign out: the tokens leave the store, and the server waits for a new sign-in.
    const keysBefore = host.auth.store.keys();
    expect(keysBefore.some((k) => k.startsWith('oauth:tokens:'))).toBe(true);
    expect(await host.signOut(launch.id, 'remote')).toBe(true);
    expect(host.auth.store.keys().some((k) => k.startsWith('oauth:tokens:'))).toBe(false);
    await waitFor(() => status().state === 'stopped' && status().auth?.state === 'sign-in-needed', 'sign-in needed after sign-out');

    // The leak search: audit store, traffic, logs, every file of the data dir, the test's output.
    await host.shutdown();
    const secrets = servers.issuedSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(5); // client secret, 2 access and 2 refresh tokens
    const files = allBytes(path.join(tmp.dir, 'data'));
    expect(files.map(([n]) => n)).toEqual(expect.arrayContaining(['gatehouse.db', 'secrets.enc']));
    // The search is real: the audit store holds the calls themselves (in clear, as UTF-8).
    const audit = files.filter(([n]) => n.startsWith('gatehouse.db')).map(([, b]) => b.toString('latin1')).join('');
    expect(audit).toContain('after expiry');
    const stores: Array<[string, string]> = [
      ...files.map(([n, b]): [string, string] => [n, b.toString('latin1')]),
      ['traffic', traffic.join('\n')],
      ['stderr', stderr.join('')],
    ];
    expect(traffic.length).toBeGreaterThan(0);
    for (const s of secrets) for (const [where, text] of stores) expect(text.includes(s), `${s.slice(0, 6)}… found in ${where}`).toBe(false);
    // The secret store file is private.
    expect(statSync(path.join(tmp.dir, 'data', 'secrets.enc')).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('step-up: a call that needs more scope says sign-in needed; the next Sign in asks for it and the call works', async () => {
    await (await host.signIn(launch.id, 'remote')).done;
    await waitFor(() => status().state === 'ready', 'ready after sign-in');
    const agent = await connectHttp(launch);
    const denied = await agent
      .request({ method: 'tools/call', params: { name: 'admin', arguments: { confirm: true } } }, CallToolResultSchema)
      .then((r) => textOf(r))
      .catch((e: Error) => e.message);
    expect(denied).not.toBe('admin done');
    await waitFor(() => status().auth?.state === 'sign-in-needed', 'sign-in needed for more scope');
    expect(status().auth?.reason).toBe('the server asks for more access (scope mcp admin)');
    expect(status().state).toBe('ready'); // still serving what the current scope allows
    await agent.close();
    const again = await host.signIn(launch.id, 'remote');
    expect(new URL(again.authorizationUrl!).searchParams.get('scope')).toBe('mcp admin');
    await again.done;
    await waitFor(() => status().state === 'ready' && status().auth?.state === 'signed-in', 'ready with more scope');
    const agent2 = await connectHttp(launch);
    expect(textOf(await agent2.request({ method: 'tools/call', params: { name: 'admin', arguments: { confirm: true } } }, CallToolResultSchema))).toBe('admin done');
    await agent2.close();
  }, 60_000);

  it('says the sign-in expired when the token cannot be refreshed, and refreshes ahead of expiry otherwise', async () => {
    const started = await host.signIn(launch.id, 'remote');
    await started.done;
    await waitFor(() => status().state === 'ready', 'ready after sign-in');
    const provider = host.auth.get(launch.id, 'remote')!;
    // Ahead of expiry: refreshNow is what tokens() does when expiry is near.
    expect(await provider.refreshNow()).toBe('refreshed');
    const agent = await connectHttp(launch);
    expect(textOf(await agent.request({ method: 'tools/call', params: { name: 'whoami', arguments: {} } }, CallToolResultSchema))).toMatch(/^hello/);

    const expired: string[] = [];
    host.on('auth-expired', (_l, server, reason) => expired.push(`${server}: ${reason}`));
    servers.revokeRefreshTokens();
    servers.expireAccessTokens();
    const res = await agent
      .request({ method: 'tools/call', params: { name: 'whoami', arguments: {} } }, CallToolResultSchema)
      .then((r) => textOf(r))
      .catch((e: Error) => e.message);
    expect(res).not.toMatch(/^hello/);
    await waitFor(() => expired.length > 0, 'the expired notice');
    expect(expired[0]).toMatch(/^remote: /);
    await waitFor(() => status().auth?.state === 'sign-in-needed', 'sign-in needed');
    await agent.close().catch(() => {});
  }, 60_000);
});
