// The best limits mechanism on a desktop: a transient scope of the user's own systemd
// (`systemd-run --user --scope`), which puts the run in a cgroup v2 the user's manager delegates
// and caps it there (TasksMax → pids.max, MemoryMax → memory.max, CPUQuota → cpu.max). No root
// needed, and it works where Gatehouse's own cgroup is not writable (every normal desktop).
// systemd-run --scope execs the command in its own process once the scope exists, so the pid
// the supervisor holds, its process group and the fds it passes (bwrap's --seccomp 3) are kept.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eventCount, memoryCapReason, processCapReason, safeName, type CapCheck } from './limits-cgroup';
import type { SandboxLimits } from './types';

export const SYSTEMD_RUN = '/usr/bin/systemd-run';
const SYSTEMCTL = '/usr/bin/systemctl';

let cached: boolean | undefined;

/**
 * systemd-run is there and the user's manager answers (`systemctl --user show-environment`
 * needs a running `systemd --user` and its bus; in a container or a CI job there is none).
 * Asked once: the answer does not change while Gatehouse runs, and the probe costs a fork.
 */
export function systemdScopeAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  if (cached !== undefined) return cached;
  cached = false;
  if (process.platform !== 'linux' || !existsSync(SYSTEMD_RUN) || !existsSync(SYSTEMCTL)) return cached;
  const probe = spawnSync(SYSTEMCTL, ['--user', 'show-environment'], { env, stdio: 'ignore', timeout: 5000 });
  cached = probe.status === 0;
  return cached;
}

/** The unit name of one run: `gatehouse-<launch>-<server>-<run>.scope` (systemd's unit alphabet). */
export function scopeUnit(launch: string, name: string): string {
  return `gatehouse-${safeName(launch)}-${safeName(name)}`.replace(/[^A-Za-z0-9:_.-]/g, '_');
}

/** `systemd-run … --` in front of the (preludeed, sandboxed) command. */
export function systemdScopeArgs(limits: SandboxLimits, unit: string): string[] {
  return [
    '--user',
    '--scope',
    '--quiet',
    // The scope goes away with its last process even when one failed (no leftover failed unit).
    '--collect',
    `--unit=${unit}`,
    `--property=TasksMax=${limits.processes}`,
    `--property=MemoryMax=${limits.memoryBytes}`,
    '--property=MemorySwapMax=0',
    ...(limits.cpuPercent !== undefined ? [`--property=CPUQuota=${limits.cpuPercent}%`] : []),
    '--',
  ];
}

/** The scope's cgroup folder, from the run's pid (`0::/user.slice/…/<unit>.scope`). */
export function scopeDirOf(pid: number): string | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').find((l) => l.startsWith('0::'));
    return line ? path.join('/sys/fs/cgroup', line.slice(3)) : undefined;
  } catch {
    return undefined;
  }
}

/** The scope's cap check (cgroup v2 events files), once its folder is known. */
export function scopeCapCheck(dir: string, limits: SandboxLimits): CapCheck {
  const get = (f: string): string => {
    try {
      return readFileSync(path.join(dir, f), 'utf8');
    } catch {
      return '';
    }
  };
  return () => {
    if (eventCount(get('pids.events'), 'max') > 0) return processCapReason(limits);
    if (eventCount(get('memory.events'), 'oom_kill') > 0) return memoryCapReason(limits);
    return undefined;
  };
}
