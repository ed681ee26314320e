import { describe, expect, it } from 'vitest';
import { CUT_MARKER, LineSplitter } from './line-splitter';

function splitAll(splitter: LineSplitter, chunks: Buffer[]): string[] {
  const out: string[] = [];
  for (const c of chunks) out.push(...splitter.push(c));
  out.push(...splitter.end());
  return out;
}

describe('LineSplitter', () => {
  const text = 'première ligne ✓\r\nzweite Zeile — 日本語\n🦊 third\r\n\nlast without newline é';
  const expected = ['première ligne ✓', 'zweite Zeile — 日本語', '🦊 third', '', 'last without newline é'];

  it('splits on \\n and \\r\\n and keeps the last unterminated line', () => {
    expect(splitAll(new LineSplitter(), [Buffer.from(text)])).toEqual(expected);
  });

  it('never breaks a multibyte character, whatever byte a chunk ends on', () => {
    const buf = Buffer.from(text);
    for (let i = 0; i <= buf.length; i++) {
      for (let j = i; j <= buf.length; j += 7) {
        const lines = splitAll(new LineSplitter(), [buf.subarray(0, i), buf.subarray(i, j), buf.subarray(j)]);
        expect(lines, `split at ${i}/${j}`).toEqual(expected);
      }
    }
  });

  it('handles a CRLF split between chunks', () => {
    expect(splitAll(new LineSplitter(), [Buffer.from('a\r'), Buffer.from('\nb\r'), Buffer.from('\n')])).toEqual(['a', 'b']);
  });

  it('cuts overlong lines into marked pieces and keeps memory bounded', () => {
    const s = new LineSplitter({ maxLineLength: 10 });
    const out: string[] = [];
    for (let i = 0; i < 1000; i++) {
      out.push(...s.push(Buffer.from('abcdefghij'.repeat(3))));
      expect(s.bufferedLength).toBeLessThanOrEqual(10);
    }
    out.push(...s.push(Buffer.from('xyz\nnext\n')));
    out.push(...s.end());
    expect(out).toHaveLength(3001 + 1);
    expect(out[0]).toBe('abcdefghij' + CUT_MARKER);
    expect(out[1]).toBe(CUT_MARKER + 'abcdefghij' + CUT_MARKER);
    expect(out[3000]).toBe(CUT_MARKER + 'xyz');
    expect(out[3001]).toBe('next');
  });

  it('cuts a long line that arrives whole with its newline, and never splits a surrogate pair', () => {
    const s = new LineSplitter({ maxLineLength: 5 });
    const lines = splitAll(s, [Buffer.from('abcd🦊efgh\nok\n')]);
    expect(lines).toEqual(['abcd' + CUT_MARKER, CUT_MARKER + '🦊efg' + CUT_MARKER, CUT_MARKER + 'h', 'ok']);
  });

  it('keeps a line of exactly the maximum whole', () => {
    expect(splitAll(new LineSplitter({ maxLineLength: 5 }), [Buffer.from('abcde\r\n')])).toEqual(['abcde']);
  });
});
