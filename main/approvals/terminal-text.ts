// Text from an agent or a server, made safe and bounded for a terminal: control characters and
// bidi overrides escaped, long arguments and lines cut, so nothing it contains can redraw or
// push the question a person is answering off screen.
import { isObj } from './questions';

const LINE_CHARS = 160;

/** Pretty JSON, cut to a bounded size so a huge argument cannot push the question off screen. */
export function formatArgs(args: unknown, maxLines: number, maxChars: number): string {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? 'undefined';
  } catch {
    text = String(args);
  }
  return formatText(text, maxLines, maxChars);
}

/** Text from an agent or a server, escaped and cut like arguments (lines, characters, line length). */
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

/** One line, cut to LINE_CHARS with an ellipsis. */
export function cut(line: string): string {
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

/** One sampling message's content as text: text as is, anything else as a short placeholder. */
export function contentText(c: unknown): string {
  if (Array.isArray(c)) return c.map(contentText).join('\n');
  if (typeof c === 'string') return c;
  if (!isObj(c)) return '';
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
