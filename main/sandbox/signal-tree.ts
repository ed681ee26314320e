// Signals for a sandboxed run. The supervisor's process group holds bwrap (the leader, outside the
// sandbox) and the server's processes inside. SIGTERM to the whole group would kill bwrap at once,
// and --die-with-parent then SIGKILLs the server before it could shut down cleanly (measured: a
// server's SIGTERM handler never ran). So the polite signals go to every member of the group but
// bwrap itself, found in the host's /proc; SIGKILL still goes to the whole group, and bwrap's death
// takes the namespace (setsid daemons included) with it.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids (host view) of the processes in process group `pgid`, except `except`. */
export function groupMembers(pgid: number, except: number): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === except) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses; fields follow the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) out.push(pid);
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}

/** Sends `signal` to the sandboxed processes of the group (bwrap, the leader, excluded). */
export function signalSandboxedGroup(pgid: number, signal: NodeJS.Signals): void {
  if (signal === 'SIGKILL') {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
    return;
  }
  for (const pid of groupMembers(pgid, pgid)) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}
