// Look-alike text by Unicode TR39 skeletons (https://www.unicode.org/reports/tr39/#Confusable_Detection):
// skeleton(X) = NFD(each character of NFD(X) replaced by its prototype in confusables.txt). The
// table is the `unhomoglyph` package's data.json, confusables.txt 13.0.0 as a map of 6311
// characters to their prototypes. A token whose skeleton is plain ASCII but which is not ASCII
// itself (`~/.ѕѕh/id_гsa` with Cyrillic dze and ghe reads as `~/.ssh/id_rsa`) is the classic
// way to name a credential file, a tool or an `<IMPORTANT>` tag past a check that compares text.
//
// What is not flagged, so ordinary non-English text passes: a token with a letter that has no
// ASCII look-alike (a Greek or Russian word mostly does: λ, ж, ή after NFD); accented Latin
// (`café`: NFD leaves the accent, a mark, and `e`); Latin letters of other alphabets whose
// prototype is ASCII (Turkish `ı`); and a token written wholly in another script inside text
// that is mostly in that script (a Greek sentence's `Ο`). A whole token of look-alikes in text
// that is mostly Latin (`ѕѕh` in an English description) is flagged: that is the attack.
import { createRequire } from 'node:module';

// Loaded on first use (130 KB of JSON), through require as main/agents/pty-backend.ts does: the
// host bundles keep npm packages external, and a bare JSON import needs import attributes on Node 20.
let table: Record<string, string> | undefined;
const prototypes = (): Record<string, string> => (table ??= createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>);
const ASCII_ONLY = /^[\x20-\x7e\t\n\r]*$/;
const ASCII_PRINTABLE = /^[\x21-\x7e]+$/;
const LETTER = /\p{L}/u;
const LATIN = /\p{Script=Latin}/u;
const ASCII_LETTER = /[A-Za-z]/;
const UPPER = /\p{Lu}/u;

/** The TR39 skeleton of `text`. */
export function skeleton(text: string): string {
  const map = prototypes();
  let out = '';
  for (const ch of text.normalize('NFD')) out += map[ch] ?? ch;
  return out.normalize('NFD');
}

/** `text` with each non-ASCII character that has an ASCII prototype replaced by it: what a reader takes it for. */
export function asciiReading(text: string): string {
  const map = prototypes();
  let out = '';
  for (const ch of text.normalize('NFD')) {
    let proto = ch.charCodeAt(0) < 0x80 ? undefined : map[ch]?.normalize('NFD');
    // TR39 folds capital I into the prototype `l`; a capital look-alike reads as the capital.
    if (proto === 'l' && UPPER.test(ch)) proto = 'I';
    out += proto !== undefined && ASCII_PRINTABLE.test(proto) ? proto : ch;
  }
  return out;
}

type LetterKind = 'ascii' | 'lookalike' | 'neutral' | 'genuine';

/**
 * ascii: A–Z, a–z. lookalike: another script's letter (or a compatibility form such as fullwidth
 * or mathematical letters) drawn like ASCII. neutral: a Latin letter of another alphabet whose
 * prototype happens to be ASCII (`ı`). genuine: a letter with no ASCII look-alike.
 */
function letterKind(ch: string): LetterKind {
  if (ch.length === 1 && ch.charCodeAt(0) < 0x80) return 'ascii';
  const proto = skeleton(ch);
  if (!ASCII_PRINTABLE.test(proto)) return 'genuine';
  if (!LATIN.test(ch) || ASCII_PRINTABLE.test(ch.normalize('NFKC'))) return 'lookalike';
  return 'neutral';
}

export interface Confusable {
  /** The token as written. */
  token: string;
  /** What it reads as. */
  reads: string;
}

/** Whether letters of scripts other than Latin outnumber Latin ones (the text is not English-like). */
function mostlyNonLatin(text: string): boolean {
  let latin = 0;
  let other = 0;
  for (const ch of text) {
    if (!LETTER.test(ch)) continue;
    if (LATIN.test(ch)) latin++;
    else other++;
  }
  return other > latin;
}

/** The first token of `text` that disguises an ASCII word with look-alike letters, if any. */
export function findConfusable(text: string): Confusable | undefined {
  if (ASCII_ONLY.test(text)) return undefined;
  let foreignText: boolean | undefined;
  for (const token of text.split(/\s+/)) {
    if (token === '' || ASCII_ONLY.test(token)) continue;
    let lookalike = false;
    let ascii = false;
    let genuine = false;
    for (const ch of token.normalize('NFD')) {
      if (!LETTER.test(ch)) continue;
      const kind = letterKind(ch);
      if (kind === 'genuine') {
        genuine = true;
        break;
      }
      if (kind === 'lookalike') lookalike = true;
      else if (kind === 'ascii') ascii = ASCII_LETTER.test(ch) || ascii;
    }
    if (genuine || !lookalike) continue;
    // Mixed with ASCII letters in one token, or a whole look-alike word in Latin text.
    if (!ascii && (foreignText ??= mostlyNonLatin(text))) continue;
    return { token, reads: asciiReading(token) };
  }
  return undefined;
}
