import { describe, expect, it } from 'vitest';
import { firstVisible, offsetsFor, pageSize } from './layout';

describe('virtual list layout', () => {
  it('computes offsets and finds the first visible row', () => {
    const o = offsetsFor(4, (i) => (i === 1 ? 44 : 22));
    expect([...o]).toEqual([0, 22, 66, 88, 110]);
    expect(firstVisible(o, 0)).toBe(0);
    expect(firstVisible(o, 22)).toBe(1);
    expect(firstVisible(o, 65)).toBe(1);
    expect(firstVisible(o, 66)).toBe(2);
    expect(firstVisible(o, 1000)).toBe(3);
  });

  it('pages by a screen less one row', () => {
    expect(pageSize(660, 22)).toBe(29);
    expect(pageSize(10, 22)).toBe(1);
  });
});
