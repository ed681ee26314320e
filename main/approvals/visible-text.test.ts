// common/visible-text.ts, tested here: common/ may import nothing but zod, vitest included (eslint.config.js).
import { describe, expect, it } from 'vitest';
import { showHidden, splitHidden, textFlags } from '../../common/visible-text';

describe('visible text', () => {
  it('writes bidi controls and invisible characters as \\uXXXX, and keeps JSON valid', () => {
    expect(showHidden('deploy\u202Etxt.sh')).toBe('deploy\\u202Etxt.sh');
    expect(showHidden('no\u200Btes')).toBe('no\\u200Btes');
    expect(showHidden('tag\u{E0041}')).toBe('tag\\uDB40\\uDC41');
    expect(JSON.parse(`"${showHidden('a\u2066b')}"`)).toBe('a\u2066b');
    expect(showHidden('plain – text, ünïcode, 日本語')).toBe('plain – text, ünïcode, 日本語');
  });

  it('splits at each hidden character with its code point and whether it is a bidi control', () => {
    expect(splitHidden('a\u202Eb\u200B')).toEqual([
      { text: 'a' },
      { hidden: '\u202E', shown: '\\u202E', code: 'U+202E', bidi: true },
      { text: 'b' },
      { hidden: '\u200B', shown: '\\u200B', code: 'U+200B', bidi: false },
    ]);
  });

  it('flags bidi controls, invisible characters and a word mixing Latin with Cyrillic', () => {
    expect(textFlags('deploy\u202Etxt.sh').map((f) => f.kind)).toEqual(['bidi_control']);
    // Cyrillic о (U+043E) in "notes" and a zero-width space after it.
    const flags = textFlags('n\u043Etes\u200B.txt');
    expect(flags.map((f) => f.kind)).toEqual(['invisible', 'mixed_script']);
    expect(flags[1]!.message).toBe('mixed scripts Latin + Cyrillic in "nоtes\\u200B" (о U+043E Cyrillic)');
  });

  it('leaves ordinary text of one script per word alone (Russian name, Japanese, German)', () => {
    expect(textFlags('отчёт.txt')).toEqual([]);
    expect(textFlags('東京タワーへ行く')).toEqual([]);
    expect(textFlags('Größe of the file')).toEqual([]);
    expect(textFlags('rm -rf ~')).toEqual([]);
  });
});
