// The seccomp filter (main/sandbox/seccomp.ts) as the kernel runs it: real processes under real
// bwrap, through the same prepareSandbox every spawn path uses. Under `network: none` only AF_UNIX
// (and read-only NETLINK_ROUTE, for getifaddrs) may be opened; AF_VSOCK, which the empty network
// namespace alone does not stop (a VM's host is reachable through it), AF_PACKET, AF_INET/6 and
// the other netlink protocols are refused. The errno tells the filter from the kernel: EACCES is
// the filter's answer, where the kernel itself would have said EPERM, EAFNOSUPPORT or succeeded.
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { prepareSandbox } from '../../main/sandbox/sandbox-launch';
import { STRICT_DEFAULT, type SandboxSpec } from '../../main/sandbox/types';
import { nodePtyBackend } from '../../main/agents/pty-backend';
import { waitFor } from '../support/supervisor';

const PYTHON = '/usr/bin/python3';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

// Each attempt: `ok` or the errno name. ctypes for io_uring_setup (425 on x86-64 and arm64).
const PROBE = `
import ctypes, errno, json, os, socket
def attempt(f):
    try:
        s = f()
        for x in (s if isinstance(s, tuple) else (s,)):
            x.close()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
rc = libc.syscall(425, 1, params)
out = {
    "inet": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
    "inet6": attempt(lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)),
    "packet": attempt(lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW)),
    "vsock": attempt(lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)),
    "netlink_route": attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)),
    "netlink_sock_diag": attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4)),
    "netlink_uevent": attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)),
    "unix": attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
    "socketpair_unix": attempt(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)),
    "io_uring_setup": "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), "?"),
    "seccomp": [l.split()[1] for l in open("/proc/self/status") if l.startswith("Seccomp:")][0],
}
print(json.dumps(out))
`;

function sandbox(spec: SandboxSpec, command: string, args: string[], canPassFds = true) {
  const root = mkdtempSync('/var/tmp/gatehouse-seccomp-test-');
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  const home = path.join(root, 'home');
  for (const d of [workspace, dataDir, home]) mkdirSync(d, { recursive: true });
  const boxed = prepareSandbox({ spec, command, args, cwd: workspace, env: { PATH: '/usr/bin:/bin' }, workspace, dataDir, hostEnv: { ...process.env, HOME: home }, nodePath: process.execPath, internalRead: [process.execPath], canPassFds });
  cleanups.push(() => boxed.dispose());
  return boxed;
}

function runProbe(spec: SandboxSpec): Record<string, string> {
  const boxed = sandbox(spec, PYTHON, ['-c', PROBE]);
  const res = spawnSync(boxed.command, boxed.args, { env: boxed.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', ...boxed.extraFds] });
  if (res.status !== 0) throw new Error(`expected the probe to print its findings; it exited ${res.status}: ${res.stderr}`);
  return JSON.parse(res.stdout) as Record<string, string>;
}

describe('the seccomp filter under bwrap', () => {
  it('network none: only AF_UNIX and NETLINK_ROUTE open; VSOCK, PACKET, INET/6, other netlink refused; no io_uring', () => {
    const out = runProbe(STRICT_DEFAULT);
    expect(out).toEqual({
      inet: 'EACCES',
      inet6: 'EACCES',
      packet: 'EACCES',
      vsock: 'EACCES',
      netlink_route: 'ok',
      netlink_sock_diag: 'EACCES',
      netlink_uevent: 'EACCES',
      unix: 'ok',
      socketpair_unix: 'ok',
      io_uring_setup: 'EACCES',
      seccomp: '2',
    });
  });

  it('node under network none still lists its interfaces (the reason NETLINK_ROUTE is allowed)', () => {
    const boxed = sandbox(STRICT_DEFAULT, process.execPath, ['-e', 'console.log(JSON.stringify(Object.keys(require("os").networkInterfaces())))']);
    const res = spawnSync(boxed.command, boxed.args, { env: boxed.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', ...boxed.extraFds] });
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout)).toEqual(['lo']);
  });

  it('on a pty (no fds to pass) the prelude opens the filter: TIOCSTI into its own terminal fails with EPERM', async () => {
    const code = 'import fcntl, json, termios\ntry:\n    fcntl.ioctl(0, termios.TIOCSTI, b"x"); r = "ok"\nexcept OSError as e:\n    r = e.errno\nprint("PTY-PROBE", json.dumps({"tiocsti": r, "seccomp": [l.split()[1] for l in open("/proc/self/status") if l.startswith("Seccomp:")][0]}))';
    const boxed = sandbox({ ...STRICT_DEFAULT, network: { kind: 'loopback' } }, PYTHON, ['-c', code], false);
    expect(boxed.extraFds).toEqual([]);
    const pty = nodePtyBackend().spawn(boxed.command, boxed.args, { cwd: '/', env: boxed.env, cols: 80, rows: 24 });
    let out = '';
    pty.onData((d) => (out += d.toString()));
    const exit = new Promise<number>((resolve) => pty.onExit((e) => resolve(e.exitCode)));
    expect(await exit).toBe(0);
    const line = await waitFor(() => /PTY-PROBE (\{.*\})/.exec(out)?.[1], { what: `the probe's line (got ${JSON.stringify(out)})` });
    // EPERM is errno 1; unfiltered, TIOCSTI on its own pty would succeed.
    expect(JSON.parse(line)).toEqual({ tiocsti: 1, seccomp: '2' });
  });
});
