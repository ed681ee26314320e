// The sign-in and secrets host-API commands (docs/auth.md) against a real Host and the local OAuth servers: Sign in /
// Sign out, the Secrets panel's commands, and that no value or token is ever in an answer or
// an event a window receives (the dispatcher validates every output against the contract).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { CommandOutput } from '../../common/host-api';
import { Host } from '../host';
import { followAuthorizationHeadless } from '../auth/loopback-redirect';
import { waitFor } from '../../tests/support/gateway';
import { tempDir, writeProfile } from '../../tests/support/temp';
import { startOAuthServers, type OAuthServers } from '../../tests/support/oauth-servers';
import { createHostApiDispatcher, type HostApiDispatcher } from './dispatcher';

let tmp: ReturnType<typeof tempDir>;
let servers: OAuthServers;
let host: Host;
let api: HostApiDispatcher;
let launchId: string;
const seen: string[] = [];

beforeAll(async () => {
  tmp = tempDir();
  servers = await startOAuthServers();
  const file = writeProfile(
    tmp.dir,
    `name: auth-api\nworkspace: ./ws\nservers:\n  remote:\n    url: ${servers.mcpUrl}\n    transport: streamable-http\n    auth: oauth\n  workspace:\n    builtin: workspace-tools\npolicy:\n  default: allow\n`,
  );
  host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_SECRET_STORE: 'file' } });
  api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
  api.subscribe((event, payload) => seen.push(JSON.stringify({ event, payload })));
  launchId = ((await api.handle('profiles:launch', { ref: file })) as CommandOutput<'profiles:launch'>).id;
}, 60_000);

afterAll(async () => {
  api?.close();
  await host?.shutdown();
  await servers?.close();
  tmp?.cleanup();
});

const remote = async () => ((await api.handle('launches:list', {})) as CommandOutput<'launches:list'>)[0]!.servers.find((s) => s.id === 'remote')!;

describe('auth:signIn / auth:signOut', () => {
  it('the web shell gets the authorization link; completing it makes the server ready; sign-out brings sign-in needed back', async () => {
    expect(await remote()).toMatchObject({ state: 'stopped', auth: { state: 'sign-in-needed' } });
    await expect(api.handle('auth:signIn', { launchId, serverId: 'workspace' })).rejects.toThrow(/does not use auth: oauth/);
    const started = (await api.handle('auth:signIn', { launchId, serverId: 'remote' })) as CommandOutput<'auth:signIn'>;
    expect(started.opened).toBe(false);
    expect(started.authorizationUrl).toMatch(new RegExp(`^${servers.asUrl}/authorize\\?`));
    await followAuthorizationHeadless(new URL(started.authorizationUrl!), host.auth.get(launchId, 'remote')!.redirectUrl);
    await waitFor(async () => (await remote()).state === 'ready' || undefined, 'ready');
    const call = (await api.handle('tools:call', { launchId, name: 'whoami', arguments: {} })) as CommandOutput<'tools:call'>;
    expect(JSON.stringify(call.result), call.error).toMatch(/hello client_/);
    expect(await api.handle('auth:signOut', { launchId, serverId: 'remote' })).toEqual({ removed: true });
    expect((await remote()).auth?.state).toBe('sign-in-needed');
    await waitFor(() => seen.some((s) => s.includes('"signed-in"')) || undefined, 'a signed-in status event');
    expect(api.violations()).toEqual([]);
    for (const s of servers.issuedSecrets()) expect(seen.join('\n')).not.toContain(s);
  });
});

describe('secrets:*', () => {
  it('stores write-only values, lists names only, refuses bad names', async () => {
    expect(await api.handle('secrets:set', { name: 'GITHUB_TOKEN', value: 'ghp_value-never-sent-back-0123' })).toEqual({ ok: true });
    const list = (await api.handle('secrets:list', {})) as CommandOutput<'secrets:list'>;
    expect(list.names).toEqual(['GITHUB_TOKEN']);
    expect(list.store).toMatchObject({ kind: 'encrypted-file', warning: expect.stringMatching(/GATEHOUSE_SECRET_STORE=file/) });
    expect(JSON.stringify(list)).not.toContain('ghp_value');
    // OAuth records live in the same store but are not user secrets: not listed, not deletable here.
    expect(host.auth.store.keys().some((k) => k.startsWith('oauth:'))).toBe(true);
    await expect(api.handle('secrets:set', { name: '1bad name', value: 'x' })).rejects.toThrow(/secret name/);
    await expect(api.handle('secrets:delete', { name: 'oauth:client:x' })).rejects.toThrow(/secret name/);
    expect(await api.handle('secrets:delete', { name: 'GITHUB_TOKEN' })).toEqual({ removed: true });
    expect(seen.join('\n')).not.toContain('ghp_value');
  });
});
