// Text a person approves or pins, made to show what it is: characters that render as nothing
// or reorder what is around them written as `\uXXXX`, and flags for what a reader would miss
// (a bidi control, an invisible character, a word mixing scripts such as Latin `n` with Cyrillic
// `о`). One table for the host (trust cards in main/trust/, the terminal approver in
// main/approvals/terminal-text.ts) and the window (renderer/views/approvals/argument-list.tsx):
// what the terminal shows and what the card shows cannot drift apart.
//
// This file imports nothing: common/ stands alone (ARCHITECTURE.md, "Processes and layers").

// Hidden by character class, not by list: every format character (\p{Cf}: zero-width characters,
// BOM, soft hyphen, bidi controls, the tag block U+E0000–U+E007F, the musical formatting controls
// U+1D173–U+1D17A…), every default-ignorable code point (variation selectors U+FE00–U+FE0F and
// U+E0100–U+E01EF, the Mongolian variation selectors U+180B–U+180F, the combining grapheme joiner
// U+034F, Hangul fillers), every control character but tab, newline and carriage return (ESC, the
// rest of C0/C1), and the line and paragraph separators U+2028/U+2029, which a model reads as a
// line break. All of them render as nothing (or as a break nobody sees), so any of them can carry
// text a person does not see. main/trust/poisoning.ts flags definitions by the same class.
export const HIDDEN_CHARACTER_CLASS = '[\\p{Cf}\\p{Default_Ignorable_Code_Point}\\p{Cc}\\u2028\\u2029]';
/** Controls that are text as they are (shown as the line structure they make). */
export const VISIBLE_CONTROLS: ReadonlySet<string> = new Set(['\t', '\n', '\r']);
// Bidirectional controls (a subset of \p{Cf}, named apart): LRM/RLM, embeddings and overrides
// (LRE, RLE, PDF, LRO, RLO), isolates (LRI, RLI, FSI, PDI) and the Arabic letter mark: they make
// text read differently than it runs.
const BIDI_CLASS = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';

const HIDDEN = new RegExp(HIDDEN_CHARACTER_CLASS, 'gu');
const BIDI = new RegExp(`[${BIDI_CLASS}]`, 'u');

/** `U+202E` for a character (its code point, not its UTF-16 units). */
export function codePointName(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The `\uXXXX` spelling of a hidden character (UTF-16 units, so JSON stays valid). */
function escapeUnits(c: string): string {
  return [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`).join('');
}

export type VisiblePart = { text: string } | { hidden: string; shown: string; code: string; bidi: boolean };

/**
 * `oneLine`: for text that is one line by nature (a resource URI, a prompt or tool name on a card's
 * title, a reason): tab, newline and carriage return are hidden characters too, written `\t`, `\n`,
 * `\r`, so a newline cannot fake a second line under the title.
 */
export interface VisibleOptions {
  oneLine?: boolean;
}

const LINE_CONTROL_SHOWN: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** The text cut at each hidden character, for a renderer that marks them (a `<mark>` per part). */
export function splitHidden(text: string, opts: VisibleOptions = {}): VisiblePart[] {
  const out: VisiblePart[] = [];
  let last = 0;
  for (const m of text.matchAll(HIDDEN)) {
    const line = VISIBLE_CONTROLS.has(m[0]);
    if (line && !opts.oneLine) continue;
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ hidden: m[0], shown: line ? LINE_CONTROL_SHOWN[m[0]]! : escapeUnits(m[0]), code: codePointName(m[0]), bidi: BIDI.test(m[0]) });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/**
 * Invisible and bidirectional characters written as `\uXXXX` (UTF-16 units, so the result is
 * still valid JSON where the input was): a person sees them, and a bidi control cannot reorder
 * the text around it on a review card, in a diff or on a terminal.
 */
export function showHidden(text: string, opts: VisibleOptions = {}): string {
  return text.replace(HIDDEN, (c) => (VISIBLE_CONTROLS.has(c) ? (opts.oneLine ? LINE_CONTROL_SHOWN[c]! : c) : escapeUnits(c)));
}

// Scripts whose letters pass for Latin ones (Unicode TR39 confusables: Cyrillic `о`, Greek `ο`,
// Armenian `օ`, Cherokee `Ꭺ`…) and the big others, so a word mixing two of them is named. Letters
// of any other script count as "other". Japanese (Han + kana) and Korean (Han + Hangul) mix
// scripts within a word by design, so those pairs are not flagged.
const SCRIPTS: Array<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
  ['Georgian', /\p{Script=Georgian}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Han', /\p{Script=Han}/u],
  ['Hiragana', /\p{Script=Hiragana}/u],
  ['Katakana', /\p{Script=Katakana}/u],
  ['Hangul', /\p{Script=Hangul}/u],
];
const CJK = new Set(['Han', 'Hiragana', 'Katakana', 'Hangul']);
const WORD = /[\p{L}\p{M}\u200B-\u200D\u2060\uFEFF]+/gu;

// Characters already looked up: the script tests cost ~0.6 µs a character, 20 ms on a 32 KB
// Cyrillic value, and a flood of 48 such cards is 1 s of a window's main thread (measured).
const known = new Map<string, string | undefined>();

function scriptOf(ch: string): string | undefined {
  // ASCII first: most arguments are ASCII.
  if (ch < '\u0080') return /[A-Za-z]/.test(ch) ? 'Latin' : undefined;
  if (known.has(ch)) return known.get(ch);
  if (known.size > 4096) known.clear();
  const s = lookUpScript(ch);
  known.set(ch, s);
  return s;
}

function lookUpScript(ch: string): string | undefined {
  // Letters shared by scripts (Common: the kana length mark ー; Inherited: combining marks) count for none.
  if (!/\p{L}/u.test(ch) || /[\p{Script=Common}\p{Script=Inherited}]/u.test(ch)) return undefined;
  for (const [name, re] of SCRIPTS) if (re.test(ch)) return name;
  return 'other';
}

export interface TextFlag {
  kind: 'bidi_control' | 'invisible' | 'mixed_script' | 'line_break';
  /** One line for a badge: what was found (`bidi control U+202E`, `Latin + Cyrillic in "nоtes"`). */
  message: string;
}

/** What a reader of `text` would miss: bidi controls, invisible characters, words mixing scripts. */
export function textFlags(text: string, opts: VisibleOptions = {}): TextFlag[] {
  const flags: TextFlag[] = [];
  const bidi = new Set<string>();
  const invisible = new Set<string>();
  const breaks = new Set<string>();
  for (const part of splitHidden(text, opts)) if ('hidden' in part) (part.bidi ? bidi : VISIBLE_CONTROLS.has(part.hidden) ? breaks : invisible).add(part.code);
  if (bidi.size) flags.push({ kind: 'bidi_control', message: `bidi control ${[...bidi].join(', ')}: the text reads differently than it runs` });
  if (invisible.size) flags.push({ kind: 'invisible', message: `invisible character ${[...invisible].join(', ')}` });
  if (breaks.size) flags.push({ kind: 'line_break', message: `line break ${[...breaks].join(', ')} in one line: it can fake a second line` });
  for (const m of text.matchAll(WORD)) {
    // Per script: how many letters, and the first few distinct ones (a word can be 32 KB long).
    const scripts = new Map<string, { count: number; chars: Set<string> }>();
    for (const ch of m[0]) {
      const s = scriptOf(ch);
      if (!s) continue;
      const seen = scripts.get(s) ?? { count: 0, chars: new Set<string>() };
      seen.count++;
      if (seen.chars.size < 3) seen.chars.add(ch);
      scripts.set(s, seen);
    }
    const names = [...scripts.keys()];
    if (names.length < 2 || names.every((n) => CJK.has(n))) continue;
    // The letters of the scripts the word has fewest of are the ones passing for others: name them.
    const [, ...odd] = [...scripts.entries()].sort((a, b) => b[1].count - a[1].count);
    const named = odd.flatMap(([script, { chars }]) => [...chars].map((c) => `${c} ${codePointName(c)} ${script}`));
    flags.push({ kind: 'mixed_script', message: `mixed scripts ${names.join(' + ')} in "${showHidden(m[0])}" (${named.join(', ')})` });
    break;
  }
  return flags;
}
