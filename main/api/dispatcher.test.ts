import { parse as parseToml } from 'smol-toml';
// The host API dispatcher against a real Host: real servers (the built-in workspace tools and
// @modelcontextprotocol/server-filesystem), a real SQLite audit store in a temp data dir.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandOutput, EventName, EventPayload } from '../../common/host-api';
import { Host } from '../host';
import { waitFor } from '../../tests/support/gateway';
import { tempDir, writeProfile } from '../../tests/support/temp';
import { createHostApiDispatcher, type HostApiDispatcher } from './dispatcher';

const PROFILE = `
name: api-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
  files:
    command: mcp-server-filesystem
    args: ["\${workspace}"]
policy:
  default: approve
  approval_timeout_s: 30
  rules:
    - { match: "files.*delete*", decision: deny, reason: never delete here }
    - { match: ["files.read_*", "files.list_*", "fs.read"], decision: allow }
    - { match: "process.exec", decision: deny, reason: no commands in this test }
`;

type Launched = CommandOutput<'profiles:launch'>;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let api: HostApiDispatcher;
let launch: Launched;
let profileFile: string;

/** Records every event a subscribed window would receive. */
function recorder(d: HostApiDispatcher, opts?: Parameters<HostApiDispatcher['subscribe']>[1]) {
  const seen: Array<{ event: EventName; payload: unknown }> = [];
  const off = d.subscribe((event, payload) => seen.push({ event, payload }), opts);
  return {
    seen,
    off,
    of<E extends EventName>(event: E): EventPayload<E>[] {
      return seen.filter((s) => s.event === event).map((s) => s.payload as EventPayload<E>);
    },
  };
}

const text = (r: CommandOutput<'tools:call'>) => (r.result?.content ?? []).map((c) => String(c.text ?? '')).join('\n');

beforeAll(async () => {
  tmp = tempDir();
  profileFile = writeProfile(tmp.dir, PROFILE);
  writeFileSync(path.join(tmp.dir, 'ws', 'hello.txt'), 'hello from the workspace\n');
  host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_PROFILES_DIR: path.join(tmp.dir, 'profiles') } });
  api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
  launch = (await api.handle('profiles:launch', { ref: profileFile })) as Launched;
}, 60_000);

afterAll(async () => {
  api?.close();
  await host?.shutdown();
  tmp?.cleanup();
});

describe('validation', () => {
  it('refuses unknown commands and malformed input, naming what was expected', async () => {
    await expect(api.handle('host:explode', {})).rejects.toThrow(/unknown command 'host:explode'/);
    await expect(api.handle('profiles:launch', {})).rejects.toThrow(/invalid input for 'profiles:launch': ref/);
    await expect(api.handle('profiles:launch', { ref: 'x', extra: true })).rejects.toThrow(/invalid input/);
    await expect(api.handle('approvals:answer', { id: 'a', choice: 'allow_forever' })).rejects.toThrow(/choice/);
    await expect(api.handle('host:snapshot', { trafficLimit: -1 })).rejects.toThrow(/trafficLimit/);
    await expect(api.handle('tools:call', { launchId: launch.id, name: 'read_file', arguments: 'nope' })).rejects.toThrow(/arguments/);
  });

  it('names the launch or server that does not exist', async () => {
    await expect(api.handle('servers:restart', { launchId: 'nope', serverId: 'files' })).rejects.toThrow(/no running launch 'nope'/);
    await expect(api.handle('servers:restart', { launchId: launch.id, serverId: 'nope' })).rejects.toThrow(/has no server 'nope'/);
  });

  it('refuses an invalid profile with its file:line:col', async () => {
    const bad = writeProfile(tmp.dir, 'name: bad\nworkspace: ./ws\nservers:\n  x:\n    comand: nothing\n', 'bad.yaml');
    await expect(api.handle('profiles:launch', { ref: bad })).rejects.toThrow(/bad\.yaml:\d+:\d+/);
  });
});

describe('commands', () => {
  it('host:info and profiles:list', async () => {
    const info = (await api.handle('host:info', {})) as CommandOutput<'host:info'>;
    expect(info).toMatchObject({ shell: 'web', dataDir: path.join(tmp.dir, 'data'), platform: process.platform });
    const profiles = (await api.handle('profiles:list', {})) as CommandOutput<'profiles:list'>;
    const demo = profiles.find((p) => p.name === 'demo');
    expect(demo).toMatchObject({ servers: ['workspace', 'files', 'memory'], toolSurface: 'friendly', policyDefault: 'approve' });
  });

  it('profiles:launch returns a summary with ready servers and the gateway URL, never the token', async () => {
    expect(launch.profile).toBe('api-test');
    expect(launch.servers.map((s) => [s.id, s.state])).toEqual([
      ['workspace', 'ready'],
      ['files', 'ready'],
    ]);
    expect(launch.gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const token = host.launches.get(launch.id)!.token!;
    expect(JSON.stringify(launch)).not.toContain(token);
    const listed = (await api.handle('launches:list', {})) as CommandOutput<'launches:list'>;
    expect(listed.map((l) => l.id)).toContain(launch.id);
  });

  it('tools:list gives each tool its advertised name, schema and policy status', async () => {
    const tools = (await api.handle('tools:list', { launchId: launch.id })) as CommandOutput<'tools:list'>;
    const by = (canonical: string) => tools.find((t) => t.canonical === canonical);
    expect(by('fs.read')).toMatchObject({ name: 'read_file', server: 'workspace', status: 'callable' });
    expect(by('fs.read')!.inputSchema).toMatchObject({ type: 'object' });
    expect(by('fs.write')).toMatchObject({ status: 'needs_approval' });
    expect(by('process.exec')).toMatchObject({ status: 'denied' });
    expect(by('gatehouse.capabilities')).toMatchObject({ status: 'callable' });
    expect(by('files.list_directory')).toMatchObject({ server: 'files', status: 'callable' });
  });

  it('tools:call runs through the gateway as the UI session, with policy', async () => {
    const ok = (await api.handle('tools:call', { launchId: launch.id, name: 'read_file', arguments: { file_path: 'hello.txt' } })) as CommandOutput<'tools:call'>;
    expect(ok.exchange).toMatch(/^ui-web#console-\d+$/);
    expect(ok.result?.isError).not.toBe(true);
    expect(text(ok)).toContain('hello from the workspace');

    const denied = (await api.handle('tools:call', { launchId: launch.id, name: 'run_command', arguments: { command: 'true' } })) as CommandOutput<'tools:call'>;
    expect(denied.result?.isError).toBe(true);
    expect(text(denied)).toMatch(/^DENY: no commands in this test/);

    const unknown = (await api.handle('tools:call', { launchId: launch.id, name: 'no_such_tool', arguments: {} })) as CommandOutput<'tools:call'>;
    expect(unknown.error).toMatch(/Unknown tool: no_such_tool/);
  });

  it('with no window subscribed, a call that needs approval fails closed at once', async () => {
    expect(api.subscribers()).toBe(0);
    const r = (await api.handle('tools:call', { launchId: launch.id, name: 'write_file', arguments: { file_path: 'x.txt', content: 'x' } })) as CommandOutput<'tools:call'>;
    expect(text(r)).toMatch(/DENY: approval required but no approver is attached/);
    expect(existsSync(path.join(tmp.dir, 'ws', 'x.txt'))).toBe(false);
  });

  it('traffic:history, audit:sessions and audit:query read the SQLite store', async () => {
    const history = (await api.handle('traffic:history', { session: launch.id, limit: 50 })) as CommandOutput<'traffic:history'>;
    expect(history.length).toBeGreaterThan(0);
    expect(history.some((e) => e.method === 'tools/call' && e.server === 'workspace')).toBe(true);
    const older = (await api.handle('traffic:history', { session: launch.id, beforeSeq: history[0]!.seq, limit: 10 })) as CommandOutput<'traffic:history'>;
    expect(older.every((e) => e.seq < history[0]!.seq)).toBe(true);

    const sessions = (await api.handle('audit:sessions', {})) as CommandOutput<'audit:sessions'>;
    expect(sessions.find((s) => s.id === launch.id)).toMatchObject({ kind: 'serve', profile: 'api-test' });

    const q = (await api.handle('audit:query', { session: launch.id })) as CommandOutput<'audit:query'>;
    expect(q.decisions.some((d) => d.agentSession === 'ui-web' && d.tool === 'fs.read' && d.outcome === 'allowed')).toBe(true);
    expect(q.decisions.some((d) => d.tool === 'process.exec' && d.decision === 'DENY')).toBe(true);
  });

  it('connect:configs names the token variable only; connect:token reveals it on request', async () => {
    const out = (await api.handle('connect:configs', { launchId: launch.id })) as CommandOutput<'connect:configs'>;
    const token = ((await api.handle('connect:token', { launchId: launch.id })) as CommandOutput<'connect:token'>).token;
    expect(token).toBe(host.launches.get(launch.id)!.token);
    expect(out.url).toBe(launch.gatewayUrl);
    expect(out.tokenEnv).toBe('GATEHOUSE_TOKEN');
    expect(out.configs.map((c) => c.client).sort()).toEqual(['claude-code', 'claude-desktop', 'codex', 'cursor', 'gemini', 'inspector', 'vscode']);
    for (const c of out.configs) expect(c.text).not.toContain(token);
    const cfg = (client: string) => out.configs.find((c) => c.client === client)!;
    expect(JSON.parse(cfg('claude-code').text).mcpServers.gatehouse).toEqual({
      type: 'http',
      url: launch.gatewayUrl,
      headers: { Authorization: 'Bearer ${GATEHOUSE_TOKEN}' },
    });
    expect(parseToml(cfg('codex').text)).toEqual({ mcp_servers: { gatehouse: { url: launch.gatewayUrl, bearer_token_env_var: 'GATEHOUSE_TOKEN' } } });
    expect(JSON.parse(cfg('gemini').text).mcpServers.gatehouse).toEqual({ httpUrl: launch.gatewayUrl, headers: { Authorization: 'Bearer ${GATEHOUSE_TOKEN}' } });
    const vscode = JSON.parse(cfg('vscode').text);
    expect(vscode.servers.gatehouse).toEqual({ type: 'http', url: launch.gatewayUrl, headers: { Authorization: 'Bearer ${input:gatehouse-token}' } });
    expect(vscode.inputs[0]).toMatchObject({ type: 'promptString', id: 'gatehouse-token', password: true });
    expect(JSON.parse(cfg('cursor').text).mcpServers.gatehouse.headers.Authorization).toBe('Bearer ${env:GATEHOUSE_TOKEN}');
    const desktop = JSON.parse(cfg('claude-desktop').text).mcpServers.gatehouse;
    expect(desktop.args.slice(0, 3)).toEqual(['gateway', '--profile', profileFile]);
  });

  it('profiles:import turns an uploaded client config into a profile, secrets as references', async () => {
    const text = JSON.stringify({ mcpServers: { github: { command: 'npx', args: ['-y', 'gh-mcp'], env: { GITHUB_TOKEN: 'ghp_notARealTokenButShapedLikeOne1234567890' } } } });
    const out = (await api.handle('profiles:import', { fileName: 'claude_desktop_config.json', text })) as CommandOutput<'profiles:import'>;
    expect(out.name).toMatch(/^claude-desktop/);
    expect(out.file.startsWith(path.join(tmp.dir, 'profiles'))).toBe(true);
    const written = readFileSync(out.file, 'utf8');
    expect(written).not.toContain('ghp_notARealToken');
    expect(written).toContain('${secret:');
    expect(out.warnings.some((w) => /set secret/.test(w))).toBe(true);
    await expect(api.handle('profiles:import', { fileName: 'notes.txt', text: 'hello' })).rejects.toThrow(/cannot tell which client/);
  });
});

describe('events', () => {
  it('subscribe delivers batched traffic, decisions and server status; the UI approver lives while a window does', async () => {
    expect(host.broker.approvers()).toEqual([]);
    const win = recorder(api);
    expect(host.broker.approvers()).toEqual(['ui']);
    await api.handle('tools:call', { launchId: launch.id, name: 'read_file', arguments: { file_path: 'hello.txt' } });
    await waitFor(() => win.of('traffic:batch').some((b) => b.events.some((e) => e.method === 'tools/call' && e.direction === 'gateway_to_server')), 'the call in a traffic batch');
    const batch = win.of('traffic:batch')[0]!;
    expect(batch.dropped).toBe(0);
    expect(win.of('decision:made').some((d) => d.agentSession === 'ui-web' && d.tool === 'fs.read')).toBe(true);

    await api.handle('servers:restart', { launchId: launch.id, serverId: 'files' });
    await waitFor(() => win.of('server:status').some((s) => s.launchId === launch.id && s.status.id === 'files' && s.status.state === 'ready' && s.status.run === 2), 'files ready again (run 2)');
    // Restarted server's stderr arrives as a batch too (server-filesystem logs on start).
    await waitFor(() => win.of('stderr:batch').some((b) => b.lines.some((l) => l.server === 'files' && l.run === 2)), 'stderr of run 2');
    const tail = (await api.handle('logs:tail', { launchId: launch.id, serverId: 'files', limit: 5 })) as CommandOutput<'logs:tail'>;
    expect(tail.length).toBeGreaterThan(0);
    expect(tail.every((l) => l.server === 'files' && l.session === launch.id)).toBe(true);

    win.off();
    expect(host.broker.approvers()).toEqual([]);
    expect(api.violations()).toEqual([]);
  });

  it('a congested window gets no traffic batches, then one that counts what it missed', async () => {
    let congested = true;
    let dropsSeen = 0;
    const win = recorder(api, {
      congested: () => {
        if (congested) dropsSeen++;
        return congested;
      },
    });
    await api.handle('tools:call', { launchId: launch.id, name: 'read_file', arguments: { file_path: 'hello.txt' } });
    // The decision (not traffic) still arrives: it is never dropped.
    await waitFor(() => win.of('decision:made').length > 0, 'the decision');
    await waitFor(() => dropsSeen > 0, 'a batch dropped at the gate');
    expect(win.of('traffic:batch')).toEqual([]);
    congested = false;
    await api.handle('tools:call', { launchId: launch.id, name: 'read_file', arguments: { file_path: 'hello.txt' } });
    const batch = await waitFor(() => win.of('traffic:batch')[0], 'a batch after congestion');
    expect(batch.dropped).toBeGreaterThan(0);
    win.off();
  });

  it('an approval answered through the API unblocks the waiting tools:call (allow and deny)', async () => {
    const win = recorder(api);
    const call = api.handle('tools:call', { launchId: launch.id, name: 'write_file', arguments: { file_path: 'approved.txt', content: 'yes\n' } }) as Promise<CommandOutput<'tools:call'>>;
    const requested = await waitFor(() => win.of('approval:requested')[0], 'the approval request');
    expect(requested.request).toMatchObject({ tool: 'fs.write', advertisedName: 'write_file', server: 'workspace', agentSession: 'ui-web', kind: 'tool' });
    expect(requested.request.args).toMatchObject({ file_path: 'approved.txt' });
    expect(requested.request).not.toHaveProperty('fingerprint');
    const pending = (await api.handle('approvals:list', {})) as CommandOutput<'approvals:list'>;
    expect(pending.map((p) => p.id)).toEqual([requested.request.id]);
    const snapshot = (await api.handle('host:snapshot', {})) as CommandOutput<'host:snapshot'>;
    expect(snapshot.approvals.map((p) => p.id)).toEqual([requested.request.id]);
    expect(snapshot.launches.map((l) => l.id)).toContain(launch.id);
    expect(snapshot.traffic.length).toBeGreaterThan(0);

    expect(await api.handle('approvals:answer', { id: requested.request.id, choice: 'allow_once' })).toEqual({ ok: true });
    const result = await call;
    expect(result.result?.isError).not.toBe(true);
    expect(readFileSync(path.join(tmp.dir, 'ws', 'approved.txt'), 'utf8')).toBe('yes\n');
    const resolved = await waitFor(() => win.of('approval:resolved')[0], 'the resolution');
    expect(resolved.outcome).toMatchObject({ approved: true, how: 'once', by: 'ui' });
    // A second answer to the same request changes nothing.
    expect(await api.handle('approvals:answer', { id: requested.request.id, choice: 'deny' })).toEqual({ ok: false });

    const call2 = api.handle('tools:call', { launchId: launch.id, name: 'write_file', arguments: { file_path: 'denied.txt', content: 'no\n' } }) as Promise<CommandOutput<'tools:call'>>;
    const second = await waitFor(() => win.of('approval:requested')[1], 'the second request');
    await api.handle('approvals:answer', { id: second.request.id, choice: 'deny', note: 'not today' });
    const denied = await call2;
    expect(denied.result?.isError).toBe(true);
    expect(text(denied)).toMatch(/DENY: denied by ui: not today/);
    expect(existsSync(path.join(tmp.dir, 'ws', 'denied.txt'))).toBe(false);
    win.off();
    expect(api.violations()).toEqual([]);
  });

  it('a session grant narrowed to a pattern is listed by grants:list and revoked by grants:revoke (the next call asks again)', async () => {
    const win = recorder(api);
    const write = (file: string) => api.handle('tools:call', { launchId: launch.id, name: 'write_file', arguments: { file_path: file, content: 'g\n' } }) as Promise<CommandOutput<'tools:call'>>;
    const first = write('g-one.txt');
    const req = await waitFor(() => win.of('approval:requested')[0], 'the approval request');
    await expect(api.handle('approvals:answer', { id: req.request.id, choice: 'allow_once', narrow: { arg: 'file_path', pattern: 'g-.*' } })).rejects.toThrow(/narrow goes only with allow_tool_session/);
    await expect(api.handle('approvals:answer', { id: req.request.id, choice: 'allow_tool_session', narrow: { arg: 'file_path', pattern: '(' } })).rejects.toThrow(/not a valid regular expression/);
    expect(await api.handle('approvals:answer', { id: req.request.id, choice: 'allow_tool_session', narrow: { arg: 'file_path', pattern: 'g-.*' } })).toEqual({ ok: true });
    await first;
    expect((await write('g-two.txt')).result?.isError).not.toBe(true);
    expect(win.of('approval:requested')).toHaveLength(2); // the second was answered by the grant, at once
    const grants = (await api.handle('grants:list', {})) as CommandOutput<'grants:list'>;
    expect(grants).toMatchObject([{ grant: 'pattern', tool: 'fs.write', arg: 'file_path', pattern: 'g-.*', by: 'ui', agentSession: 'ui-web' }]);
    expect(await api.handle('grants:revoke', { id: grants[0]!.id })).toEqual({ revoked: true });
    expect(await api.handle('grants:list', {})).toEqual([]);
    expect(await api.handle('grants:revoke', { id: grants[0]!.id })).toEqual({ revoked: false });
    const third = write('g-three.txt');
    const again = await waitFor(() => win.of('approval:requested').find((r) => (r.request.args as { file_path?: string }).file_path === 'g-three.txt' && win.of('approval:resolved').every((x) => x.request.id !== r.request.id)), 'a person asked again');
    await api.handle('approvals:answer', { id: again.request.id, choice: 'deny' });
    expect((await third).result?.isError).toBe(true);
    win.off();
  });

  it('profiles:stop ends the launch and tells the windows', async () => {
    const other = (await api.handle('profiles:launch', { ref: profileFile, toolSurface: 'canonical' })) as Launched;
    expect(other.toolSurface).toBe('canonical');
    const win = recorder(api);
    expect(await api.handle('profiles:stop', { launchId: other.id })).toEqual({ ok: true });
    const stopped = await waitFor(() => win.of('launch:changed').find((c) => c.launch.id === other.id && c.stopped), 'launch:changed stopped');
    expect(stopped.launch.servers.every((s) => s.state === 'stopped')).toBe(true);
    const listed = (await api.handle('launches:list', {})) as CommandOutput<'launches:list'>;
    expect(listed.map((l) => l.id)).not.toContain(other.id);
    await expect(api.handle('tools:list', { launchId: other.id })).rejects.toThrow(/no running launch/);
    win.off();
  });
});

describe('lifetime', () => {
  it('takes back every listener it put on the host, its terminals and the launch gateway when the last window leaves and when it closes', async () => {
    const running = host.launches.get(launch.id)!;
    const counts = () => ({
      host: host.eventNames().map((e) => `${String(e)}=${host.listenerCount(e)}`).sort(),
      terminals: host.terminals.eventNames().map((e) => `${String(e)}=${host.terminals.listenerCount(e)}`).sort(),
      gateway: running.gateway.listenerCount('agent-session'),
    });
    const before = counts();
    const second = createHostApiDispatcher(host, { shell: 'electron', validateOutput: true });
    const w1 = recorder(second);
    const w2 = recorder(second);
    expect(counts()).not.toEqual(before);
    w1.off();
    w2.off();
    // What outlives the windows is the dispatcher's own (the terminal records it remembers); close() takes that too.
    second.close();
    expect(counts()).toEqual(before);
  });
});
