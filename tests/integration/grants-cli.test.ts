// `gatehouse grants list|revoke` (docs/agents.md, "Session grants from a terminal") against a real
// running host: server-everything behind the gateway, an SDK client whose call a person allows
// for the session (narrowed to a pattern), the bundled CLI in a child process listing it and
// revoking it (the next call asks again). Then the boundary, from inside real sandboxes: a
// bubblewrap server does not even see the socket; a Landlock server (where bwrap is refused),
// which can reach it by path, is refused by the host. And `gatehouse launch` and `serve` open it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Host, type Launch } from '../../main/host';
import { startGrantsControl } from '../../main/approvals/grants-control';
import { grantsSocketPath } from '../../main/approvals/grants-wire';
import { forgetSandboxAvailability, landlockLauncherPath } from '../../main/sandbox/availability';
import { buildTestBundle, type TestBundle } from '../support/build';
import { autoApprover, connectHttp, textOf, waitFor } from '../support/gateway';
import { launchProbe, probeRun, probeWorld } from '../support/sandbox-probe';
import { repoRoot } from '../support/supervisor';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';

const PROFILE = `
name: grants-cli-test
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
  rules:
    - { match: "everything.echo", decision: approve }
`;

let bundle: TestBundle;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'grants-cli');
});
afterAll(() => bundle?.cleanup());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  forgetSandboxAvailability();
});

/** The bundled CLI, asynchronously: the host it talks to runs in this process. */
async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [bundle.entry('cli'), 'grants', ...args, '--data-dir', dataDir], { encoding: 'utf8', timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('gatehouse grants against a running host', () => {
  let tmp: ReturnType<typeof tempDir>;
  let host: Host;
  let launch: Launch;
  let client: Client;
  let dataDir: string;

  beforeAll(async () => {
    tmp = tempDir('gh-grants-cli-');
    dataDir = path.join(tmp.dir, 'data');
    host = new Host({ dataDir });
    launch = await host.launch(writeProfile(tmp.dir, PROFILE), { httpPort: 0, token: 'grants-cli-token-1234567890' });
    const control = await startGrantsControl(host);
    expect(control.path).toBe(grantsSocketPath(dataDir));
    client = await connectHttp(launch, {}, 'grants-agent');
  }, 60_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await host?.shutdown();
    tmp?.cleanup();
  });

  it('lists a grant a person made for the session (narrowed), revokes it, and the next call asks again', async () => {
    const approver = autoApprover(host, () => undefined);
    try {
      // The person allows echo for the session, narrowed to messages starting "hello".
      const first = client.callTool({ name: 'echo', arguments: { message: 'hello one' } });
      const asked = await waitFor(() => approver.seen[0], 'the approval card');
      expect(host.broker.answer(asked.id, { choice: 'allow_tool_session', by: 'tester', narrow: { arg: 'message', pattern: 'hello.*' } })).toBe(true);
      expect(textOf(await first)).toContain('hello one');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hello two' } }))).toContain('hello two');
      expect(approver.seen).toHaveLength(1);

      const listed = await cli(dataDir, 'list', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      const grants = JSON.parse(listed.stdout) as Array<{ id: string; tool: string; agentName?: string; grant: string; arg?: string; pattern?: string; createdAt: number }>;
      expect(grants).toEqual([expect.objectContaining({ tool: 'everything.echo', agentName: 'grants-agent', grant: 'pattern', arg: 'message', pattern: 'hello.*', by: 'tester', session: launch.id })]);
      const id = grants[0]!.id;
      // The table a person reads: id, agent, tool, what it covers, since when.
      const table = await cli(dataDir, 'list');
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/^ID\s+AGENT\s+TOOL\s+COVERS\s+SINCE\s+BY$/m);
      expect(table.stdout).toMatch(new RegExp(`^${id}\\s+grants-agent\\s+everything\\.echo\\s+message matching hello\\.\\*\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+tester$`, 'm'));

      const revoked = await cli(dataDir, 'revoke', id);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toBe(`revoked ${id}  everything.echo  (message matching hello.*)\n`);
      expect(host.broker.listGrants()).toEqual([]);

      // The next call the grant covered asks a person again.
      const third = client.callTool({ name: 'echo', arguments: { message: 'hello three' } });
      const again = await waitFor(() => approver.seen[1], 'a new approval card after the revoke');
      expect(again.tool).toBe('everything.echo');
      host.broker.answer(again.id, { choice: 'allow_once', by: 'tester' });
      expect(textOf(await third)).toContain('hello three');

      expect(await cli(dataDir, 'list')).toMatchObject({ code: 0, stdout: 'no session grants (every call that needs approval asks)\n' });
      expect(await cli(dataDir, 'revoke', id)).toMatchObject({ code: 1, stderr: expect.stringContaining(`no grant with id ${id}`) });
    } finally {
      approver.detach();
    }
  }, 120_000);

  it('revoke --all forgets every grant', async () => {
    const approver = autoApprover(host, () => 'allow_tool_session');
    try {
      await client.callTool({ name: 'echo', arguments: { message: 'any' } });
    } finally {
      approver.detach();
    }
    expect(host.broker.listGrants()).toHaveLength(1);
    const r = await cli(dataDir, 'revoke', '--all');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^revoked \S+ {2}everything\.echo {2}\(every call\)\n$/);
    expect(host.broker.listGrants()).toEqual([]);
  }, 60_000);

  it('says clearly when no host runs with that data dir (exit 1), and refuses usage errors (exit 2)', async () => {
    const empty = path.join(tmp.dir, 'no-host');
    mkdirSync(empty);
    const r = await cli(empty, 'list');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no Gatehouse host is running with data in ${empty}`);
    expect(r.stdout).toBe('');
    expect((await cli(dataDir, 'revoke')).code).toBe(2);
    expect((await cli(dataDir, 'grant', 'x')).code).toBe(2);
  });
});

describe('the host shells open the grants socket', () => {
  /** Starts a `gatehouse` host command and waits for its ready line on stderr. */
  async function startShell(dataDir: string, args: string[], ready: string): Promise<void> {
    const child = spawn(process.execPath, [bundle.entry('cli'), ...args, '--data-dir', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    await waitFor(() => stderr.includes(ready), `gatehouse ${args[0]} ready (stderr so far: ${stderr})`, 60_000);
  }

  it('a terminal reaches a running `gatehouse launch` and hears it has no grants yet', async () => {
    const tmp = tempDir('gh-grants-launch-');
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const file = writeProfile(tmp.dir, PROFILE);
    pinProfile(dataDir, file);
    await startShell(dataDir, ['launch', '--profile', file, '--no-http', '--no-approver'], 'press Ctrl-C');
    expect(await cli(dataDir, 'list', '--json')).toMatchObject({ code: 0, stdout: '[]\n' });
  }, 90_000);

  it('and a running `gatehouse serve`; after it stops, the terminal hears no host runs', async () => {
    const tmp = tempDir('gh-grants-serve-');
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    await startShell(dataDir, ['serve', '--port', '0'], 'press Ctrl-C');
    expect(await cli(dataDir, 'list')).toMatchObject({ code: 0, stdout: 'no session grants (every call that needs approval asks)\n' });
    for (const c of cleanups.splice(-1)) await c();
    expect(existsSync(grantsSocketPath(dataDir)), 'the socket goes away with the serve').toBe(false);
    expect(await cli(dataDir, 'list')).toMatchObject({ code: 1, stderr: expect.stringContaining('no Gatehouse host is running') });
  }, 90_000);
});

// From inside sandboxes. The probe server (tests/fixtures/servers/probe-server.mjs) runs what the
// test sends; it is told the socket's path, which it could guess anyway.
const askFromInside = (socketPath: string) => `return await new Promise((resolve) => {
  const s = net.connect(${JSON.stringify(socketPath)}, () => s.write('{"verb":"revoke","all":true}\\n'));
  let got = '';
  s.setTimeout(10000, () => { s.destroy(); resolve('timeout ' + got); });
  s.on('data', (d) => { got += d; if (got.includes('\\n')) s.end(); });
  s.on('close', () => resolve('closed ' + got.trim()));
  s.on('error', (e) => resolve('error ' + e.code));
})`;

/** A host with one live session grant and its grants socket, in a probe world. */
async function grantedWorld(env: Record<string, string> = {}) {
  const w = probeWorld(cleanups, env);
  const control = await startGrantsControl(w.host);
  cleanups.push(() => control.close());
  cleanups.push(w.host.broker.attachApprover({ name: 'test' }));
  const waiting = w.host.broker.request({ tool: 'fs.write', server: 'workspace', args: {}, reason: 'asks', session: 'L1', agentSession: 'A1' }, { timeoutMs: 60_000 });
  w.host.broker.answer(w.host.broker.pending()[0]!.id, { choice: 'allow_tool_session', by: 'tester' });
  expect((await waiting).approved).toBe(true);
  return { w, socketPath: control.path! };
}

describe.skipIf(process.platform !== 'linux')('a sandboxed process and the grants socket', () => {
  it('bubblewrap: the data directory is not there, so neither is the socket; the grant stays', async () => {
    const { w, socketPath } = await grantedWorld();
    const launch = await launchProbe(w, undefined);
    expect(launch.supervisor.get('probe')!.status().sandbox).toMatchObject({ mode: 'strict' });
    expect(await probeRun(launch, askFromInside(socketPath))).toBe('"error ENOENT"');
    expect(w.host.broker.listGrants()).toHaveLength(1);
    // The same code from `sandbox: off` reaches it (and is not refused): what the sandbox takes away.
    const other = await grantedWorld();
    const off = await launchProbe(other.w, 'off');
    expect(await probeRun(off, askFromInside(other.socketPath))).toMatch(/^"closed \{\\"ok\\":true,\\"revoked\\":\[\{/);
  }, 90_000);

  const launcher = landlockLauncherPath(process.env);
  it.skipIf(!existsSync(launcher))('landlock (where bwrap is refused): the path is reachable, and the host refuses it as sandboxed', async () => {
    const { w, socketPath } = await grantedWorld({ GATEHOUSE_BWRAP: path.join(repoRoot, 'tests', 'fixtures', 'sandbox', 'bwrap-apparmor-denied.sh') });
    const launch = await launchProbe(w, undefined);
    expect(launch.supervisor.get('probe')!.status().sandbox).toMatchObject({ kind: 'landlock' });
    const got = await probeRun(launch, askFromInside(socketPath));
    expect(got).toMatch(/^"closed \{\\"ok\\":false,\\"error\\":\\"refused: a sandboxed process cannot use this socket \(pid \d+ runs with no_new_privs/);
    expect(w.host.broker.listGrants()).toHaveLength(1);
  }, 90_000);
});
