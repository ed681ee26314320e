import { describe, expect, it } from 'vitest';
import { argumentRows } from './argument-rows';
import { addInterval, covered } from './seen-coverage';

describe('argumentRows', () => {
  it('one row per value, with paths, JSON values and flags on the value they are about', () => {
    const { rows, rest } = argumentRows({ path: 'deploy\u202Etxt.sh', opts: { mode: 0o644, tags: ['a', 'n\u043Etes'] }, 'odd key': null, empty: {} });
    expect(rest).toBeUndefined();
    expect(rows.map((r) => [r.path, r.value])).toEqual([
      ['path', '"deploy\u202Etxt.sh"'],
      ['opts.mode', '420'],
      ['opts.tags[0]', '"a"'],
      ['opts.tags[1]', '"n\u043Etes"'],
      ['["odd key"]', 'null'],
      ['empty', '{}'],
    ]);
    expect(rows[0]!.flags.map((f) => f.kind)).toEqual(['bidi_control']);
    expect(rows[3]!.flags.map((f) => f.kind)).toEqual(['mixed_script']);
    expect(rows[1]!.flags).toEqual([]);
  });

  it('flags a key too, and shows a bare value as one row', () => {
    expect(argumentRows({ 'c\u200Bmd': 'ls' }).rows[0]!.flags[0]!.message).toBe('key: invisible character U+200B');
    expect(argumentRows('plain')).toEqual({ rows: [{ path: '', value: '"plain"', flags: [] }] });
  });

  it('past MAX_ROWS the rest is one block, nothing dropped', () => {
    const { rows, rest } = argumentRows({ items: Array.from({ length: 2005 }, (_, i) => i) });
    expect(rows).toHaveLength(2000);
    expect(rest!.split('\n')).toEqual(['items[2000] 2000', 'items[2001] 2001', 'items[2002] 2002', 'items[2003] 2003', 'items[2004] 2004']);
  });
});

describe('seen coverage', () => {
  it('merges what was on screen; a jump to the end leaves the middle unseen', () => {
    let seen = addInterval([], [0, 200]);
    seen = addInterval(seen, [520, 720]);
    expect(covered(seen, 100, 120)).toBe(true);
    expect(covered(seen, 600, 620)).toBe(true);
    expect(covered(seen, 300, 320)).toBe(false);
    seen = addInterval(seen, [180, 380]);
    seen = addInterval(seen, [360, 560]);
    expect(seen).toEqual([[0, 720]]);
    expect(covered(seen, 0, 720)).toBe(true);
  });
});
