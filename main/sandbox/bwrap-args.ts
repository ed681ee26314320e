// A mount plan and a network plan → the bubblewrap command line (Linux). Pure: no file system
// access here, so the exact argv is unit-tested; sandbox-launch.ts runs it.
//
// Namespaces: --unshare-all gives new user, PID, IPC, UTS, network and cgroup namespaces; a PID
// namespace means a fresh /proc with none of the host's processes, and when its first process
// (bwrap's own init) exits the kernel kills everything left in it, `setsid` daemons included.
// --die-with-parent: if Gatehouse dies (even SIGKILL), bwrap and the whole tree get SIGKILL.
// --cap-drop ALL: run as root, bwrap would otherwise leave the sandboxed process full
// capabilities inside its user namespace, enough to unmount the tmpfs that hides ~/.ssh (tried:
// `umount` succeeded before this flag). --disable-userns refuses nested user namespaces, the other
// way back to capabilities. --new-session: no sandboxed process shares a session (and so a
// controlling terminal) with anything outside, the other half of the TIOCSTI defence besides
// seccomp.ts (CVE-2017-5226); signal-tree.ts finds the sandbox's processes by ppid instead.
import type { MountRule } from './mount-plan';

/** Where the host-side sockets appear inside (under the private /tmp: the root is read-only). */
export const SANDBOX_SOCKET_DIR = '/tmp/.gatehouse-sandbox';

export interface BwrapInput {
  rules: MountRule[];
  cwd: string;
  /** Host folder holding the proxy / port-bridge sockets, bound read-only at SANDBOX_SOCKET_DIR. */
  socketDir?: string;
  disableUserns: boolean;
  /** The command to run inside (already wrapped in the forwarder when there is one). */
  command: string;
  args: string[];
  /** The child's fd holding a seccomp filter (network none; see seccomp.ts). */
  seccompFd?: number;
}

export function bwrapArgs(input: BwrapInput): string[] {
  const a: string[] = ['--unshare-all', '--unshare-user'];
  if (input.disableUserns) a.push('--disable-userns');
  a.push('--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'gatehouse-sandbox');
  a.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/dev/shm');
  // A hidden folder stays writable until every mount is in place (a grant inside it needs its
  // mount point created there), then becomes read-only: the remounts go last.
  const remounts: string[] = [];
  for (const rule of input.rules) {
    switch (rule.kind) {
      case 'write':
        a.push('--bind', rule.path, rule.path);
        break;
      case 'read':
        a.push('--ro-bind', rule.path, rule.path);
        break;
      case 'hide':
        if (rule.type === 'dir') {
          a.push('--perms', '0700', '--tmpfs', rule.path);
          remounts.push(rule.path);
        }
        else a.push('--ro-bind', '/dev/null', rule.path);
        break;
    }
  }
  if (input.socketDir) a.push('--ro-bind', input.socketDir, SANDBOX_SOCKET_DIR);
  for (const p of remounts) a.push('--remount-ro', p);
  if (input.seccompFd !== undefined) a.push('--seccomp', String(input.seccompFd));
  a.push('--chdir', input.cwd, '--', input.command, ...input.args);
  return a;
}
