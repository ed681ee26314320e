import { describe, expect, it } from 'vitest';
import { NOTICES_LIMIT, NoticesStore } from './notices-store';

const n = (key: string, count: number, at: number) => ({ key, text: `refused ${count} requests from ${key}`, count, at });

describe('NoticesStore', () => {
  it('keeps one line per key, updated in place, newest first, bounded', () => {
    const s = new NoticesStore();
    s.replace([n('a', 1, 1), n('b', 2, 2)]);
    expect(s.get().map((x) => x.key)).toEqual(['b', 'a']);
    s.upsert(n('a', 5, 3));
    expect(s.get()).toEqual([n('a', 5, 3), n('b', 2, 2)]);
    for (let i = 0; i < NOTICES_LIMIT + 5; i++) s.upsert(n(`k${i}`, 1, 10 + i));
    expect(s.get()).toHaveLength(NOTICES_LIMIT);
    expect(s.get()[0]!.key).toBe(`k${NOTICES_LIMIT + 4}`);
  });
});
