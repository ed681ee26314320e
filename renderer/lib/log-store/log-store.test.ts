import { describe, expect, it } from 'vitest';
import { LogStore, type StderrLine } from './log-store';

let seq = 0;
const line = (text: string, run = 1, server = 'files', session = 'L1'): StderrLine => ({ seq: ++seq, ts: 1_700_000_000_000 + seq, session, server, run, line: text });

describe('LogStore', () => {
  it('keeps lines per server with line numbers', () => {
    const s = new LogStore();
    s.append([line('a'), line('x', 1, 'memory'), line('b')]);
    const files = s.source('L1', 'files');
    expect(files.size()).toBe(2);
    expect(files.at(1)).toMatchObject({ kind: 'line', n: 2, line: { line: 'b' } });
    expect(s.source('L1', 'memory').size()).toBe(1);
  });

  it('marks where a new run starts, and keeps the crashed run readable', () => {
    const s = new LogStore();
    s.append([line('boot'), line('panic: boom'), line('boot again', 2)]);
    const src = s.source('L1', 'files');
    expect([0, 1, 2, 3].map((i) => src.at(i)!.kind)).toEqual(['line', 'line', 'run', 'line']);
    expect(src.at(2)).toMatchObject({ run: 2 });
    expect(src.at(3)).toMatchObject({ n: 3 });
  });

  it('is bounded, counts what it let go, and shows limits', () => {
    const s = new LogStore({ capacity: 3 });
    s.append([1, 2, 3, 4, 5].map((i) => line(`l${i}`)), 4);
    const src = s.source('L1', 'files');
    expect(src.size()).toBe(3);
    expect(src.at(0)).toMatchObject({ n: 3 });
    expect(s.stats('L1', 'files')).toEqual({ held: 3, total: 5, evicted: 2, dropped: 4, capacity: 3 });
    expect(src.headRemovals).toBe(2);
  });

  it('finds hits over the text without escapes, keeps them current as lines arrive and go', () => {
    const s = new LogStore({ capacity: 3 });
    s.append([line('\x1b[31mERROR\x1b[0m one error'), line('fine')]);
    const src = s.source('L1', 'files');
    expect(src.search('error')).toEqual([
      { abs: 0, start: 0, end: 5 },
      { abs: 0, start: 10, end: 15 },
    ]);
    s.append([line('another error'), line('x'), line('y')]);
    expect(src.currentHits()).toEqual([{ abs: 2, start: 8, end: 13 }]);
    expect(src.indexOfAbs(2)).toBe(0);
  });

  it('ignores lines it already holds (a tail fetched after live lines)', () => {
    const s = new LogStore();
    const a = line('a');
    s.append([a, line('b')]);
    s.append([a]);
    expect(s.source('L1', 'files').size()).toBe(2);
  });

  it('merges every server into the All servers list, in arrival order, without run separators', () => {
    const s = new LogStore({ capacity: 3 });
    s.append([line('a'), line('m1', 1, 'memory'), line('b', 2), line('m2', 2, 'memory')]);
    const all = s.all;
    expect(all.size()).toBe(3);
    expect([0, 1, 2].map((i) => { const e = all.at(i); return e?.kind === 'line' ? `${e.line.server}:${e.line.line}` : e?.kind; })).toEqual(['memory:m1', 'files:b', 'memory:m2']);
    expect(s.allStats()).toMatchObject({ held: 3, total: 4, evicted: 1 });
    // The per-server lists still mark the new run.
    expect(s.source('L1', 'files').at(1)).toMatchObject({ kind: 'run', run: 2 });
  });
});
