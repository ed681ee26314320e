// How one run's limits are enforced (docs/sandbox.md "Limits: which mechanism"), best first:
// 1. `systemd-scope`: the user's systemd delegates a cgroup v2 scope (limits-systemd.ts);
// 2. `cgroup-v2` / `cgroup-v1`: a cgroup Gatehouse creates itself (limits-cgroup.ts);
// 3. `rlimit`: RLIMIT_NPROC set inside bubblewrap's user namespace, RLIMIT_AS before it;
// 4. `none`, reported.
// The plan says what to put in front of the command, what the launch prelude must do first,
// how to notice that the run hit a cap (watch), and how to clean up when the run ends.
import { existsSync } from 'node:fs';
import { cgroupRoots, createRunCgroup, formatBytes, removeRunCgroup, type CapCheck, type CgroupRoots, type RunCgroup } from './limits-cgroup';
import { scopeCapCheck, scopeDirOf, scopeUnit, SYSTEMD_RUN, systemdScopeArgs, systemdScopeAvailable } from './limits-systemd';
import type { PreludeSteps } from './launch-prelude';
import { DEFAULT_LIMITS, limitParts, type LimitsMechanism, type SandboxKind, type SandboxLimits } from './types';

export const PRLIMIT = '/usr/bin/prlimit';
/** How often a run's cgroup events are read: two small files, ~75 µs per check measured here (a loaded 2-core machine). */
const WATCH_MS = 250;
/**
 * How long a run's folder removal keeps retrying while its killed tasks finish exiting: 10 s at
 * most, since host shutdown waits for it (SIGKILLing and removing a cgroup of 2,001 sleepers took
 * 256 ms here).
 */
const REMOVE_RETRY_MS = 100;
const REMOVE_TRIES = 100;

export interface LimitsRequest {
  limits?: SandboxLimits;
  kind: SandboxKind;
  /** `<launch>` and `<server>-<run>` of the run's cgroup folder (defaults name the host process). */
  launch?: string;
  name?: string;
  hostEnv: NodeJS.ProcessEnv;
}

export interface LimitsPlan {
  mechanism: LimitsMechanism;
  summary: string;
  limits: SandboxLimits;
  /** Steps for the launch prelude (before bwrap). */
  prelude: Pick<PreludeSteps, 'joinCgroups' | 'rlimits'>;
  /** Put in front of the whole command line (systemd-run). */
  outer?: { command: string; args: string[] };
  /** Put in front of the program inside the sandbox (prlimit in bubblewrap's user namespace). */
  inner?: { command: string; args: string[] };
  unenforced: string[];
  watch(pid: number, onExceeded: (reason: string) => void): void;
  dispose(): void;
}

const FORCED: readonly LimitsMechanism[] = ['systemd-scope', 'cgroup-v2', 'cgroup-v1', 'rlimit', 'none'];

/** The numbers in a summary line: "256 processes · 2 GiB · cpu 50%". */
export function describeLimits(l: SandboxLimits): string {
  return limitParts(l).join(' · ');
}

let runCounter = 0;

/** What this machine offers; tests stand in for a machine that is not this one (a user systemd). */
export interface LimitsProbes {
  roots?: () => CgroupRoots;
  systemd?: (env: NodeJS.ProcessEnv) => boolean;
}

export function planLimits(req: LimitsRequest, probes: LimitsProbes = {}): LimitsPlan {
  const roots = probes.roots ?? cgroupRoots;
  const systemd = probes.systemd ?? systemdScopeAvailable;
  const limits = req.limits ?? DEFAULT_LIMITS;
  // `<host pid>-<launch>`: a later host can tell a dead host's folders (limits-cgroup.ts sweepStale).
  const launch = `${process.pid}-${req.launch ?? 'host'}`;
  const name = req.name ?? `run-${++runCounter}`;
  // GATEHOUSE_LIMITS names a weaker mechanism to use (tests, or a machine whose cgroups misbehave);
  // a stronger one than this machine offers is never pretended.
  const forced = req.hostEnv.GATEHOUSE_LIMITS as LimitsMechanism | undefined;
  const allowed = (m: LimitsMechanism): boolean => !forced || !FORCED.includes(forced) || FORCED.indexOf(m) >= FORCED.indexOf(forced);
  const notes: string[] = [];

  if (req.kind === 'seatbelt') return plain('none', limits, 'none: no limits on macOS yet', []);

  if (allowed('systemd-scope') && systemd(req.hostEnv)) {
    const unit = scopeUnit(launch, name);
    let pid: number | undefined;
    let check: CapCheck | undefined;
    // systemd-run execs the command once the scope exists: its cgroup is found from the pid then.
    const scopeCheck: CapCheck = () => {
      if (!check && pid !== undefined) {
        const dir = scopeDirOf(pid);
        if (dir?.endsWith(`/${unit}.scope`)) check = scopeCapCheck(dir, limits);
      }
      return check?.();
    };
    const plan = plain('systemd-scope', limits, `systemd scope · ${describeLimits(limits)}`, []);
    // --collect: the scope goes with its last process; nothing to remove.
    return { ...watched(plan, scopeCheck, () => {}, (p) => (pid = p)), outer: { command: SYSTEMD_RUN, args: systemdScopeArgs(limits, unit) } };
  }

  const r = roots();
  if ((r.v2 && allowed('cgroup-v2')) || (r.v1 && allowed('cgroup-v1'))) {
    try {
      return cgroupPlan(createRunCgroup(allowed('cgroup-v2') ? r : { v1: r.v1 }, launch, name, limits), limits);
    } catch (err) {
      notes.push((err as Error).message);
    }
  } else if (r.why) notes.push(r.why);

  if (allowed('rlimit') && process.platform === 'linux' && existsSync(PRLIMIT)) {
    const because = notes.length ? ` (no cgroup: ${notes.join('; ')})` : '';
    if (req.kind !== 'bubblewrap') {
      // Outside a user namespace (sandbox: off, landlock) RLIMIT_NPROC counts every process of
      // the user (their whole desktop), not this run's: 256 would refuse a fork to someone with 300.
      return plain('rlimit', limits, `rlimit · ${formatBytes(addressSpace(limits))} address space${because}`, ['processes: not capped (no user namespace of its own to count them in)', ...rlimitGaps(limits)], {
        rlimits: { addressSpaceBytes: addressSpace(limits) },
      });
    }
    return {
      // RLIMIT_NPROC is counted per (user namespace, uid) and checked against the limit set in
      // that namespace, so it is set inside bubblewrap's: set before, it would become the cap of
      // the user's namespace as seen from the sandbox (its whole desktop). RLIMIT_AS is per
      // process and goes in the prelude. As root the kernel does not enforce RLIMIT_NPROC.
      ...plain('rlimit', limits, `rlimit · ${limits.processes} processes · ${formatBytes(addressSpace(limits))} address space${because}`, rlimitGaps(limits), {
        rlimits: { addressSpaceBytes: addressSpace(limits) },
      }),
      inner: { command: PRLIMIT, args: [`--nproc=${limits.processes}`, '--'] },
    };
  }
  return plain('none', limits, `none: not enforced${notes.length ? ` (${notes.join('; ')})` : ''}`, ['processes, memory and cpu are not capped on this machine']);
}

/**
 * RLIMIT_AS never below this: Node's fetch parses HTTP with WebAssembly, and a WebAssembly memory
 * reserves about 10 GiB of address space (measured: fails at 2 GiB, works at 16 GiB), so the
 * 2 GiB default as an address-space cap broke every node server that calls fetch. Under rlimits
 * the memory cap is therefore only a ceiling on runaway growth; a cgroup caps the real thing.
 */
const RLIMIT_AS_FLOOR = 16 * 1024 ** 3;

function addressSpace(limits: SandboxLimits): number {
  return Math.max(limits.memoryBytes, RLIMIT_AS_FLOOR);
}

function rlimitGaps(limits: SandboxLimits): string[] {
  const gaps = [
    `memory: only address space is capped, at ${formatBytes(addressSpace(limits))} (a WebAssembly memory, as in Node's fetch, reserves 10 GiB), not memory itself`,
    'at a cap the server gets errors (EAGAIN, ENOMEM) and is not stopped',
  ];
  if (limits.cpuPercent !== undefined) gaps.unshift(`cpu ${limits.cpuPercent}%: needs a cgroup`);
  return gaps;
}

function plain(mechanism: LimitsMechanism, limits: SandboxLimits, summary: string, unenforced: string[], prelude: LimitsPlan['prelude'] = {}): LimitsPlan {
  return { mechanism, summary, limits, prelude, unenforced, watch: () => {}, dispose: () => {} };
}

function cgroupPlan(cg: RunCgroup, limits: SandboxLimits): LimitsPlan {
  const plan = plain(cg.mechanism, limits, `${cg.mechanism === 'cgroup-v2' ? 'cgroup v2' : 'cgroup v1'} · ${describeLimits(limits)}`, cg.unenforced, { joinCgroups: cg.procs });
  return watched(plan, cg.exceeded, () => scheduleRemoval(cg));
}

/** A plan whose run is watched for a cap while it runs, and checked once more as it ends. */
function watched(plan: LimitsPlan, check: CapCheck, cleanup: () => void, onPid?: (pid: number) => void): LimitsPlan {
  let stopWatch: (() => void) | undefined;
  let report: ((reason: string) => void) | undefined;
  let disposed = false;
  return {
    ...plan,
    watch: (pid, onExceeded) => {
      onPid?.(pid);
      report = once(onExceeded);
      stopWatch = poll(check, report);
    },
    dispose: () => {
      if (disposed) return;
      disposed = true;
      stopWatch?.();
      // A run the OOM killer ended exits before the next poll: read the counters one last time,
      // synchronously, so the supervisor learns why before it decides about a restart.
      const last = check();
      if (last) report?.(last);
      cleanup();
    },
  };
}

function once(fn: (reason: string) => void): (reason: string) => void {
  let fired = false;
  return (reason) => {
    if (fired) return;
    fired = true;
    fn(reason);
  };
}

function poll(check: () => string | undefined, onExceeded: (reason: string) => void): () => void {
  const report = once(onExceeded);
  const timer = setInterval(() => {
    const reason = check();
    if (!reason) return;
    clearInterval(timer);
    report(reason);
  }, WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}

// ---- removal: after the run's processes are gone ------------------------------------------

const pending = new Set<RunCgroup>();
const waiters: Array<() => void> = [];

function scheduleRemoval(cg: RunCgroup): void {
  if (removeRunCgroup(cg)) return;
  pending.add(cg);
  let tries = 0;
  const retry = (): void => {
    if (!pending.has(cg)) return;
    if (removeRunCgroup(cg) || ++tries >= REMOVE_TRIES) {
      pending.delete(cg);
      if (pending.size === 0) for (const w of waiters.splice(0)) w();
      return;
    }
    setTimeout(retry, REMOVE_RETRY_MS).unref();
  };
  setTimeout(retry, REMOVE_RETRY_MS).unref();
}

/** Resolves once every ended run's cgroup folder is removed (or given up on); host shutdown waits for it. */
export function cgroupsRemoved(): Promise<void> {
  if (pending.size === 0) return Promise.resolve();
  return new Promise((resolve) => waiters.push(resolve));
}

process.once('exit', () => {
  // Last chance (a process.exit() that did not wait): one synchronous attempt each.
  for (const cg of pending) removeRunCgroup(cg);
});
