import { describe, expect, it } from 'vitest';
import { pageSize } from './layout';

describe('virtual list layout', () => {
  it('pages by a screen less one row', () => {
    expect(pageSize(660, 22)).toBe(29);
    expect(pageSize(10, 22)).toBe(1);
  });
});
