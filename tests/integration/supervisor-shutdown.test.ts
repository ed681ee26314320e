// No server process survives the host: an npx-like wrapper whose real server is a grandchild,
// plus a sleeping great-grandchild that ignores SIGTERM, are all gone after host.shutdown();
// and a host that calls process.exit() without shutting down still takes them with it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { tempDir, writeProfile } from '../support/temp';
import { buildTestBundle, type TestBundle } from '../support/build';
import { FAST_RESTART, pidAlive, probePid, profileYaml, serverFixture, waitFor } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Pids = { wrapper: number; server: number; sleeper: number };

function wrapperProfile(dir: string, ids: string[]): { file: string; pidFiles: Record<string, string> } {
  const pidFiles: Record<string, string> = {};
  const servers: Record<string, Record<string, unknown>> = {};
  for (const id of ids) {
    pidFiles[id] = path.join(dir, `${id}.pids.json`);
    // The wrapper writes the host pids of its tree to a file outside the workspace: unsandboxed, so
    // this tests the supervisor's own process-group logic (sandbox-orphans.test.ts does it in bwrap).
    servers[id] = { command: process.execPath, args: [serverFixture('wrapper.mjs'), pidFiles[id], '--ignore-term'], restart: FAST_RESTART, sandbox: 'off' };
  }
  return { file: writeProfile(dir, profileYaml('reap', servers)), pidFiles };
}

const readPids = (file: string): Pids => JSON.parse(readFileSync(file, 'utf8')) as Pids;

describe('host.shutdown()', () => {
  it('leaves no process of any server behind, grandchildren included', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const host = new Host({ dataDir: path.join(tmp.dir, 'data'), stdinGraceMs: 300, termGraceMs: 500 });
    const { file, pidFiles } = wrapperProfile(tmp.dir, ['one', 'two']);
    const launch = await host.launch(file);
    const pids: number[] = [];
    for (const id of ['one', 'two']) {
      const status = launch.supervisor.get(id)!.status();
      expect(status.state).toBe('ready');
      const p = await waitFor(() => existsSync(pidFiles[id]!) && readPids(pidFiles[id]!), { what: `${id} pid file` });
      expect(status.pid).toBe(p.wrapper);
      pids.push(p.wrapper, p.server, p.sleeper);
    }
    for (const pid of pids) expect(pidAlive(pid)).toBe(true);

    await host.shutdown();
    // shutdown() resolves once every group is gone: no polling needed here.
    expect(pids.map(probePid)).toEqual(pids.map(() => 'ESRCH'));
    for (const id of ['one', 'two']) expect(launch.supervisor.get(id)!.status().state).toBe('stopped');
  });

  it('a crash of the wrapper takes its leftover children with it', async () => {
    const tmp = tempDir();
    const host = new Host({ dataDir: path.join(tmp.dir, 'data'), stdinGraceMs: 300, termGraceMs: 500 });
    cleanups.push(tmp.cleanup, () => host.shutdown());
    const { file, pidFiles } = wrapperProfile(tmp.dir, ['one']);
    const launch = await host.launch(file);
    const server = launch.supervisor.get('one')!;
    const first = await waitFor(() => existsSync(pidFiles.one!) && readPids(pidFiles.one!), { what: 'pid file' });
    // The real server dies; the wrapper follows it; the sleeper would be orphaned.
    process.kill(first.server, 'SIGKILL');
    await waitFor(() => server.status().state === 'ready' && server.status().run === 2, { what: 'run 2 ready' });
    await waitFor(() => !pidAlive(first.sleeper) && !pidAlive(first.wrapper), { what: 'old group gone' });
    expect([first.wrapper, first.server, first.sleeper].map(probePid)).toEqual(['ESRCH', 'ESRCH', 'ESRCH']);
  });
});

describe('process.exit() without shutdown', () => {
  let bundle: TestBundle;
  beforeAll(() => {
    bundle = buildTestBundle({ 'host-exit': 'tests/support/host-exit-entry.ts' });
  }, 60_000);
  afterAll(() => bundle?.cleanup());

  it("the reaper's exit hook kills every server's process group", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { file, pidFiles } = wrapperProfile(tmp.dir, ['one', 'two']);
    const out = execFileSync(process.execPath, [bundle.entry('host-exit'), file, path.join(tmp.dir, 'data')], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const reported = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, { state: string; pid: number }>;
    const pids: number[] = [];
    for (const id of ['one', 'two']) {
      expect(reported[id]!.state).toBe('ready');
      const p = readPids(pidFiles[id]!);
      expect(reported[id]!.pid).toBe(p.wrapper);
      pids.push(p.wrapper, p.server, p.sleeper);
    }
    // SIGKILL is delivered at once, but the kernel reaps asynchronously: poll, do not time.
    await waitFor(() => pids.every((pid) => !pidAlive(pid)), { what: 'every pid gone' });
    expect(pids.map(probePid)).toEqual(pids.map(() => 'ESRCH'));
  });

  it('also on an uncaught error path that exits the process', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { file, pidFiles } = wrapperProfile(tmp.dir, ['one']);
    const child = spawn(process.execPath, [bundle.entry('host-exit'), file, path.join(tmp.dir, 'data'), '--throw'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(stdout).toContain('"one"');
    const p = readPids(pidFiles.one!);
    await waitFor(() => [p.wrapper, p.server, p.sleeper].every((pid) => !pidAlive(pid)), { what: 'every pid gone' });
  });
});

