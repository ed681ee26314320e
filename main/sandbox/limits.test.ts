// The limits mechanisms (limits.ts): how this machine's cgroups are found, the systemd scope's
// argv (no user systemd here: not run), and real runs in a real cgroup (root, v1 here and in CI)
// and under real rlimits, each trying to cross its cap.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cgroupMounts, cgroupRoots, eventCount, findCgroupRoots, formatBytes, ownCgroups, safeName, sweepStale } from './limits-cgroup';
import { cgroupsRemoved, planLimits, PRLIMIT, type LimitsPlan } from './limits';
import { scopeUnit, systemdScopeArgs } from './limits-systemd';
import { withPrelude } from './launch-prelude';

const plans: LimitsPlan[] = [];
afterEach(async () => {
  for (const p of plans.splice(0)) p.dispose();
  await cgroupsRemoved();
});

const V1_MOUNTINFO = [
  '30 25 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755',
  '38 30 0:33 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '39 30 0:34 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '40 30 0:35 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

describe('finding the cgroups Gatehouse may use', () => {
  it('reads mountinfo and /proc/self/cgroup (v1 controllers, the v2 path)', () => {
    expect(cgroupMounts(V1_MOUNTINFO).map((m) => [m.dir, m.type, m.options.includes('pids')])).toEqual([
      ['/sys/fs/cgroup/memory', 'cgroup', false],
      ['/sys/fs/cgroup/pids', 'cgroup', true],
      ['/sys/fs/cgroup/unified', 'cgroup2', false],
    ]);
    const own = ownCgroups('4:memory:/process_api/x\n8:pids:/\n1:cpu,cpuacct:/a\n0::/\n');
    expect(own.v2).toBe('/');
    expect(own.v1.get('memory')).toBe('/process_api/x');
    expect(own.v1.get('cpuacct')).toBe('/a');
  });

  it('on this machine: the v1 pids and memory hierarchies under our own cgroup (root), not the v2 mount without controllers', () => {
    if (process.getuid?.() !== 0) return;
    const roots = findCgroupRoots();
    expect(roots.v2).toBeUndefined();
    const own = ownCgroups(readFileSync('/proc/self/cgroup', 'utf8'));
    expect(roots.v1?.pids).toBe(path.join('/sys/fs/cgroup/pids', own.v1.get('pids')!, 'gatehouse'));
    // Nested under the memory cgroup we are in: whatever caps Gatehouse caps its servers too.
    expect(roots.v1?.memory).toBe(path.join('/sys/fs/cgroup/memory', own.v1.get('memory')!, 'gatehouse'));
  });

  it('names folders and units from ids without letting an id add a path segment', () => {
    expect(safeName('../../etc')).toBe('__.._etc');
    expect(safeName('a/b c')).toBe('a_b_c');
    expect(scopeUnit('12-launch 1', 'files-2')).toBe('gatehouse-12-launch_1-files-2');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2 GiB');
    expect(formatBytes(512 * 1024 ** 2)).toBe('512 MiB');
    expect(eventCount('max 3\n', 'max')).toBe(3);
    expect(eventCount('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n', 'oom_kill')).toBe(2);
  });
});

describe('the systemd scope (mechanism 1; no user systemd on this machine, so argv only)', () => {
  it('caps tasks, memory (no swap) and cpu, and ends with -- before the command', () => {
    expect(systemdScopeArgs({ processes: 64, memoryBytes: 512 * 1024 ** 2, cpuPercent: 50 }, 'gatehouse-1-l-files-1')).toEqual([
      '--user',
      '--scope',
      '--quiet',
      '--collect',
      '--unit=gatehouse-1-l-files-1',
      '--property=TasksMax=64',
      '--property=MemoryMax=536870912',
      '--property=MemorySwapMax=0',
      '--property=CPUQuota=50%',
      '--',
    ]);
    expect(systemdScopeArgs({ processes: 256, memoryBytes: 2 * 1024 ** 3 }, 'u')).not.toContain('--property=CPUQuota=undefined%');
  });

  it('is chosen first where the user systemd answers, wrapping the whole command line, prelude included', () => {
    const plan = planLimits({ limits: { processes: 64, memoryBytes: 1024 ** 3 }, kind: 'bubblewrap', launch: 'l', name: 'files-1', hostEnv: {} }, { systemd: () => true, roots: () => ({ why: 'not asked' }) });
    plans.push(plan);
    expect(plan.mechanism).toBe('systemd-scope');
    expect(plan.summary).toBe('systemd scope · 64 processes · 1 GiB');
    expect(plan.outer?.command).toBe('/usr/bin/systemd-run');
    expect(plan.outer?.args).toContain(`--unit=gatehouse-${process.pid}-l-files-1`);
    expect(plan.prelude).toEqual({});
    // A weaker mechanism asked for is used even where systemd answers.
    expect(planLimits({ kind: 'bubblewrap', hostEnv: { GATEHOUSE_LIMITS: 'rlimit' } }, { systemd: () => true }).mechanism).toBe('rlimit');
  });
});

describe.runIf(process.platform === 'linux' && process.getuid?.() === 0 && cgroupRoots().v1)('a cgroup of its own per run (root, cgroup v1)', () => {
  it('caps a run that forks 60 sleepers at 20 processes, counted in its cgroup, and reports it once', async () => {
    const plan = planLimits({ limits: { processes: 20, memoryBytes: 256 * 1024 ** 2 }, kind: 'off', launch: 'unit', name: 'forker-1', hostEnv: {} });
    plans.push(plan);
    expect(plan.mechanism).toBe('cgroup-v1');
    expect(plan.summary).toBe('cgroup v1 · 20 processes · 256 MiB');
    const pidsDir = path.dirname(plan.prelude.joinCgroups![0]!);
    expect(readFileSync(path.join(pidsDir, 'pids.max'), 'utf8').trim()).toBe('20');
    const c = withPrelude('/bin/sh', ['-c', 'i=0; while [ $i -lt 60 ]; do /bin/sleep 600 2>/dev/null & i=$((i+1)); done 2>/dev/null; echo spawned; exec /bin/sleep 600'], plan.prelude);
    const child = spawn(c.command, c.args, { stdio: ['ignore', 'pipe', 'ignore'] });
    const exited = new Promise((r) => child.once('exit', r));
    const reasons: string[] = [];
    const reported = new Promise<void>((resolve) =>
      plan.watch(child.pid!, (r) => {
        reasons.push(r);
        resolve();
      }),
    );
    await reported;
    expect(reasons).toEqual(['reached its process limit (20)']);
    const inCgroup = readFileSync(path.join(pidsDir, 'cgroup.procs'), 'utf8').trim().split('\n').length;
    expect(inCgroup).toBeLessThanOrEqual(20);
    expect(inCgroup).toBeGreaterThan(10);
    plan.dispose();
    await exited;
    await cgroupsRemoved();
    expect(existsSync(pidsDir)).toBe(false);
    // Its launch folder went with its last run.
    expect(existsSync(path.dirname(pidsDir))).toBe(false);
  });

  it('a dead host\'s launch folders are swept at the next start; a live one\'s are kept', () => {
    const roots = cgroupRoots();
    const dead = path.join(roots.v1!.pids, '999999999-old', 'files-1');
    const live = path.join(roots.v1!.pids, `${process.pid}-keep`, 'files-1');
    mkdirSync(dead, { recursive: true });
    mkdirSync(live, { recursive: true });
    sweepStale(roots, (pid) => pid !== 999999999);
    expect(existsSync(path.dirname(dead))).toBe(false);
    expect(existsSync(live)).toBe(true);
    spawnSync('rmdir', [live, path.dirname(live)]);
  });
});

describe.runIf(process.platform === 'linux' && existsSync(PRLIMIT))('rlimits (mechanism 3, forced with GATEHOUSE_LIMITS=rlimit)', () => {
  it('sets RLIMIT_NPROC inside the sandbox (per user namespace) and RLIMIT_AS before it', () => {
    const plan = planLimits({ limits: { processes: 64, memoryBytes: 3 * 1024 ** 3 }, kind: 'bubblewrap', hostEnv: { GATEHOUSE_LIMITS: 'rlimit' } });
    expect(plan.mechanism).toBe('rlimit');
    expect(plan.inner).toEqual({ command: PRLIMIT, args: ['--nproc=64', '--'] });
    // Never below 16 GiB: Node's fetch (WebAssembly) reserves ~10 GiB of address space.
    expect(plan.prelude).toEqual({ rlimits: { addressSpaceBytes: 16 * 1024 ** 3 } });
    expect(plan.summary).toBe('rlimit · 64 processes · 16 GiB address space');
    const big = planLimits({ limits: { processes: 64, memoryBytes: 20 * 1024 ** 3 }, kind: 'bubblewrap', hostEnv: { GATEHOUSE_LIMITS: 'rlimit' } });
    expect(big.prelude).toEqual({ rlimits: { addressSpaceBytes: 20 * 1024 ** 3 } });
  });

  it('sandbox: off gets no RLIMIT_NPROC (it would count every process of the user) and says so', () => {
    const plan = planLimits({ kind: 'off', hostEnv: { GATEHOUSE_LIMITS: 'rlimit' } });
    expect(plan.inner).toBeUndefined();
    expect(plan.prelude).toEqual({ rlimits: { addressSpaceBytes: 16 * 1024 ** 3 } });
    expect(plan.unenforced.join('\n')).toMatch(/processes: not capped/);
  });

  it('as an unprivileged user inside bwrap, the in-sandbox RLIMIT_NPROC refuses the 21st process', () => {
    // Root is exempt from RLIMIT_NPROC, so the real check runs as nobody (65534) through setpriv.
    if (process.getuid?.() !== 0 || !existsSync('/usr/bin/setpriv') || !existsSync('/usr/bin/bwrap')) return;
    const plan = planLimits({ limits: { processes: 20, memoryBytes: 2 * 1024 ** 3 }, kind: 'bubblewrap', hostEnv: { GATEHOUSE_LIMITS: 'rlimit' } });
    const script = 'n=0; while [ $n -lt 40 ]; do /bin/sleep 30 & n=$((n+1)); echo $n; done';
    const inner = [plan.inner!.command, ...plan.inner!.args, '/bin/sh', '-c', script];
    const bwrap = ['/usr/bin/bwrap', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--unshare-all', '--unshare-user', '--cap-drop', 'ALL', '--die-with-parent', '--', ...inner];
    const c = withPrelude('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...bwrap], plan.prelude);
    const r = spawnSync(c.command, c.args, { encoding: 'utf8', cwd: '/', timeout: 60_000 });
    const started = r.stdout.trim().split('\n').filter(Boolean).length;
    expect(r.stderr).toMatch(/fork/i);
    expect(started).toBeLessThan(20);
    expect(started).toBeGreaterThan(5);
  });
});
