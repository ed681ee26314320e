// The filter as bytes: decoded and run on seccomp_data words as the kernel would (the classic BPF
// subset it uses). tests/integration/sandbox-seccomp.test.ts runs the same bytes under bwrap.
import { describe, expect, it } from 'vitest';
import { sandboxSeccomp } from './seccomp';

interface Data {
  nr: number;
  arch: number;
  /** Each argument's low 32-bit word (what the filter reads). */
  args?: number[];
}

function runFilter(prog: Buffer, data: Data): number {
  const word = (off: number): number => {
    if (off === 0) return data.nr;
    if (off === 4) return data.arch;
    if (off >= 16 && (off - 16) % 8 === 0) return data.args?.[(off - 16) / 8] ?? 0;
    throw new Error(`load from offset ${off}: the filter only reads nr, arch and the low words of args`);
  };
  let acc = 0;
  for (let pc = 0; pc < prog.length / 8; ) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) {
      acc = word(k) >>> 0;
      pc++;
    } else if (code === 0x15) pc += 1 + (acc === k ? jt : jf);
    else if (code === 0x35) pc += 1 + (acc >= k ? jt : jf);
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error('fell off the end');
}

const ALLOW = 0x7fff0000;
const EACCES = 0x00050000 | 13;
const EPERM = 0x00050000 | 1;
const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;
const x64 = { ioctl: 16, socket: 41, socketpair: 53 };
const AF = { UNIX: 1, INET: 2, INET6: 10, NETLINK: 16, PACKET: 17, VSOCK: 40, BLUETOOTH: 31, ALG: 38 };

describe('sandboxSeccomp (x86-64)', () => {
  const none = sandboxSeccomp({ network: 'none', arch: 'x64' })!;
  const loopback = sandboxSeccomp({ network: { kind: 'loopback' }, arch: 'x64' })!;
  const allow = sandboxSeccomp({ network: { kind: 'allow', hosts: ['example.com'] }, arch: 'x64' })!;

  it('refuses TIOCSTI and TIOCLINUX with EPERM under every network, by the low 32 bits of the request', () => {
    for (const prog of [none, loopback, allow]) {
      expect(runFilter(prog, { arch: X64, nr: x64.ioctl, args: [0, 0x5412] })).toBe(EPERM);
      expect(runFilter(prog, { arch: X64, nr: x64.ioctl, args: [2, 0x541c] })).toBe(EPERM);
      // Other terminal ioctls (TCGETS, TIOCGWINSZ, TIOCSCTTY) stay: programs need them.
      expect(runFilter(prog, { arch: X64, nr: x64.ioctl, args: [0, 0x5401] })).toBe(ALLOW);
      expect(runFilter(prog, { arch: X64, nr: x64.ioctl, args: [0, 0x5413] })).toBe(ALLOW);
      expect(runFilter(prog, { arch: X64, nr: x64.ioctl, args: [0, 0x540e] })).toBe(ALLOW);
    }
  });

  it('under network none allows AF_UNIX and NETLINK_ROUTE only, for socket() and socketpair()', () => {
    for (const nr of [x64.socket, x64.socketpair]) {
      expect(runFilter(none, { arch: X64, nr, args: [AF.UNIX, 1, 0] })).toBe(ALLOW);
      for (const family of [AF.INET, AF.INET6, AF.PACKET, AF.VSOCK, AF.BLUETOOTH, AF.ALG, 0, 45, 0xffff])
        expect(runFilter(none, { arch: X64, nr, args: [family, 1, 0] }), `family ${family}`).toBe(EACCES);
    }
    expect(runFilter(none, { arch: X64, nr: x64.socket, args: [AF.NETLINK, 3, 0] })).toBe(ALLOW);
    // NETLINK_SOCK_DIAG, NETLINK_AUDIT, NETLINK_KOBJECT_UEVENT, NETLINK_GENERIC.
    for (const protocol of [4, 9, 15, 16]) expect(runFilter(none, { arch: X64, nr: x64.socket, args: [AF.NETLINK, 3, protocol] })).toBe(EACCES);
    expect(runFilter(none, { arch: X64, nr: 0 })).toBe(ALLOW);
    expect(runFilter(none, { arch: X64, nr: 42 })).toBe(ALLOW);
  });

  it('where the network is granted, refuses only AF_VSOCK (no network namespace covers it; the proxy and forwarder need IP sockets)', () => {
    for (const prog of [loopback, allow]) {
      expect(runFilter(prog, { arch: X64, nr: x64.socket, args: [AF.INET, 1, 0] })).toBe(ALLOW);
      expect(runFilter(prog, { arch: X64, nr: x64.socket, args: [AF.UNIX, 1, 0] })).toBe(ALLOW);
      expect(runFilter(prog, { arch: X64, nr: x64.socket, args: [AF.VSOCK, 1, 0] })).toBe(EACCES);
    }
  });

  it('refuses io_uring_setup, x32 syscalls and other ABIs whole, under every network', () => {
    for (const prog of [none, loopback]) {
      expect(runFilter(prog, { arch: X64, nr: 425 })).toBe(EACCES);
      expect(runFilter(prog, { arch: X64, nr: 0x40000000 | 16, args: [0, 0x5412] })).toBe(EACCES);
      expect(runFilter(prog, { arch: X64, nr: 0x40000000 | 41, args: [AF.INET] })).toBe(EACCES);
      // i386 (int 0x80): ioctl is 54 and socketcall 102 there.
      expect(runFilter(prog, { arch: 0x40000003, nr: 54, args: [0, 0x5412] })).toBe(EACCES);
      expect(runFilter(prog, { arch: 0x40000003, nr: 102 })).toBe(EACCES);
    }
  });

  it('is exactly these bytes (a change to the program is a change to this test)', () => {
    // Disassembled by hand: jt/jf are relative to the next instruction.
    const expected = [
      '2000000004000000', //  0 ld  [4]            arch
      '1500000c3e0000c0', //  1 jeq AUDIT_ARCH_X86_64, 0, deny
      '2000000000000000', //  2 ld  [0]            nr
      '35000a0000000040', //  3 jge 0x40000000 (x32), deny
      '15000900a9010000', //  4 jeq io_uring_setup, deny
      '1500020010000000', //  5 jeq ioctl, 8
      '1500040029000000', //  6 jeq socket, 11
      '060000000000ff7f', //  7 ret ALLOW
      '2000000018000000', //  8 ld  [24]           args[1] low word
      '1500050012540000', //  9 jeq TIOCSTI, eperm
      '150004021c540000', // 10 jeq TIOCLINUX, eperm, allow
      '2000000010000000', // 11 ld  [16]           args[0] low word (family)
      '1500010028000000', // 12 jeq AF_VSOCK, deny, allow
      '060000000000ff7f', // 13 allow: ret ALLOW
      '060000000d000500', // 14 deny: ret ERRNO(EACCES)
      '0600000001000500', // 15 eperm: ret ERRNO(EPERM)
    ];
    expect(loopback.toString('hex')).toBe(expected.join(''));
    expect(none.length / 8).toBe(20);
  });
});

describe('sandboxSeccomp (arm64 and the rest)', () => {
  it('has a table for arm64', () => {
    const prog = sandboxSeccomp({ network: 'none', arch: 'arm64' })!;
    expect(runFilter(prog, { arch: ARM64, nr: 29, args: [0, 0x5412] })).toBe(EPERM);
    expect(runFilter(prog, { arch: ARM64, nr: 198, args: [AF.INET] })).toBe(EACCES);
    expect(runFilter(prog, { arch: ARM64, nr: 199, args: [AF.UNIX] })).toBe(ALLOW);
    expect(runFilter(prog, { arch: ARM64, nr: 40 })).toBe(ALLOW);
    expect(runFilter(prog, { arch: X64, nr: 29 })).toBe(EACCES);
  });

  it('has none for an architecture without a table', () => {
    expect(sandboxSeccomp({ network: 'none', arch: 'ia32' })).toBeUndefined();
  });
});
