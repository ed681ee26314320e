// `network: none` on Linux, literally: besides its own empty network namespace, a seccomp filter
// (handed to bwrap with --seccomp FD) refuses socket(AF_INET / AF_INET6 / AF_PACKET) with EACCES,
// and io_uring_setup (whose IORING_OP_SOCKET would open one around the filter). Unix sockets stay
// (node, git and most runtimes use them internally). Syscalls of another ABI (x32, i386) are refused
// whole: their socket numbers differ and socketcall(2) multiplexes, so they would slip past.
//
// Classic BPF over struct seccomp_data { int nr; u32 arch; u64 ip; u64 args[6]; } (linux/seccomp.h),
// little-endian: args[0]'s low word is at offset 16. Numbers from the kernel's syscall tables.

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EACCES = 13;

const ARCHES: Record<string, { audit: number; socket: number; ioUringSetup: number; x32?: boolean }> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425, x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425 },
};

const AF_INET = 2;
const AF_INET6 = 10;
const AF_PACKET = 17;

type Insn = { code: number; k: number; jt?: string | number; jf?: string | number; label?: string };

/** The filter for this machine's architecture, or undefined where we have no table (no filter then). */
export function noNetworkSeccomp(arch: string = process.arch): Buffer | undefined {
  const a = ARCHES[arch];
  if (!a) return undefined;
  const prog: Insn[] = [
    { code: LD_W_ABS, k: 4 },
    { code: JEQ_K, k: a.audit, jt: 0, jf: 'deny' },
    { code: LD_W_ABS, k: 0 },
    ...(a.x32 ? [{ code: JGE_K, k: 0x40000000, jt: 'deny', jf: 0 }] : []),
    { code: JEQ_K, k: a.ioUringSetup, jt: 'deny', jf: 0 },
    { code: JEQ_K, k: a.socket, jt: 0, jf: 'allow' },
    { code: LD_W_ABS, k: 16 },
    { code: JEQ_K, k: AF_INET, jt: 'deny', jf: 0 },
    { code: JEQ_K, k: AF_INET6, jt: 'deny', jf: 0 },
    { code: JEQ_K, k: AF_PACKET, jt: 'deny', jf: 0 },
    { code: RET_K, k: RET_ALLOW, label: 'allow' },
    { code: RET_K, k: RET_ERRNO | EACCES, label: 'deny' },
  ];
  const at = new Map(prog.flatMap((insn, i) => (insn.label ? [[insn.label, i] as const] : [])));
  const rel = (i: number, j: string | number | undefined): number => (typeof j === 'string' ? at.get(j)! - i - 1 : (j ?? 0));
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(rel(i, insn.jt), i * 8 + 2);
    buf.writeUInt8(rel(i, insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}
