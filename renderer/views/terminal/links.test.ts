import { describe, expect, it } from 'vitest';
import { findLinks } from './links';

describe('findLinks', () => {
  it('finds http and https URLs with their columns', () => {
    const line = 'see https://example.com/a?b=1 and http://127.0.0.1:4000/x';
    expect(findLinks(line)).toEqual([
      { start: 4, end: 29, url: 'https://example.com/a?b=1' },
      { start: 34, end: 57, url: 'http://127.0.0.1:4000/x' },
    ]);
  });

  it('drops trailing sentence punctuation and unbalanced brackets, keeps balanced ones', () => {
    expect(findLinks('(at https://example.com/docs).')[0]?.url).toBe('https://example.com/docs');
    expect(findLinks('https://en.wikipedia.org/wiki/Foo_(bar)')[0]?.url).toBe('https://en.wikipedia.org/wiki/Foo_(bar)');
    expect(findLinks('open "https://example.com/q".')[0]?.url).toBe('https://example.com/q');
  });

  it('ignores other schemes and bare prefixes', () => {
    expect(findLinks('file:///etc/passwd ftp://x https:// http://')).toEqual([]);
  });
});
