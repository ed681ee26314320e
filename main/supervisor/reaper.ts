// No server process may outlive the host. Every child runs in its own process
// group (spawn detached), so signalling -pgid reaches grandchildren too (npx → node). The
// orderly path is Supervisor.stopAll(); this is the backstop for the paths that skip it:
// process.exit(), an uncaught error, or a signal nobody handled.

const groups = new Set<number>();
let installed = false;

function killAllNow(): void {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
  groups.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  // 'exit' handlers must be synchronous: process.kill is.
  process.on('exit', killAllNow);
}

export function trackProcessGroup(pgid: number): void {
  install();
  groups.add(pgid);
}

export function untrackProcessGroup(pgid: number): void {
  groups.delete(pgid);
}

/** For tests and for the host's fatal-error path. */
export function killAllTrackedGroups(): void {
  killAllNow();
}

/** True while any process of the group exists (signal 0 probes without signalling). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
