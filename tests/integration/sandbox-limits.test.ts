// Limits on a server's process tree (docs/sandbox.md "Limits"), attacked from the inside with
// tests/fixtures/servers/probe-server.mjs (it runs the JavaScript the test sends): a fork bomb of
// 2,000 sleepers and a 4 GiB allocation, each in a real bwrap sandbox in a real cgroup (root, v1
// here and in CI), while another server answers tool calls through the gateway. Without limits
// both succeed and the server stays ready (run with GATEHOUSE_LIMITS=none to see it).
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Host, type Launch } from '../../main/host';
import { forgetSandboxAvailability } from '../../main/sandbox/availability';
import { cgroupRoots } from '../../main/sandbox/limits-cgroup';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, serverFixture, waitFor } from '../support/supervisor';
import { connectHttp, textOf } from '../support/gateway';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  forgetSandboxAvailability();
});

const roots = process.platform === 'linux' && process.getuid?.() === 0 ? cgroupRoots() : {};

function probe(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [serverFixture('probe-server.mjs')], restart: { max_restarts: 3, initial_backoff_ms: 50 }, ...extra };
}

async function launchWith(servers: Record<string, Record<string, unknown>>): Promise<{ host: Host; launch: Launch }> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env }, stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(() => host.shutdown());
  const launch = await host.launch(writeProfile(tmp.dir, profileYaml('limits', servers)), { httpPort: 0, token: 'limits-test-token-123456' });
  return { host, launch };
}

/** The run's v1 folders: gatehouse/<host pid>-<launch>/<server>-<run>. */
function runDirs(launch: Launch, name: string): { pids: string; memory: string } {
  const rel = path.join(`${process.pid}-${launch.id}`, name);
  return { pids: path.join(roots.v1!.pids, rel), memory: path.join(roots.v1!.memory, rel) };
}

function ourLaunchFolders(): string[] {
  const out: string[] = [];
  for (const base of [roots.v1?.pids, roots.v1?.memory]) {
    if (!base || !existsSync(base)) continue;
    out.push(...readdirSync(base).filter((d) => d.startsWith(`${process.pid}-`)).map((d) => path.join(base, d)));
  }
  return out;
}

const FORK_2000 = `
  let started = 0, refused = 0;
  for (let i = 0; i < 2000; i++) {
    try {
      const c = child_process.spawn('/bin/sleep', ['600'], { stdio: 'ignore' });
      c.on('error', () => { refused += 1; });
      if (c.pid) started += 1;
    } catch { refused += 1; }
  }
  return { started, refused };`;

describe.runIf(roots.v1)('limits on a sandboxed server (cgroup v1, as root)', () => {
  it('a server forking 2,000 sleepers is capped at 256 in its cgroup and stopped with the reason; another server keeps answering through the gateway', async () => {
    const { host, launch } = await launchWith({ bomb: probe(), other: probe() });
    const bomb = launch.supervisor.get('bomb')!;
    expect(bomb.status().state, bomb.status().reason).toBe('ready');
    expect(bomb.status().sandbox?.limits).toBe('cgroup v1 · 256 processes · 2 GiB');
    const dirs = runDirs(launch, 'bomb-1');
    expect(readFileSync(path.join(dirs.pids, 'pids.max'), 'utf8').trim()).toBe('256');

    const agent = await connectHttp(launch);
    cleanups.push(() => agent.close());
    const callOther = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await agent.callTool({ name: 'other.run', arguments: { code: 'return 6 * 7' } });
      expect(textOf(res)).toBe('42');
      return performance.now() - t0;
    };
    const p50 = (xs: number[]): string => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(1);
    const quiet: number[] = [];
    for (let i = 0; i < 50; i++) quiet.push(await callOther());
    let peak = 0;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, Number(readFileSync(path.join(dirs.pids, 'pids.current'), 'utf8')));
      } catch {}
    }, 20);
    cleanups.push(() => clearInterval(sampler));
    void bomb.client!.callTool({ name: 'run', arguments: { code: FORK_2000 } }).catch(() => undefined);

    // While the bomb goes off and is stopped, the other server answers every call.
    const latencies: number[] = [];
    while (bomb.status().state !== 'failed') {
      latencies.push(await callOther());
      if (latencies.length > 2000) throw new Error(`bomb never stopped: ${bomb.status().state} ${bomb.status().reason}`);
    }
    clearInterval(sampler);
    const status = bomb.status();
    expect(status.reason).toMatch(/^stopped: reached its process limit \(256\); not restarted/);
    expect(status.restarts).toBe(0);
    // It got to the cap (the kernel counts threads too) and not one task past it.
    expect(peak).toBeGreaterThan(200);
    expect(peak).toBeLessThanOrEqual(256);
    // Recorded for docs/sandbox.md, never asserted (no timed assertions in tests).
    console.log(`[limits] fork bomb: peak ${peak} tasks in its cgroup; other server: before ${quiet.length} calls p50 ${p50(quiet)} ms; during ${latencies.length} calls p50 ${p50(latencies)} ms, max ${Math.max(...latencies).toFixed(1)} ms`);
    const after = await agent.callTool({ name: 'other.run', arguments: { code: 'return "still here"' } });
    expect(textOf(after)).toBe('"still here"');

    await host.shutdown();
    // Every run's folder, and the launch's, went with the host.
    expect(ourLaunchFolders()).toEqual([]);
  }, 180_000);

  it('a server touching 4 GiB is stopped at its 512 MiB limit by the OOM killer, and not restarted', async () => {
    const { launch } = await launchWith({ hog: probe({ limits: { memory: '512MiB' } }) });
    const hog = launch.supervisor.get('hog')!;
    expect(hog.status().sandbox?.limits).toBe('cgroup v1 · 256 processes · 512 MiB');
    const dirs = runDirs(launch, 'hog-1');
    expect(readFileSync(path.join(dirs.memory, 'memory.limit_in_bytes'), 'utf8').trim()).toBe(String(512 * 1024 ** 2));
    const code = `const keep = []; for (let i = 0; i < 64; i++) { const b = Buffer.allocUnsafe(64 * 1024 * 1024); b.fill(i); keep.push(b); } return keep.length * 64 + ' MiB touched';`;
    const answer = await hog.client!.callTool({ name: 'run', arguments: { code } }).then(textOf, (err: Error) => `ERR ${err.message}`);
    expect(answer).not.toBe('"4096 MiB touched"');
    await waitFor(() => hog.status().state === 'failed', { timeoutMs: 60_000, what: 'hog failed' });
    expect(hog.status().reason).toMatch(/^stopped: reached its memory limit \(512 MiB\)/);
    expect(hog.status().restarts).toBe(0);
    // The host (this process) is alive and its cgroup folders are gone with the run.
    await waitFor(() => !existsSync(dirs.memory), { what: 'the run cgroup removed' });
  }, 120_000);

  it('2 GiB written into its private /tmp (tmpfs, memory) count against the same cap', async () => {
    const { launch } = await launchWith({ writer: probe({ limits: { memory: '512MiB' } }) });
    const writer = launch.supervisor.get('writer')!;
    const code = `const b = Buffer.alloc(16 * 1024 * 1024, 1); let n = 0; for (; n < 128; n++) fs.appendFileSync('/tmp/big', b); return n * 16 + ' MiB written';`;
    const answer = await writer.client!.callTool({ name: 'run', arguments: { code } }).then(textOf, (err: Error) => `ERR ${err.message}`);
    expect(answer).not.toBe('"2048 MiB written"');
    await waitFor(() => writer.status().state === 'failed', { timeoutMs: 60_000, what: 'writer failed' });
    expect(writer.status().reason).toMatch(/^stopped: reached its memory limit \(512 MiB\)/);
  }, 120_000);

  it('sandbox: off gets the same cgroup', async () => {
    const { launch } = await launchWith({ plain: probe({ sandbox: 'off', limits: { processes: 64, cpu: 50 } }) });
    const plain = launch.supervisor.get('plain')!;
    expect(plain.status().sandbox).toMatchObject({ mode: 'off', limits: 'cgroup v1 · 64 processes · 2 GiB · cpu 50%' });
    if (roots.v1!.cpu) {
      const cpuDir = path.join(roots.v1!.cpu, `${process.pid}-${launch.id}`, 'plain-1');
      expect(readFileSync(path.join(cpuDir, 'cpu.cfs_quota_us'), 'utf8').trim()).toBe('50000');
      expect(readFileSync(path.join(cpuDir, 'cpu.cfs_period_us'), 'utf8').trim()).toBe('100000');
    }
    const inside = JSON.parse(textOf(await plain.client!.callTool({ name: 'run', arguments: { code: `return fs.readFileSync('/proc/self/cgroup', 'utf8')` } }))) as string;
    expect(inside).toMatch(new RegExp(`^\\d+:pids:.*/gatehouse/${process.pid}-${launch.id}/plain-1$`, 'm'));
    expect(inside).toMatch(new RegExp(`^\\d+:memory:.*/gatehouse/${process.pid}-${launch.id}/plain-1$`, 'm'));
  }, 60_000);

  it('an agent terminal forking past its limit ends, with the reason written into it', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const forker = `const cp = require('child_process'); for (let i = 0; i < 200; i++) { const c = cp.spawn('/bin/sleep', ['600'], { stdio: 'ignore' }); c.on('error', () => {}); } setInterval(() => {}, 1000);`;
    const file = writeProfile(tmp.dir, JSON.stringify({ name: 'agent-limits', workspace: './ws', agent: { preset: 'custom', command: process.execPath, args: ['-e', forker], autostart: false, limits: { processes: 32 } } }));
    const host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env } });
    cleanups.push(() => host.shutdown());
    const launch = await host.launch(file, { httpPort: 0 });
    let output = '';
    host.terminals.on('data', (_id, d) => (output += d));
    const opened = await host.openTerminal(launch.id);
    if ('unavailable' in opened) throw new Error(opened.unavailable);
    expect(opened.sandbox?.limits).toBe('cgroup v1 · 32 processes · 2 GiB');
    const session = host.terminals.get(opened.id)!;
    await waitFor(() => session.status().exit !== undefined, { timeoutMs: 60_000, what: 'the terminal ended' });
    await waitFor(() => output.includes('[gatehouse] stopped: reached its process limit (32)'), { what: 'the reason in the terminal' });
  }, 120_000);
});
