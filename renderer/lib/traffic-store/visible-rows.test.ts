import { describe, expect, it } from 'vitest';
import type { TrafficRow } from './types';
import { VisibleRows } from './visible-rows';

function row(seq: number): TrafficRow {
  const r = { seq, evicted: false, _shown: false } as unknown as TrafficRow;
  (r as { root: TrafficRow }).root = r;
  return r;
}

describe('VisibleRows', () => {
  it('drops evicted rows at the head by moving its start, compacting now and then, with indexes intact', () => {
    const list = new VisibleRows();
    const rows = Array.from({ length: 5000 }, (_, i) => row(i + 1));
    for (const r of rows) list.insert(r);
    for (let k = 0; k < 3000; k++) {
      rows[k]!.evicted = true;
      list.dropEvictedHead(() => false);
    }
    expect(list.length).toBe(2000);
    expect(list.headRemovals).toBe(3000);
    expect(list.at(0)).toBe(rows[3000]);
    expect(list.indexOf(rows[4999]!)).toBe(1999);
    expect(list.indexOf(rows[10]!)).toBe(-1);
    expect(rows[10]!._shown).toBe(false);
    // Out-of-order insert and removal still land in order after the head moved.
    const mid = row(3500.5);
    list.insert(mid);
    expect(list.indexOf(mid)).toBe(500); // after seq 3500, the 500th row from the new head
    list.remove(rows[3000]!);
    expect(list.at(0)).toBe(rows[3001]);
    expect([...list].length).toBe(2000);
  });

  it('keeps a pinned row at the head while the rows around it go', () => {
    const list = new VisibleRows();
    const rows = Array.from({ length: 4 }, (_, i) => row(i + 1));
    for (const r of rows) list.insert(r);
    rows[0]!.evicted = rows[1]!.evicted = true;
    list.dropEvictedHead((r) => r === rows[0]);
    expect([...list]).toEqual([rows[0], rows[2], rows[3]]);
    expect(list.headRemovals).toBe(1);
  });
});
