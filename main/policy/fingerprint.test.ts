import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { actionFingerprint, canonicalJson } from './fingerprint';

describe('canonicalJson', () => {
  it('sorts keys recursively and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('orders keys by UTF-16 code units, as JCS does', () => {
    expect(canonicalJson({ é: 1, z: 2, Z: 3, '10': 4, '9': 5 })).toBe('{"10":4,"9":5,"Z":3,"z":2,"é":1}');
  });

  it('writes numbers and strings as JSON does; drops undefined', () => {
    expect(canonicalJson([1e21, 0.1, -0, 1.5e-7, 'a"b\n'])).toBe('[1e+21,0.1,0,1.5e-7,"a\\"b\\n"]');
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(canonicalJson([undefined])).toBe('[null]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(Number.NaN)).toBe('null');
  });

  it('refuses cycles and bigints', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => canonicalJson(a)).toThrow(/cycle/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/bigint/);
    // A shared (non-cyclic) reference is fine.
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });
});

describe('actionFingerprint', () => {
  it('is SHA-256 hex of tool, newline, canonical JSON', () => {
    const expected = createHash('sha256').update('fs.read\n{"path":"a.txt"}').digest('hex');
    expect(actionFingerprint('fs.read', { path: 'a.txt' })).toBe(expected);
  });

  it('does not depend on key order', () => {
    expect(actionFingerprint('fs.write', { path: 'a', content: 'x', opts: { b: 1, a: 2 } })).toBe(
      actionFingerprint('fs.write', { opts: { a: 2, b: 1 }, content: 'x', path: 'a' }),
    );
  });

  it('differs when the arguments or the tool differ', () => {
    expect(actionFingerprint('fs.read', { path: 'a' })).not.toBe(actionFingerprint('fs.read', { path: 'b' }));
    expect(actionFingerprint('fs.read', { path: 'a' })).not.toBe(actionFingerprint('fs.write', { path: 'a' }));
    expect(actionFingerprint('fs.read', [1, 2])).not.toBe(actionFingerprint('fs.read', [2, 1]));
  });
});
