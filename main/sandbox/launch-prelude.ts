// What runs before the sandbox itself, in the same process, so it holds for everything the
// sandbox later starts: joining the run's cgroups (limits), rlimits, and opening files as fixed
// descriptors for the program it execs (bwrap's --seccomp N) where the spawner cannot hand over
// extra fds (node-pty). One `/bin/sh -c` line that ends in `exec`: no process of its own stays.
//
// Values travel as positional parameters, never spliced into the script: a path with a quote or
// a `$` in it cannot change what the shell runs.

export interface PreludeSteps {
  /** `cgroup.procs` files the shell writes its own pid into, first (limits: docs/sandbox.md). */
  joinCgroups?: string[];
  /**
   * rlimits set with util-linux `prlimit` (dash's `ulimit` has no portable process limit),
   * inherited by bwrap and everything inside the sandbox.
   */
  rlimits?: { processes?: number; addressSpaceBytes?: number };
  /** Files opened read-only as these descriptors of the exec'd program. */
  openFds?: Array<{ fd: number; file: string }>;
}

export interface PreludedCommand {
  command: string;
  args: string[];
}

const SH = '/bin/sh';
const PRLIMIT = '/usr/bin/prlimit';

export function hasPrelude(steps: PreludeSteps): boolean {
  return Boolean(steps.joinCgroups?.length || steps.rlimits?.processes || steps.rlimits?.addressSpaceBytes || steps.openFds?.length);
}

/** `command args…` behind the prelude, or unchanged when there is nothing to do first. */
export function withPrelude(command: string, args: string[], steps: PreludeSteps): PreludedCommand {
  if (!hasPrelude(steps)) return { command, args };
  const params: string[] = [];
  const param = (value: string): string => {
    params.push(value);
    return `"\${${params.length}}"`;
  };
  const lines: string[] = [];
  // A cgroup that cannot be joined means the limits do not hold: fail the start, do not run uncapped.
  for (const procs of steps.joinCgroups ?? []) lines.push(`echo $$ > ${param(procs)} || exit 125`);
  const redirections = (steps.openFds ?? []).map((f) => `${f.fd}<${param(f.file)}`).join(' ');
  const limits: string[] = [];
  if (steps.rlimits?.processes) limits.push(`--nproc=${Math.floor(steps.rlimits.processes)}`);
  if (steps.rlimits?.addressSpaceBytes) limits.push(`--as=${Math.floor(steps.rlimits.addressSpaceBytes)}`);
  const program = [command, ...args].map((a) => param(a));
  const exec = limits.length ? `exec ${PRLIMIT} ${limits.join(' ')} -- ${program.join(' ')}` : `exec ${program.join(' ')}`;
  lines.push(`${exec}${redirections ? ` ${redirections}` : ''}`);
  // $0 names the shell in ps and error messages; the values follow as $1, $2, …
  return { command: SH, args: ['-c', lines.join('\n'), 'gatehouse-sandbox', ...params] };
}
