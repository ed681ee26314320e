// The seccomp filter every sandboxed process runs under (bwrap's --seccomp FD; the Landlock kind
// installs the same bytes itself). Two parts:
//
// Always, whatever the network:
// - ioctl(TIOCSTI) and ioctl(TIOCLINUX) fail with EPERM. TIOCSTI pushes bytes into a terminal's
//   input queue, so a process holding any fd of the person's terminal could make the person's
//   shell run a command after Gatehouse exits, outside the sandbox (CVE-2017-5226; measured on
//   this machine, `dev.tty.legacy_tiocsti=1`). TIOCLINUX (subcode 2/3, paste selection) does the
//   same on a virtual console. The kernel compares the request as an unsigned int, so only the
//   argument's low 32 bits are checked: 0x1_00005412 is TIOCSTI too.
// - io_uring_setup fails: its operations (IORING_OP_SOCKET, …) are not seen by seccomp at all.
//   libuv and Python fall back to ordinary syscalls when it fails.
// - Syscalls of another ABI (x32, i386 via int 0x80) fail whole: their numbers differ and
//   socketcall(2) multiplexes, so they would slip past every rule below.
//
// Under `network: none`, address families are an allowlist: socket() and socketpair() succeed
// for AF_UNIX (node, git and most runtimes use it internally) and, read-only, for AF_NETLINK with
// NETLINK_ROUTE; every other family (AF_INET, AF_INET6, AF_PACKET, AF_VSOCK, other netlink
// protocols, …) fails with EACCES. NETLINK_ROUTE is allowed because getifaddrs(3) needs it:
// without it node's os.networkInterfaces() (libuv's uv_interface_addresses) throws
// (tests/integration/sandbox-server.test.ts lists `lo` that way). It can only read: in bwrap's
// own network namespace it lists the namespace's lone `lo`, and changing a route or a link needs
// CAP_NET_ADMIN, which --cap-drop ALL removed (a kind that keeps capabilities must not reuse
// this allowance unchanged).
//
// Where the network is granted (loopback, allow: the forwarder and proxy need IP sockets), only
// AF_VSOCK is refused: vsock has no network namespace (the kernel's vsock namespaces cover vhost
// and loopback, not the virtio / Hyper-V / VMCI transports a guest uses), so a sandbox inside a
// VM would reach the hypervisor's vsock services around its own empty network namespace.
//
// Classic BPF over struct seccomp_data { int nr; u32 arch; u64 ip; u64 args[6]; } (linux/seccomp.h),
// little-endian on both tables here: args[i]'s low word is at offset 16 + 8 i. Numbers from the
// kernel's syscall tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h).
import type { SandboxNetwork } from './types';

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const EACCES = 13;

interface ArchTable {
  audit: number;
  ioctl: number;
  socket: number;
  socketpair: number;
  ioUringSetup: number;
  /** x86-64 also accepts x32 syscalls (nr | 0x40000000) under the same audit arch. */
  x32?: boolean;
}

export const SECCOMP_ARCHES: Record<string, ArchTable> = {
  x64: { audit: 0xc000003e, ioctl: 16, socket: 41, socketpair: 53, ioUringSetup: 425, x32: true },
  arm64: { audit: 0xc00000b7, ioctl: 29, socket: 198, socketpair: 199, ioUringSetup: 425 },
};

export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;
export const AF_UNIX = 1;
export const AF_NETLINK = 16;
export const AF_VSOCK = 40;
export const NETLINK_ROUTE = 0;

const ARG0 = 16;
const ARG1 = 24;
const ARG2 = 32;

type Insn = { code: number; k: number; jt?: string | number; jf?: string | number; label?: string };

export interface SandboxSeccompInput {
  /** The process's network mode (the kind is enough). */
  network: SandboxNetwork | SandboxNetwork['kind'];
  /** Node's process.arch naming; default this machine's. */
  arch?: string;
}

/**
 * The BPF program (struct sock_filter[], as bytes) for one sandboxed process, or undefined where
 * there is no syscall table for `arch` (the sandbox then runs without a filter, and says so).
 */
export function sandboxSeccomp(input: SandboxSeccompInput): Buffer | undefined {
  const a = SECCOMP_ARCHES[input.arch ?? process.arch];
  if (!a) return undefined;
  const network = typeof input.network === 'string' ? input.network : input.network.kind;
  const families = network === 'none';
  const prog: Insn[] = [
    { code: LD_W_ABS, k: 4 },
    { code: JEQ_K, k: a.audit, jt: 0, jf: 'deny' },
    { code: LD_W_ABS, k: 0 },
    ...(a.x32 ? [{ code: JGE_K, k: 0x40000000, jt: 'deny', jf: 0 }] : []),
    { code: JEQ_K, k: a.ioUringSetup, jt: 'deny', jf: 0 },
    { code: JEQ_K, k: a.ioctl, jt: 'ioctl', jf: 0 },
    ...(families
      ? [
          { code: JEQ_K, k: a.socket, jt: 'family', jf: 0 },
          { code: JEQ_K, k: a.socketpair, jt: 'family', jf: 0 },
        ]
      : [{ code: JEQ_K, k: a.socket, jt: 'vsock', jf: 0 }]),
    { code: RET_K, k: RET_ALLOW },
    { code: LD_W_ABS, k: ARG1, label: 'ioctl' },
    { code: JEQ_K, k: TIOCSTI, jt: 'eperm', jf: 0 },
    { code: JEQ_K, k: TIOCLINUX, jt: 'eperm', jf: 'allow' },
    ...(families
      ? [
          { code: LD_W_ABS, k: ARG0, label: 'family' },
          { code: JEQ_K, k: AF_UNIX, jt: 'allow', jf: 0 },
          { code: JEQ_K, k: AF_NETLINK, jt: 0, jf: 'deny' },
          { code: LD_W_ABS, k: ARG2 },
          { code: JEQ_K, k: NETLINK_ROUTE, jt: 'allow', jf: 'deny' },
        ]
      : [
          { code: LD_W_ABS, k: ARG0, label: 'vsock' },
          { code: JEQ_K, k: AF_VSOCK, jt: 'deny', jf: 'allow' },
        ]),
    { code: RET_K, k: RET_ALLOW, label: 'allow' },
    { code: RET_K, k: RET_ERRNO | EACCES, label: 'deny' },
    { code: RET_K, k: RET_ERRNO | EPERM, label: 'eperm' },
  ];
  return assemble(prog);
}

function assemble(prog: Insn[]): Buffer {
  const at = new Map(prog.flatMap((insn, i) => (insn.label ? [[insn.label, i] as const] : [])));
  const rel = (i: number, j: string | number | undefined): number => {
    if (typeof j !== 'string') return j ?? 0;
    const target = at.get(j);
    // Classic BPF jumps only forward, at most 255 instructions.
    if (target === undefined || target <= i || target - i - 1 > 255) throw new Error(`seccomp: jump from ${i} to '${j}' is not a forward jump in range`);
    return target - i - 1;
  };
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(rel(i, insn.jt), i * 8 + 2);
    buf.writeUInt8(rel(i, insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}
