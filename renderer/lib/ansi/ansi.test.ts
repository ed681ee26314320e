import { describe, expect, it } from 'vitest';
import { cssColor, parseAnsi, showEscapes, spanCss, stripAnsi } from './ansi';

describe('ansi', () => {
  it('passes plain text through as one span', () => {
    expect(parseAnsi('hello')).toEqual([{ text: 'hello', style: {} }]);
  });

  it('renders basic, bright and background colours, bold, dim, underline and reset', () => {
    const spans = parseAnsi('\x1b[31mred\x1b[0m \x1b[1;92mbright\x1b[22;4;44mu\x1b[2mdim\x1b[mend');
    expect(spans).toEqual([
      { text: 'red', style: { fg: 1 } },
      { text: ' ', style: {} },
      { text: 'bright', style: { bold: true, fg: 10 } },
      { text: 'u', style: { fg: 10, underline: true, bg: 4 } },
      { text: 'dim', style: { fg: 10, underline: true, bg: 4, dim: true } },
      { text: 'end', style: {} },
    ]);
  });

  it('handles 256-colour and truecolor', () => {
    const [a, b] = parseAnsi('\x1b[38;5;208mo\x1b[48;2;10;20;300mt');
    expect(a!.style.fg).toBe(208);
    expect(cssColor(208)).toBe('#ff8700');
    expect(cssColor(244)).toBe('#808080');
    expect(b!.style.bg).toBe('#0a14ff');
    expect(cssColor(3)).toBe('var(--ansi-3)');
  });

  it('strips non-SGR escapes (cursor moves, OSC titles, erase line)', () => {
    const line = '\x1b]0;title\x07\x1b[2K\x1b[1Gdone \x1b[32mok\x1b[0m\x1b(B';
    expect(stripAnsi(line)).toBe('done ok');
    expect(parseAnsi(line).map((s) => s.text).join('')).toBe('done ok');
  });

  it('shows escapes visibly in raw mode', () => {
    expect(showEscapes('\x1b[31mx\x1b[0m\x07')).toBe('^[[31mx^[[0m^G');
  });

  it('maps styles to css, swapping on inverse', () => {
    expect(spanCss({ fg: 1, bold: true })).toEqual({ color: 'var(--ansi-1)', fontWeight: '700' });
    expect(spanCss({ fg: 1, inverse: true }).backgroundColor).toBe('var(--ansi-1)');
  });
});
