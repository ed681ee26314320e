// The shapes a configured secret can take in text that reaches an agent, a log or the audit
// store (docs/security.md, "Secrets"): the value itself, the value JSON-escaped once or twice (a
// server that puts a JSON document in a text field), URL-encoded, and base64 at each of the three
// byte alignments it can start at inside a longer base64 blob. The Redactor matches all of them
// with one regular expression, longest first.

/** Base64 of a secret is matched only when this many characters depend on the secret alone: shorter runs occur by chance in images. */
export const MIN_BASE64_CORE = 12;

/** The text of a JSON string literal without its quotes: what `value` looks like inside JSON text. */
export function jsonEscaped(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/**
 * The base64 characters that only the secret's bytes decide, for the secret starting at byte
 * offset 0, 1 and 2 of a 3-byte group (standard and URL-safe alphabets). A character covers 6
 * bits; with `k` bytes before the secret, characters ⌈8k/6⌉ … ⌊8(k+n)/6⌋−1 cover secret bits only.
 */
export function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const padded = Buffer.concat([Buffer.alloc(k), bytes]);
    const encoded = padded.toString('base64');
    const start = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * (k + bytes.length)) / 6);
    const core = encoded.slice(start, end);
    if (core.length < MIN_BASE64_CORE) continue;
    out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/** Every form of `value` worth matching, without duplicates (the value itself first). */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value]);
  const once = jsonEscaped(value);
  forms.add(once);
  forms.add(jsonEscaped(once));
  const url = encodeURIComponent(value);
  forms.add(url);
  forms.add(url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  forms.add(url.replace(/%20/g, '+'));
  for (const b of base64Cores(value)) forms.add(b);
  return [...forms];
}

// Escape sequences a terminal or the Logs view renders as nothing: CSI (colours, cursor moves),
// OSC (titles, hyperlinks) ended by BEL or ST, and the two-character ESC forms. A secret with
// `\x1b[0m` between two of its characters shows whole on screen yet is no longer one substring.
// eslint-disable-next-line no-control-regex -- matching ESC and BEL is the point
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// Characters that render as nothing, so they too can split a secret a reader still sees whole.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
// eslint-disable-next-line no-control-regex -- ESC is what may split a secret
const MAY_HIDE = /[\u001b\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

/** Whether `text` holds a character that could split a secret without showing (ESC, a format control). */
export function mayHideSplit(text: string): boolean {
  return MAY_HIDE.test(text);
}

/** `text` without ANSI escape sequences and invisible format characters. */
export function withoutHiddenSplits(text: string): string {
  return text.replace(ANSI, '').replace(INVISIBLE, '');
}
