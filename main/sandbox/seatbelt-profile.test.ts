// The macOS profile cannot run here (no sandbox-exec on Linux): these tests check the generated
// SBPL text for the same meaning as the bwrap mounts. Marked as text checks, not a run.
import { describe, expect, it } from 'vitest';
import { sbplString, seatbeltProfile } from './seatbelt-profile';
import type { MountRule } from './mount-plan';

const rules: MountRule[] = [
  { kind: 'hide', path: '/Users/ada', type: 'dir' },
  { kind: 'hide', path: '/Users/ada/.ssh', type: 'dir' },
  { kind: 'hide', path: '/Users/ada/.netrc', type: 'file' },
  { kind: 'write', path: '/Users/ada/proj "x"' },
  { kind: 'read', path: '/Users/ada/.gitconfig' },
];

describe('seatbeltProfile (text only: sandbox-exec does not exist on the Linux CI machine)', () => {
  it('denies by default, reads everywhere, then the plan in order so the most specific rule wins', () => {
    const text = seatbeltProfile({ rules, network: { kind: 'none' }, loopbackPorts: [], tmpDir: '/private/tmp/gh-1' });
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('(version 1)');
    expect(lines[1]).toBe('(deny default)');
    const at = (l: string) => lines.indexOf(l);
    expect(at('(allow file-read*)')).toBeGreaterThan(0);
    expect(at('(deny file-read* file-write* (subpath "/Users/ada"))')).toBeGreaterThan(at('(allow file-read*)'));
    expect(at('(deny file-read* file-write* (subpath "/Users/ada/.ssh"))')).toBeGreaterThan(at('(deny file-read* file-write* (subpath "/Users/ada"))'));
    expect(lines).toContain('(deny file-read* file-write* (literal "/Users/ada/.netrc"))');
    expect(at('(allow file-read* file-write* (subpath "/Users/ada/proj \\"x\\""))')).toBeGreaterThan(at('(deny file-read* file-write* (literal "/Users/ada/.netrc"))'));
    expect(lines).toContain('(allow file-read* (subpath "/Users/ada/.gitconfig"))');
    expect(lines).toContain('(allow file-read* file-write* (subpath "/private/tmp/gh-1"))');
    expect(lines).toContain('(allow signal (target same-sandbox))');
    // network none: no network rule at all under deny default.
    expect(text).not.toMatch(/network-outbound|network\*/);
  });

  it('loopback and allow: outbound only to the granted 127.0.0.1 ports (the proxy among them)', () => {
    const text = seatbeltProfile({ rules: [], network: { kind: 'allow', hosts: ['api.example.com'] }, loopbackPorts: [4100, 3128, 4100], tmpDir: '/t' });
    expect(text.match(/network-outbound/g)).toHaveLength(2);
    expect(text).toContain('(allow network-outbound (remote ip "localhost:3128"))');
    expect(text).toContain('(allow network-outbound (remote ip "localhost:4100"))');
    expect(text).not.toMatch(/localhost:\*/);
  });

  it('quotes strings safely', () => {
    expect(sbplString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });
});
