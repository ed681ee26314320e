// A cgroup Gatehouse creates itself for one run (docs/sandbox.md "Limits: which mechanism"):
// cgroup v2 where our own cgroup already delegates pids+memory to its children (a container's
// root, a delegated subtree), else the v1 `pids`, `memory` (and `cpu`) hierarchies where we may
// write them (root, as in CI). One folder per run, `gatehouse/<launch>/<server>-<run>` under the
// cgroup Gatehouse itself is in (so whatever caps Gatehouse also caps its servers), joined by
// the launch prelude's shell before bwrap starts (launch-prelude.ts `joinCgroups`).
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatBytes, type SandboxLimits } from './types';

// Declared in types.ts (the review card describes limits too); callers keep importing it from here.
export { formatBytes } from './types';

export interface CgroupRoots {
  /** The v2 folder runs go under (`…/gatehouse`), when v2 can take them. */
  v2?: string;
  /** The v1 folders runs go under, per controller, when those hierarchies are writable. */
  v1?: { pids: string; memory: string; cpu?: string };
  /** Why neither could be used, for the summary of a weaker mechanism. */
  why?: string;
}

interface Mount {
  dir: string;
  root: string;
  type: 'cgroup' | 'cgroup2';
  options: string[];
}

/** /proc/self/mountinfo: `id parent maj:min root mountpoint opts … - fstype source superopts`. */
export function cgroupMounts(mountinfo: string): Mount[] {
  const out: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const f = left.split(' ');
    const [fstype, , superOpts = ''] = right.split(' ');
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue;
    out.push({ dir: unescapeMount(f[4] ?? ''), root: unescapeMount(f[3] ?? '/'), type: fstype, options: superOpts.split(',') });
  }
  return out;
}

const unescapeMount = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** /proc/self/cgroup: `0::/path` (v2) and `N:ctrl,ctrl:/path` (v1). */
export function ownCgroups(procCgroup: string): { v2?: string; v1: Map<string, string> } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of procCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === '0' && m[2] === '') v2 = m[3];
    else for (const c of m[2]!.split(',')) if (c) v1.set(c, m[3]!);
  }
  return { v2, v1 };
}

/** Where a cgroup path of ours is on a mount (a cgroup namespace mounts a subtree as its root). */
function onMount(mount: Mount, own: string): string {
  const rel = mount.root !== '/' && own.startsWith(mount.root) ? own.slice(mount.root.length) : own;
  return path.join(mount.dir, rel);
}

const read = (file: string): string => readFileSync(file, 'utf8');

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folders runs may be put under on this machine (read once per process: it does not change). */
export function findCgroupRoots(files: { mountinfo: string; cgroup: string } = { mountinfo: read('/proc/self/mountinfo'), cgroup: read('/proc/self/cgroup') }): CgroupRoots {
  const mounts = cgroupMounts(files.mountinfo);
  const own = ownCgroups(files.cgroup);
  const problems: string[] = [];
  const unified = mounts.find((m) => m.type === 'cgroup2');
  if (unified && own.v2 !== undefined) {
    const dir = onMount(unified, own.v2);
    const enabled = safeRead(path.join(dir, 'cgroup.subtree_control')).split(/\s+/);
    const available = safeRead(path.join(dir, 'cgroup.controllers')).split(/\s+/);
    // Our own cgroup can only hand controllers to children it has enabled them for, and (cgroup
    // v2's "no internal processes" rule) it can enable them only while it holds no process
    // itself, unless it is the root: so v2 is ours when the subtree is already delegated, or root.
    const isRoot = own.v2 === '/';
    if (['pids', 'memory'].every((c) => enabled.includes(c) || (isRoot && available.includes(c))) && writable(dir)) return { v2: path.join(dir, 'gatehouse') };
    problems.push(`cgroup v2 at ${dir} does not delegate pids and memory to us (cgroup.subtree_control: ${enabled.filter(Boolean).join(' ') || 'empty'})`);
  }
  const v1For = (ctrl: string): string | undefined => {
    const mount = mounts.find((m) => m.type === 'cgroup' && m.options.includes(ctrl));
    const ownPath = own.v1.get(ctrl);
    if (!mount || ownPath === undefined) return undefined;
    const dir = onMount(mount, ownPath);
    return writable(dir) ? path.join(dir, 'gatehouse') : undefined;
  };
  const pids = v1For('pids');
  const memory = v1For('memory');
  if (pids && memory) return { v1: { pids, memory, ...(v1For('cpu') ? { cpu: v1For('cpu') } : {}) } };
  problems.push(mounts.some((m) => m.type === 'cgroup') ? 'the cgroup v1 pids and memory hierarchies are not writable' : 'no cgroup v1 pids/memory hierarchy');
  return { why: problems.join('; ') };
}

function safeRead(file: string): string {
  try {
    return read(file).trim();
  } catch {
    return '';
  }
}

let cachedRoots: CgroupRoots | undefined;
export function cgroupRoots(): CgroupRoots {
  if (cachedRoots) return cachedRoots;
  cachedRoots = process.platform === 'linux' ? findCgroupRoots() : { why: 'cgroups are Linux only' };
  sweepStale(cachedRoots);
  return cachedRoots;
}

/**
 * A host that was SIGKILLed could not remove its runs' folders (its servers died with it:
 * bwrap's --die-with-parent). Launch folders are `<host pid>-<launch>`: those of a host that
 * no longer runs are empty cgroups, removed at the next start.
 */
export function sweepStale(roots: CgroupRoots, alive: (pid: number) => boolean = pidAlive): void {
  const bases = [roots.v2, roots.v1?.pids, roots.v1?.memory, roots.v1?.cpu].filter((b): b is string => Boolean(b));
  for (const base of bases) {
    let launches: string[];
    try {
      launches = readdirSync(base, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch {
      continue;
    }
    for (const launch of launches) {
      const pid = Number(/^(\d+)-/.exec(launch)?.[1]);
      if (!pid || pid === process.pid || alive(pid)) continue;
      const dir = path.join(base, launch);
      try {
        for (const run of readdirSync(dir, { withFileTypes: true })) if (run.isDirectory()) rmdirSync(path.join(dir, run.name));
        rmdirSync(dir);
      } catch {}
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a run's cgroup reports when it hit a cap, or undefined while it has not. */
export type CapCheck = () => string | undefined;

export interface RunCgroup {
  mechanism: 'cgroup-v2' | 'cgroup-v1';
  /** The cgroup.procs files the prelude's shell joins. */
  procs: string[];
  /** The run's folders (one for v2; one per controller for v1), deepest first for removal. */
  dirs: string[];
  /** What could not be applied (a controller missing), one line each. */
  unenforced: string[];
  exceeded: CapCheck;
  /** Every pid in the run's cgroup(s). */
  pids(): number[];
}

/** Counter lines (`max 3`, `oom_kill 1`) of an events file; 0 for a missing file or key. */
export function eventCount(text: string, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export function processCapReason(limits: SandboxLimits): string {
  return `reached its process limit (${limits.processes})`;
}

export function memoryCapReason(limits: SandboxLimits): string {
  return `reached its memory limit (${formatBytes(limits.memoryBytes)}): the kernel's OOM killer ended a process`;
}

const CPU_PERIOD_US = 100_000;

/** Creates (and caps) the run's cgroup; throws with the file that refused when it cannot. */
export function createRunCgroup(roots: CgroupRoots, launch: string, name: string, limits: SandboxLimits): RunCgroup {
  const rel = path.join(safeName(launch), safeName(name));
  if (roots.v2) return createV2(roots.v2, rel, limits);
  if (roots.v1) return createV1(roots.v1, rel, limits);
  throw new Error(`no cgroup Gatehouse may create: ${roots.why ?? 'none found'}`);
}

/** Folder names from ids: a launch id or server id never adds a path segment or a dot-dot. */
export function safeName(s: string): string {
  const out = s.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_');
  return out.slice(0, 100) || '_';
}

function put(file: string, value: string): void {
  try {
    writeFileSync(file, value);
  } catch (err) {
    throw new Error(`could not write ${value.trim()} to ${file}: ${(err as Error).message}`);
  }
}

function createV2(base: string, rel: string, limits: SandboxLimits): RunCgroup {
  const dir = path.join(base, rel);
  const unenforced: string[] = [];
  const wanted = ['pids', 'memory', ...(limits.cpuPercent !== undefined ? ['cpu'] : [])];
  // Each level must enable the controllers for the next (cgroup v2: cgroup.subtree_control).
  const levels = [path.dirname(base), base, path.dirname(dir)];
  mkdirSync(dir, { recursive: true });
  for (const level of levels) {
    const available = safeRead(path.join(level, 'cgroup.controllers')).split(/\s+/);
    const missing = wanted.filter((c) => !safeRead(path.join(level, 'cgroup.subtree_control')).split(/\s+/).includes(c) && available.includes(c));
    if (missing.length) put(path.join(level, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
  }
  put(path.join(dir, 'pids.max'), `${limits.processes}\n`);
  put(path.join(dir, 'memory.max'), `${limits.memoryBytes}\n`);
  // Swap would let a run "use" more than memory.max; the cap is on what it holds at all.
  if (existsSync(path.join(dir, 'memory.swap.max'))) put(path.join(dir, 'memory.swap.max'), '0\n');
  if (limits.cpuPercent !== undefined) {
    if (existsSync(path.join(dir, 'cpu.max'))) put(path.join(dir, 'cpu.max'), `${Math.round((limits.cpuPercent / 100) * CPU_PERIOD_US)} ${CPU_PERIOD_US}\n`);
    else unenforced.push(`cpu ${limits.cpuPercent}%: the cgroup v2 cpu controller is not available here`);
  }
  return {
    mechanism: 'cgroup-v2',
    procs: [path.join(dir, 'cgroup.procs')],
    dirs: [dir],
    unenforced,
    exceeded: () => {
      if (eventCount(safeRead(path.join(dir, 'pids.events')), 'max') > 0) return processCapReason(limits);
      if (eventCount(safeRead(path.join(dir, 'memory.events')), 'oom_kill') > 0) return memoryCapReason(limits);
      return undefined;
    },
    pids: () => pidsIn([dir]),
  };
}

function createV1(roots: NonNullable<CgroupRoots['v1']>, rel: string, limits: SandboxLimits): RunCgroup {
  const pidsDir = path.join(roots.pids, rel);
  const memDir = path.join(roots.memory, rel);
  const dirs = [pidsDir, memDir];
  const unenforced: string[] = [];
  mkdirSync(pidsDir, { recursive: true });
  mkdirSync(memDir, { recursive: true });
  put(path.join(pidsDir, 'pids.max'), `${limits.processes}\n`);
  put(path.join(memDir, 'memory.limit_in_bytes'), `${limits.memoryBytes}\n`);
  // memsw (memory + swap) exists only with swap accounting; it must be ≥ the memory limit.
  if (existsSync(path.join(memDir, 'memory.memsw.limit_in_bytes'))) {
    try {
      writeFileSync(path.join(memDir, 'memory.memsw.limit_in_bytes'), `${limits.memoryBytes}\n`);
    } catch {}
  }
  if (limits.cpuPercent !== undefined) {
    if (roots.cpu) {
      const cpuDir = path.join(roots.cpu, rel);
      mkdirSync(cpuDir, { recursive: true });
      dirs.push(cpuDir);
      put(path.join(cpuDir, 'cpu.cfs_period_us'), `${CPU_PERIOD_US}\n`);
      put(path.join(cpuDir, 'cpu.cfs_quota_us'), `${Math.round((limits.cpuPercent / 100) * CPU_PERIOD_US)}\n`);
    } else unenforced.push(`cpu ${limits.cpuPercent}%: the cgroup v1 cpu hierarchy is not writable here`);
  }
  return {
    mechanism: 'cgroup-v1',
    procs: dirs.map((d) => path.join(d, 'cgroup.procs')),
    dirs,
    unenforced,
    exceeded: () => {
      // pids.events `max`: forks refused at pids.max. memory.oom_control `oom_kill`: a process
      // killed at the cap. Not memory.failcnt: it also counts the page cache being reclaimed at
      // the cap, which is a server working normally (any server that writes files hits it).
      if (eventCount(safeRead(path.join(pidsDir, 'pids.events')), 'max') > 0) return processCapReason(limits);
      if (eventCount(safeRead(path.join(memDir, 'memory.oom_control')), 'oom_kill') > 0) return memoryCapReason(limits);
      return undefined;
    },
    pids: () => pidsIn(dirs),
  };
}

function pidsIn(dirs: string[]): number[] {
  const all = new Set<number>();
  for (const d of dirs) for (const p of safeRead(path.join(d, 'cgroup.procs')).split('\n')) if (p) all.add(Number(p));
  return [...all];
}

/** SIGKILLs what is left in the run's cgroup, then removes its folders; false while some remain. */
export function removeRunCgroup(cg: Pick<RunCgroup, 'dirs' | 'pids'>): boolean {
  for (const pid of cg.pids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  let done = true;
  for (const dir of cg.dirs) {
    if (!existsSync(dir)) continue;
    try {
      rmdirSync(dir);
    } catch {
      // EBUSY: a task has not finished exiting yet (a SIGKILLed tree of 2,000 takes a while).
      done = false;
      continue;
    }
    // The launch folder goes with its last run; another run still in it keeps it (ENOTEMPTY).
    try {
      rmdirSync(path.dirname(dir));
    } catch {}
  }
  return done;
}
