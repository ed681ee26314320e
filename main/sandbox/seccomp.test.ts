import { describe, expect, it } from 'vitest';
import { noNetworkSeccomp } from './seccomp';

// Decodes the program and runs it on a seccomp_data, as the kernel would (classic BPF subset used).
function runFilter(prog: Buffer, data: { nr: number; arch: number; arg0?: number }): number {
  const word = (off: number) => (off === 0 ? data.nr : off === 4 ? data.arch : off === 16 ? (data.arg0 ?? 0) : 0);
  let acc = 0;
  for (let pc = 0; pc < prog.length / 8; ) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) {
      acc = word(k);
      pc++;
    } else if (code === 0x15) pc += 1 + (acc === k ? jt : jf);
    else if (code === 0x35) pc += 1 + (acc >>> 0 >= k ? jt : jf);
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error('fell off the end');
}

const ALLOW = 0x7fff0000;
const EACCES = 0x00050000 | 13;
const X64 = 0xc000003e;

describe('noNetworkSeccomp (x86-64)', () => {
  const prog = noNetworkSeccomp('x64')!;
  it('refuses AF_INET, AF_INET6 and AF_PACKET sockets, allows AF_UNIX and everything else', () => {
    expect(runFilter(prog, { arch: X64, nr: 41, arg0: 2 })).toBe(EACCES);
    expect(runFilter(prog, { arch: X64, nr: 41, arg0: 10 })).toBe(EACCES);
    expect(runFilter(prog, { arch: X64, nr: 41, arg0: 17 })).toBe(EACCES);
    expect(runFilter(prog, { arch: X64, nr: 41, arg0: 1 })).toBe(ALLOW);
    expect(runFilter(prog, { arch: X64, nr: 0 })).toBe(ALLOW);
    expect(runFilter(prog, { arch: X64, nr: 42 })).toBe(ALLOW);
  });
  it('refuses io_uring_setup, x32 syscalls and other ABIs whole', () => {
    expect(runFilter(prog, { arch: X64, nr: 425 })).toBe(EACCES);
    expect(runFilter(prog, { arch: X64, nr: 0x40000000 | 41, arg0: 2 })).toBe(EACCES);
    expect(runFilter(prog, { arch: 0x40000003, nr: 102 })).toBe(EACCES);
  });
  it('has a table for arm64 too, and none for the rest', () => {
    expect(runFilter(noNetworkSeccomp('arm64')!, { arch: 0xc00000b7, nr: 198, arg0: 2 })).toBe(EACCES);
    expect(noNetworkSeccomp('ia32')).toBeUndefined();
  });
});
