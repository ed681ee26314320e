// ANSI SGR parsing for server stderr (the Logs view): colours rendered, everything else that is
// an escape sequence stripped so a log line never moves a cursor or retitles a window.
// Covered: SGR 0/1/2/3/4/7/22/23/24/27/39/49, 30–37, 90–97, 40–47, 100–107, 38/48;5;n (256
// colours) and 38/48;2;r;g;b (truecolor). Other CSI, OSC (BEL or ST terminated), and lone ESC
// sequences are removed.

/** A colour: a palette index 0–255 (0–15 follow the theme) or a fixed `#rrggbb`. */
export type AnsiColor = number | string;

export interface AnsiStyle {
  fg?: AnsiColor;
  bg?: AnsiColor;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export interface AnsiSpan {
  text: string;
  style: AnsiStyle;
}

// CSI: ESC [ params intermediates final; OSC: ESC ] … (BEL | ESC \); other 2-byte ESC sequences.
// C1 CSI (\x9b) is rare in UTF-8 logs and is treated as text on purpose (it is a valid code point).
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[([0-?]*)([ -/]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]?/g;

/** True when the text holds no escape at all (the common case, a fast path). */
export function hasEscapes(text: string): boolean {
  return text.includes('\x1b');
}

/** Split a line into styled spans; non-SGR escapes are dropped. */
export function parseAnsi(text: string, initial: AnsiStyle = {}): AnsiSpan[] {
  if (!hasEscapes(text)) return text ? [{ text, style: initial }] : [];
  const spans: AnsiSpan[] = [];
  let style: AnsiStyle = { ...initial };
  let last = 0;
  ESCAPE.lastIndex = 0;
  for (let m = ESCAPE.exec(text); m; m = ESCAPE.exec(text)) {
    if (m.index > last) spans.push({ text: text.slice(last, m.index), style });
    last = ESCAPE.lastIndex;
    if (m[3] === 'm' && m[2] === '' && m[1] !== undefined) style = applySgr(style, m[1]);
  }
  if (last < text.length) spans.push({ text: text.slice(last), style });
  return mergeSpans(spans);
}

/** The text without any escapes (for search and copy). */
export function stripAnsi(text: string): string {
  if (!hasEscapes(text)) return text;
  ESCAPE.lastIndex = 0;
  return text.replace(ESCAPE, '');
}

/**
 * The Raw view: escapes made visible in caret notation (`^[[31m`), as `cat -v` shows them. The
 * control-picture symbols (␛) are missing from most monospace fonts, so they are not used.
 */
export function showEscapes(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === '\x7f' ? '^?' : `^${String.fromCharCode(0x40 + c.charCodeAt(0))}`));
}

function applySgr(prev: AnsiStyle, params: string): AnsiStyle {
  const s: AnsiStyle = { ...prev };
  // `ESC[m` is a reset; parameters may be `;` or (ITU T.416) `:` separated.
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (c === 0) {
      for (const k of Object.keys(s) as (keyof AnsiStyle)[]) delete s[k];
    } else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 7) s.inverse = true;
    else if (c === 22) {
      delete s.bold;
      delete s.dim;
    } else if (c === 23) delete s.italic;
    else if (c === 24) delete s.underline;
    else if (c === 27) delete s.inverse;
    else if (c >= 30 && c <= 37) s.fg = c - 30;
    else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
    else if (c === 39) delete s.fg;
    else if (c >= 40 && c <= 47) s.bg = c - 40;
    else if (c >= 100 && c <= 107) s.bg = c - 100 + 8;
    else if (c === 49) delete s.bg;
    else if (c === 38 || c === 48) {
      const key = c === 38 ? 'fg' : 'bg';
      const mode = codes[i + 1];
      if (mode === 5 && codes[i + 2] !== undefined) {
        const n = codes[i + 2]!;
        if (n >= 0 && n <= 255) s[key] = n;
        i += 2;
      } else if (mode === 2 && codes[i + 4] !== undefined) {
        const [r, g, b] = [codes[i + 2]!, codes[i + 3]!, codes[i + 4]!].map(clamp255);
        s[key] = `#${hex(r!)}${hex(g!)}${hex(b!)}`;
        i += 4;
      } else {
        i = codes.length; // malformed extended colour: ignore the rest, as terminals do
      }
    }
  }
  return s;
}

function mergeSpans(spans: AnsiSpan[]): AnsiSpan[] {
  const out: AnsiSpan[] = [];
  for (const sp of spans) {
    const prev = out[out.length - 1];
    if (prev && sameStyle(prev.style, sp.style)) prev.text += sp.text;
    else if (sp.text) out.push({ text: sp.text, style: sp.style });
  }
  return out;
}

function sameStyle(a: AnsiStyle, b: AnsiStyle): boolean {
  return a.fg === b.fg && a.bg === b.bg && !a.bold === !b.bold && !a.dim === !b.dim && !a.italic === !b.italic && !a.underline === !b.underline && !a.inverse === !b.inverse;
}

const clamp255 = (n: number): number => Math.max(0, Math.min(255, Number.isFinite(n) ? n : 0));
const hex = (n: number): string => n.toString(16).padStart(2, '0');

const CUBE = [0, 95, 135, 175, 215, 255];

/**
 * A CSS colour for a palette index or hex. 0–15 map to theme variables (`--ansi-0`…`--ansi-15`,
 * defined by the logs stylesheet for light and dark), 16–231 the 6×6×6 cube, 232–255 greys.
 */
export function cssColor(c: AnsiColor): string {
  if (typeof c === 'string') return c;
  if (c < 16) return `var(--ansi-${c})`;
  if (c < 232) {
    const i = c - 16;
    return `#${hex(CUBE[Math.floor(i / 36)]!)}${hex(CUBE[Math.floor(i / 6) % 6]!)}${hex(CUBE[i % 6]!)}`;
  }
  const g = 8 + (c - 232) * 10;
  return `#${hex(g)}${hex(g)}${hex(g)}`;
}

/** Inline style for a span; inverse swaps foreground and background. */
export function spanCss(style: AnsiStyle): Record<string, string> {
  const css: Record<string, string> = {};
  let fg = style.fg !== undefined ? cssColor(style.fg) : undefined;
  let bg = style.bg !== undefined ? cssColor(style.bg) : undefined;
  if (style.inverse) {
    [fg, bg] = [bg ?? 'var(--logs-bg, Canvas)', fg ?? 'var(--logs-fg, CanvasText)'];
  }
  if (fg) css.color = fg;
  if (bg) css.backgroundColor = bg;
  if (style.bold) css.fontWeight = '700';
  if (style.dim) css.opacity = '0.65';
  if (style.italic) css.fontStyle = 'italic';
  if (style.underline) css.textDecoration = 'underline';
  return css;
}
