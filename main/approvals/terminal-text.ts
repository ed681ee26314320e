// Text from an agent or a server, made safe for a terminal: control characters, bidi controls
// and invisible characters escaped, so nothing it contains can redraw, reorder or hide part of
// the question a person is answering. What a person approves is shown whole, wrapped and paged
// (fullLines, tty-approver.ts); questions' messages are still cut (formatText).
import { showHidden, textFlags } from '../../common/visible-text';
import { isObject } from '../base/is-object';

const LINE_CHARS = 160;

/** A server's question text, escaped and cut (lines, characters, line length): a question is answered, not approved. */
export function formatText(text: string, maxLines: number, maxChars: number): string {
  const all = sanitize(text, false).split('\n');
  const out: string[] = [];
  let used = 0;
  for (const line of all) {
    const c = cut(line);
    if (out.length >= maxLines || used + c.length > maxChars) break;
    out.push(c);
    used += c.length + 1;
  }
  if (out.length < all.length) out.push(`… (${all.length - out.length} more lines)`);
  return out.join('\n');
}

/** Marks a line the terminal approver wrapped: the text after it continues the line above. */
export const CONTINUED = '↪ ';

/**
 * Every character of `text`, escaped (controls, bidi controls, invisible characters as
 * `\uXXXX`) and wrapped to `width` columns: nothing cut, nothing reordered. A wrapped line goes
 * on after CONTINUED. Width counts code points; wide (CJK) characters may overflow a narrow
 * terminal, which wraps them itself rather than hiding them.
 */
export function fullLines(text: string, width: number): string[] {
  const w = Math.max(20, width - CONTINUED.length);
  const out: string[] = [];
  for (const line of sanitize(showHidden(text), false).split('\n')) {
    const chars = [...line];
    out.push(chars.slice(0, w).join(''));
    for (let i = w; i < chars.length; i += w) out.push(CONTINUED + chars.slice(i, i + w).join(''));
  }
  return out;
}

/** Pretty JSON of a call's arguments, whole (fullLines). */
export function fullArgs(args: unknown, width: number): string[] {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? 'undefined';
  } catch {
    text = String(args);
  }
  return fullLines(text, width);
}

/** What a reader of the arguments would miss, one line per value (`path: bidi control U+202E`). */
export function argFlags(args: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, where: string, depth: number): void => {
    if (depth > 20 || out.length >= 50) return;
    if (typeof v === 'string') for (const f of textFlags(v)) out.push(`${where || 'value'}: ${f.message}`);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const at = Array.isArray(v) ? `${where}[${k}]` : where ? `${where}.${k}` : k;
        for (const f of textFlags(k)) out.push(`${at} (key): ${f.message}`);
        walk(x, at, depth + 1);
      }
    }
  };
  walk(args, '', 0);
  return out.map((l) => sanitize(showHidden(l), true));
}

/** One line, cut to LINE_CHARS with an ellipsis. */
export function cut(line: string): string {
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

/** One sampling message's content as text: text as is, anything else as a short placeholder. */
export function contentText(c: unknown): string {
  if (Array.isArray(c)) return c.map(contentText).join('\n');
  if (typeof c === 'string') return c;
  if (!isObject(c)) return '';
  if (c.type === 'text' && typeof c.text === 'string') return c.text;
  return `[${typeof c.type === 'string' ? c.type : 'content'}${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`;
}

export function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * Arguments and names come from an agent or a server: escape control characters (C0, C1,
 * DEL) and bidi overrides so nothing can move the cursor, recolour or reorder the prompt and
 * make a person approve something other than what they read.
 */
export function sanitize(text: string, singleLine: boolean): string {
  // Matching control characters is the point here, hence the lint exemption.
  const re = singleLine ? /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g : /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g; // eslint-disable-line no-control-regex
  return text.replace(re, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function indent(text: string, pad: string): string {
  return text.split('\n').join(`\n${pad}`);
}
