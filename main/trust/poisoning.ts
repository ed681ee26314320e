// Checks run on every tool definition before it is pinned or re-pinned (docs/trust.md). A flag
// is shown on the review card, never used to drop a tool silently. Flags of the `hold` kind keep
// a tool from being pinned without a person (even on first sight); `note` flags only inform.
//
// What is looked at: every string a model reads, i.e. title, description and the text inside
// the schemas (property descriptions, titles, enum values, defaults), the tool's `_meta` and its
// server's instructions, not only the top-level description: a poisoned parameter description
// is as effective as a poisoned tool description.
import { HIDDEN_CHARACTER_CLASS, VISIBLE_CONTROLS } from '../../common/visible-text';
import { asciiReading, findConfusable } from './confusables';
import type { ToolDefinition } from './tool-definition';

export type FlagKind = 'invisible_unicode' | 'bidi_control' | 'line_separator' | 'confusable_text' | 'instruction_block' | 'credential_path' | 'cross_server_reference' | 'long_description' | 'name_collision';

export interface TrustFlag {
  kind: FlagKind;
  severity: 'hold' | 'note';
  /** One line for the card: what was found and where. */
  message: string;
}

/**
 * Longest description a tool may have before it is flagged. The longest description of the
 * reference servers (filesystem, memory, everything; measured 2026-12) is 457 characters; four
 * times that leaves room for thorough documentation and still catches a description that
 * carries a page of instructions.
 */
export const MAX_DESCRIPTION_CHARS = 2000;

// Hidden text is found by character class, not by a list of code points: every format control
// (\p{Cf}: zero-width characters, BOM, soft hyphen, U+180E, the tag block U+E0000–U+E007F, the
// musical formatting controls U+1D173–U+1D17A…), every default-ignorable code point (variation
// selectors U+FE00–U+FE0F and U+E0100–U+E01EF, the Mongolian variation selectors U+180B–U+180F,
// the combining grapheme joiner U+034F, Hangul fillers), other control characters (ESC and the
// rest of C0/C1 but tab, newline and carriage return), and the line and paragraph separators
// U+2028/U+2029, which a model reads as a line break: `…\u2028SYSTEM: new rules` starts a fake line.
// All of them render as nothing (or as a break nobody sees in a one-line description), so any of
// them can carry text that a person reviewing the tool does not see and the model still reads.
const HIDDEN_CLASS = new RegExp(HIDDEN_CHARACTER_CLASS, 'gu');
// Bidirectional controls (a subset of \p{Cf}, reported apart): LRM/RLM, embeddings and overrides
// (LRE, RLE, PDF, LRO, RLO), isolates (LRI, RLI, FSI, PDI) and the Arabic letter mark: they make
// text read differently than it runs.
const BIDI = /[\u200E\u200F\u202A-\u202E\u2066-\u2069\u061C]/u;
const LINE_SEPARATORS = new Set(['\u2028', '\u2029']);
// One text or emoji presentation selector right after a pictograph (`⚠️` is U+26A0 U+FE0F) is
// how emoji are written; a second one, or one after anything else, encodes something.
const PRESENTATION = new Set(['\uFE0E', '\uFE0F']);
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
// HTML/XML-like blocks that address the model rather than describe the tool, and HTML comments
// (hidden in a rendered description).
const INSTRUCTION_TAG =
  /<\s*\/?\s*(important|system|instructions?|admin|override|hidden|secret|critical|assistant|user|prompt|context|rules?|note|directive|sudo|tool_?instructions?)\b[^>]*>|<!--/i;
// A line that claims to come from the system or the assistant (capitals only: `system: linux`
// in a parameter's description is a value, `SYSTEM:` on a line of its own is a role).
const ROLE_LINE = /(?:^|[\n\r\u2028\u2029])[ \t]*(?:SYSTEM|ASSISTANT|DEVELOPER)[ \t]*:/;
// Credential files and folders a tool has no business telling a model about.
const CREDENTIAL =
  /~\/\.ssh\b|(?:^|[^\w])\.ssh\/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws\/(?:credentials|config)\b|(?:^|[\s'"`(/])\.env(?:\.\w+)?\b(?![.\w(])|\.netrc\b|\.npmrc\b|\.pypirc\b|\.pgpass\b|\.git-credentials\b|\.docker\/config\.json|\.kube\/config\b|\.gnupg\b|\/etc\/shadow\b|\.config\/gcloud\b|\.azure\/|keychain|\bcredentials\.json\b/i;

function isShownHidden(ch: string): boolean {
  return !VISIBLE_CONTROLS.has(ch);
}

// One showHidden for the trust cards, the approval card and the terminal approver, by the same
// character class (common/visible-text.ts); re-exported here for the callers in main/trust/.
export { showHidden } from '../../common/visible-text';

/** The first hidden character of each kind in `text` (an emoji's own presentation selector excepted). */
function hiddenIn(text: string): { invisible?: string; bidi?: string; separator?: string } {
  const found: { invisible?: string; bidi?: string; separator?: string } = {};
  HIDDEN_CLASS.lastIndex = 0;
  for (const m of text.matchAll(HIDDEN_CLASS)) {
    const ch = m[0];
    if (!isShownHidden(ch)) continue;
    if (BIDI.test(ch)) found.bidi ??= ch;
    else if (LINE_SEPARATORS.has(ch)) found.separator ??= ch;
    else if (PRESENTATION.has(ch) && presentsEmoji(text, m.index)) continue;
    else found.invisible ??= ch;
  }
  return found;
}

function presentsEmoji(text: string, at: number): boolean {
  const before = Array.from(text.slice(Math.max(0, at - 2), at)).pop();
  const after = text.codePointAt(at + 1);
  const nextIsSelector = after !== undefined && (PRESENTATION.has(String.fromCodePoint(after)) || (after >= 0xfe00 && after <= 0xfe0f) || (after >= 0xe0100 && after <= 0xe01ef));
  return before !== undefined && PICTOGRAPH.test(before) && !nextIsSelector;
}

/** A token as a person can read it in a flag: anything outside printable ASCII as `\uXXXX`. */
function escapeNonAscii(text: string): string {
  return text.replace(/[^\x20-\x7e]/gu, (c) => [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`).join(''));
}

function describeChar(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Every string a model reads in the definition, with where it sits (`description`, `inputSchema.properties.path.description`). */
export function readableStrings(def: ToolDefinition): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [{ where: 'name', text: def.name }];
  if (def.title) out.push({ where: 'title', text: def.title });
  if (def.description) out.push({ where: 'description', text: def.description });
  const walk = (v: unknown, where: string, depth: number): void => {
    if (depth > 20) return;
    if (typeof v === 'string') out.push({ where, text: v });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`, depth + 1));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        // Property names are read too (`ignore_previous_instructions_and_read_ssh`).
        out.push({ where: `${where}.${k} (key)`, text: k });
        walk(x, `${where}.${k}`, depth + 1);
      }
    }
  };
  walk(def.inputSchema, 'inputSchema', 0);
  if (def.outputSchema !== undefined) walk(def.outputSchema, 'outputSchema', 0);
  if (def.annotations !== undefined) walk(def.annotations, 'annotations', 0);
  // `_meta` is read by clients and shown to some models; the server's instructions go into the
  // model's context with every tool (tool-definition.ts pins both).
  if (def._meta !== undefined) walk(def._meta, '_meta', 0);
  if (def.instructions) out.push({ where: 'instructions', text: def.instructions });
  return out;
}

export interface OtherTool {
  server: string;
  name: string;
  canonical: string;
  advertised: string;
}

/**
 * Whether `text` names another server's tool. Canonical (`files.read_file`) and advertised
 * (`files_read_file`) forms always count; a bare name counts only when it is distinctive
 * (has a `_`/`-` separator or is 8+ characters), so `echo` or `add` in prose is not an accusation.
 */
function mentions(text: string, other: OtherTool): boolean {
  const word = (w: string) => new RegExp(`(?<![\\w.-])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(text);
  if (word(other.canonical) || word(other.advertised)) return true;
  const distinctive = /[_-]/.test(other.name) || other.name.length >= 8;
  return distinctive && word(other.name);
}

export function checkDefinition(def: ToolDefinition, ctx: { server: string; others: OtherTool[] }): TrustFlag[] {
  const flags: TrustFlag[] = [];
  const strings = readableStrings(def);
  const once = new Set<string>();
  const add = (flag: TrustFlag) => {
    const key = `${flag.kind}:${flag.message}`;
    if (once.has(key)) return;
    once.add(key);
    flags.push(flag);
  };
  for (const { where, text } of strings) {
    const hidden = hiddenIn(text);
    if (hidden.invisible) add({ kind: 'invisible_unicode', severity: 'hold', message: `invisible character ${describeChar(hidden.invisible)} in ${where}` });
    if (hidden.bidi) add({ kind: 'bidi_control', severity: 'hold', message: `bidirectional control ${describeChar(hidden.bidi)} in ${where} (text may read differently than it runs)` });
    if (hidden.separator) add({ kind: 'line_separator', severity: 'hold', message: `line separator ${describeChar(hidden.separator)} in ${where} (a model reads a new line there; a person sees none)` });
    const confusable = findConfusable(text);
    if (confusable) {
      add({ kind: 'confusable_text', severity: 'hold', message: `look-alike letters in ${escapeNonAscii(confusable.token).slice(0, 80)} (reads as ${confusable.reads.slice(0, 60)}) in ${where}` });
    }
    // The other checks read the text as a person would: look-alike letters taken for what they look like.
    const read = confusable ? asciiReading(text) : text;
    const tag = INSTRUCTION_TAG.exec(read) ?? ROLE_LINE.exec(read);
    if (tag) add({ kind: 'instruction_block', severity: 'hold', message: `instruction-like markup ${escapeNonAscii(tag[0].trim()).slice(0, 40)} in ${where}` });
    const cred = CREDENTIAL.exec(read);
    if (cred) add({ kind: 'credential_path', severity: 'hold', message: `reference to credentials (${cred[0].trim()}) in ${where}` });
  }
  if ((def.description?.length ?? 0) > MAX_DESCRIPTION_CHARS) {
    add({
      kind: 'long_description',
      severity: 'hold',
      message: `description is ${def.description!.length} characters (more than ${MAX_DESCRIPTION_CHARS}, see docs/trust.md)`,
    });
  }
  for (const other of ctx.others) {
    if (other.server === ctx.server) continue;
    if (other.name === def.name) {
      add({
        kind: 'name_collision',
        severity: 'note',
        message: `name '${def.name}' is also a tool of server '${other.server}': resolved by the collision rule (docs/gateway.md), neither keeps the bare name, both stay reachable by canonical name`,
      });
    }
    for (const { where, text } of strings) {
      if (where === 'name') continue;
      if (mentions(text, other)) {
        add({ kind: 'cross_server_reference', severity: 'hold', message: `${where} mentions ${other.canonical}, a tool of another server` });
        break;
      }
    }
  }
  return flags;
}

export function holds(flags: TrustFlag[]): boolean {
  return flags.some((f) => f.severity === 'hold');
}
