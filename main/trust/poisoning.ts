// Checks run on every tool definition before it is pinned or re-pinned (docs/trust.md). A flag
// is shown on the review card, never used to drop a tool silently. Flags of the `hold` kind keep
// a tool from being pinned without a person (even on first sight); `note` flags only inform.
//
// What is looked at: every string a model reads, i.e. title, description and the text inside
// the schemas (property descriptions, titles, enum values, defaults), not only the top-level
// description: a poisoned parameter description is as effective as a poisoned tool description.
import type { ToolDefinition } from './tool-definition';

export type FlagKind = 'invisible_unicode' | 'bidi_control' | 'instruction_block' | 'credential_path' | 'cross_server_reference' | 'long_description' | 'name_collision';

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

// Zero-width and other invisible format characters (U+200B–U+200D, U+2060–U+2064, BOM, soft
// hyphen, Mongolian vowel separator, Hangul fillers) and the Unicode tag block (U+E0000–U+E007F),
// which renders as nothing and can spell ASCII text a model still reads.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200D\u2060-\u2064\uFEFF\u115F\u1160\u3164\uFFA0]|[\u{E0000}-\u{E007F}]/u;
// Bidirectional controls: LRM/RLM, embeddings and overrides (LRE, RLE, PDF, LRO, RLO), isolates
// (LRI, RLI, FSI, PDI) and the Arabic letter mark: they make text read differently than it runs.
const BIDI = /[\u200E\u200F\u202A-\u202E\u2066-\u2069\u061C]/u;
// HTML/XML-like blocks that address the model rather than describe the tool, and HTML comments
// (hidden in a rendered description).
const INSTRUCTION_TAG =
  /<\s*\/?\s*(important|system|instructions?|admin|override|hidden|secret|critical|assistant|user|prompt|context|rules?|note|directive|sudo|tool_?instructions?)\b[^>]*>|<!--/i;
// Credential files and folders a tool has no business telling a model about.
const CREDENTIAL =
  /~\/\.ssh\b|(?:^|[^\w])\.ssh\/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws\/(?:credentials|config)\b|(?:^|[\s'"`(/])\.env(?:\.\w+)?\b(?![.\w(])|\.netrc\b|\.npmrc\b|\.pypirc\b|\.pgpass\b|\.git-credentials\b|\.docker\/config\.json|\.kube\/config\b|\.gnupg\b|\/etc\/shadow\b|\.config\/gcloud\b|\.azure\/|keychain|\bcredentials\.json\b/i;

// One implementation for the trust cards, the approval card and the terminal approver
// (common/visible-text.ts); re-exported here for the callers in main/trust/.
export { showHidden } from '../../common/visible-text';

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
    const inv = INVISIBLE.exec(text);
    if (inv) add({ kind: 'invisible_unicode', severity: 'hold', message: `invisible character ${describeChar(inv[0])} in ${where}` });
    const bidi = BIDI.exec(text);
    if (bidi) add({ kind: 'bidi_control', severity: 'hold', message: `bidirectional control ${describeChar(bidi[0])} in ${where} (text may read differently than it runs)` });
    const tag = INSTRUCTION_TAG.exec(text);
    if (tag) add({ kind: 'instruction_block', severity: 'hold', message: `instruction-like markup ${tag[0].slice(0, 40)} in ${where}` });
    const cred = CREDENTIAL.exec(text);
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
