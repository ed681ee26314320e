import { describe, expect, it } from 'vitest';
import { checkPattern, narrowableArgs, suggestPattern } from './grant-narrow';

describe('grant narrowing on the approval card', () => {
  it('offers string arguments only', () => {
    expect(narrowableArgs({ path: 'docs/a.md', content: 'x', n: 3, o: {} })).toEqual(['path', 'content']);
    expect(narrowableArgs(['a'])).toEqual([]);
    expect(narrowableArgs(null)).toEqual([]);
  });

  it("suggests the value's folder, escaped, or the value itself", () => {
    expect(suggestPattern('docs/a.md')).toBe('docs/.*');
    expect(suggestPattern('src/v1.2/x.ts')).toBe('src/v1\\.2/.*');
    expect(suggestPattern('a+b')).toBe('a\\+b');
    expect(checkPattern(suggestPattern('src/v1.2/x.ts'), 'src/v1.2/x.ts')).toEqual({ ok: true });
    expect(checkPattern(suggestPattern('src/v1.2/x.ts'), 'src/v1x2/x.ts').ok).toBe(false);
  });

  it('says when a pattern is broken or would not cover the call', () => {
    expect(checkPattern('(', 'x')).toMatchObject({ ok: false, why: expect.stringMatching(/not a valid regular expression/) });
    expect(checkPattern('docs/.*', 'src/a.md')).toMatchObject({ ok: false, why: expect.stringMatching(/does not match/) });
    // Whole-value match, as the host's grant: a prefix alone is not enough.
    expect(checkPattern('docs', 'docs/a.md').ok).toBe(false);
  });
});
