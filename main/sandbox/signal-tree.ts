// Signals for a sandboxed run. The supervisor spawns bwrap as a process-group leader (outside the
// sandbox). bwrap clones its init (pid 1 of the sandbox's PID namespace, also named bwrap), and
// with --new-session (bwrap-args.ts) that init and everything it starts live in a session and
// process group of their own, so the supervisor's group holds bwrap alone. Measured as root on
// Linux 6.18, bubblewrap 0.8.0: bwrap (pgid P) → bwrap init (new sid) → the server → its children.
//
// So the sandbox's processes are found by their ppid links in the host's /proc: every descendant
// of the outer bwrap except bwrap itself and its init. The polite signals (SIGTERM, SIGINT, …) go
// to those: SIGTERM to the outer bwrap would end it at once, and --die-with-parent would then
// SIGKILL the server before its own handler ran (measured: a server's SIGTERM handler never ran);
// the init of a PID namespace ignores signals it has no handler for anyway. SIGKILL goes to the
// group and to every descendant: the init's death ends the whole namespace (setsid daemons
// included), and --die-with-parent takes it even when only bwrap was reached.
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';

const osSignals: Record<string, number> = constants.signals;

interface ProcEntry {
  pid: number;
  ppid: number;
  comm: string;
}

function procTable(): ProcEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses; fields follow the last ')'.
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}

/** Host pids of every descendant of `root` (not `root` itself), parents before children. */
export function descendants(root: number, table: ProcEntry[] = procTable()): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const e of table) {
    const list = children.get(e.ppid);
    if (list) list.push(e);
    else children.set(e.ppid, [e]);
  }
  const out: ProcEntry[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/**
 * Host pids of the sandboxed processes under the outer bwrap `bwrapPid`: its descendants, less
 * bwrap's own init (a direct child still named bwrap). A process inside that renames itself
 * "bwrap" only spares itself the polite signal; SIGKILL still reaches it.
 */
export function sandboxMembers(bwrapPid: number): number[] {
  return descendants(bwrapPid)
    .filter((e) => !(e.ppid === bwrapPid && e.comm === 'bwrap'))
    .map((e) => e.pid);
}

/** Sends `signal` to the sandboxed processes of the run whose outer bwrap (and group leader) is `pgid`. */
export function signalSandboxedGroup(pgid: number, signal: NodeJS.Signals): void {
  if (signal === 'SIGKILL') {
    // Children before parents, the group last: a pid is signalled while its parent still holds it.
    for (const e of descendants(pgid).reverse()) {
      try {
        process.kill(e.pid, 'SIGKILL');
      } catch {}
    }
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
    return;
  }
  for (const pid of sandboxMembers(pgid)) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}

/**
 * The server's own exit, from what its wrapper reported. bwrap (outer and init) and `docker run`
 * are not killed with the server: they exit with 128 + n when the process they watch dies of
 * signal n (bubblewrap's propagate_exit_status). So a SIGKILLed server, the OOM killer's victim
 * included, reads as a kill by that signal, as a shell reports it, and not as "code 137".
 */
export function serverExit(kind: string, code: number | null, signal: NodeJS.Signals | null): { code: number | null; signal: NodeJS.Signals | null } {
  if (signal || code === null || (kind !== 'bubblewrap' && kind !== 'container')) return { code, signal };
  const n = code - 128;
  const name = n > 0 ? Object.entries(osSignals).find(([, v]) => v === n)?.[0] : undefined;
  return name ? { code: null, signal: name as NodeJS.Signals } : { code, signal };
}
