// Limits every JSON-RPC text is held to before it is parsed and passed on, on both sides of the
// gateway (agent → gateway, server → gateway; stdio and HTTP alike):
//
//  - Nesting depth. A 10,000-deep value parses (V8's JSON.parse is iterative) but then blows the
//    stack of everything recursive after it (JSON.stringify, schema checks, redaction), which
//    showed up as "-32603 Maximum call stack size exceeded" or, for a server's result, as no
//    answer at all. The depth is counted on the raw text, before anything recursive runs.
//  - Exact ids. JSON numbers become IEEE doubles, so `9007199254740993` or `1e30` would be
//    answered (and audited) as a different id: the client never sees its answer. An id the
//    gateway cannot carry exactly is refused, and answered with the id's raw text as sent.
//
// The scan is linear and allocation-free; a text with fewer opening brackets than the limit
// (nearly every message) skips the depth scan altogether.

/** Deepest nesting accepted, counting every `{` and `[` (the JSON-RPC envelope is level 1). */
export const MAX_JSON_DEPTH = 128;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

export interface JsonScan {
  /** Deepest nesting seen (stops counting just past the limit). */
  depth: number;
  /** The raw text of the top-level `"id"` member's value (a number or string token), when present. */
  rawId?: string;
  /** The top-level object has a `result` or `error` member (it is a response). */
  response: boolean;
}

/** True when `text` may nest deeper than `max` (cheap: counts opening brackets with indexOf). */
function mayExceed(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > max) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > max) return true;
  return false;
}

/** One pass over a JSON text (valid or not): its nesting depth, and the top-level id token. */
export function scanJson(text: string): JsonScan {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  let stringStart = -1;
  let lastKey: string | undefined;
  let expectValueFor: string | undefined;
  let rawId: string | undefined;
  let response = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (depth === 1) {
          const value = text.slice(stringStart, i + 1);
          if (expectValueFor === 'id') rawId = value;
          else if (expectValueFor === undefined) lastKey = value;
          expectValueFor = undefined;
        }
      }
      continue;
    }
    switch (c) {
      case QUOTE:
        inString = true;
        stringStart = i;
        continue;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        depth++;
        if (depth > deepest) deepest = depth;
        if (depth === 2) expectValueFor = undefined;
        continue;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        depth--;
        continue;
      case COLON:
        if (depth === 1 && lastKey !== undefined) {
          const key = lastKey.length < 12 ? lastKey : '';
          if (key === '"result"' || key === '"error"') response = true;
          expectValueFor = key === '"id"' ? 'id' : '';
          lastKey = undefined;
        }
        continue;
      case COMMA:
        if (depth === 1) expectValueFor = undefined;
        continue;
      default:
        if (depth === 1 && expectValueFor === 'id' && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
          let j = i + 1;
          while (j < n && /[0-9eE.+-]/.test(text[j]!)) j++;
          rawId = text.slice(i, j);
          expectValueFor = undefined;
          i = j - 1;
        }
    }
  }
  return { depth: deepest, response, ...(rawId !== undefined ? { rawId } : {}) };
}

/** Why `text` is refused before parsing (too deep), or undefined. Cheap for ordinary messages. */
export function depthProblem(text: string, maxDepth = MAX_JSON_DEPTH): JsonScan | undefined {
  if (!mayExceed(text, maxDepth)) return undefined;
  const scan = scanJson(text);
  return scan.depth > maxDepth ? scan : undefined;
}

export function depthReason(maxDepth = MAX_JSON_DEPTH): string {
  return `JSON nested deeper than ${maxDepth} levels (the gateway's limit); refused before parsing`;
}

/**
 * Whether a numeric id token denotes exactly the double JSON.parse made of it. Decimal
 * arithmetic on the token's digits (BigInt), so no rounding hides the answer.
 */
export function numericIdExact(token: string, parsed: number): boolean {
  if (!Number.isSafeInteger(parsed)) return false;
  if (/^-?(0|[1-9][0-9]*)$/.test(token)) return true; // plain integer in the safe range
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!m) return false;
  const frac = m[3] ?? '';
  let digits = (m[2]! + frac).replace(/^0+(?=\d)/, '');
  let exp = Number(m[4] ?? '0') - frac.length;
  while (exp < 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exp++;
  }
  if (digits === '0') return parsed === 0;
  if (exp < 0 || exp > 20) return false; // a fraction, or beyond any safe integer
  const value = BigInt(digits) * 10n ** BigInt(exp);
  return (m[1] === '-' ? -value : value) === BigInt(parsed);
}

/**
 * For a parsed message whose `id` is a number: undefined when the id is carried exactly,
 * else the raw id token (to answer with) and why it is refused.
 */
export function inexactId(text: string, value: unknown): { rawId: string; reason: string } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const id = (value as { id?: unknown }).id;
  if (typeof id !== 'number') return undefined;
  // Fast path: the first `"id":` token is the plain integer the parse produced.
  const quick = /"id"\s*:\s*(-?[0-9][0-9eE.+-]*)/.exec(text);
  if (quick && quick[1] === String(id) && Number.isSafeInteger(id)) return undefined;
  const raw = scanJson(text).rawId ?? String(id);
  if (numericIdExact(raw, id)) return undefined;
  return {
    rawId: raw,
    reason: `id ${raw} cannot be carried exactly (JSON-RPC ids must be strings or integers within ±${Number.MAX_SAFE_INTEGER})`,
  };
}

/** A JSON-RPC error response text carrying `rawId` exactly as the peer wrote it. */
export function errorResponseText(rawId: string | undefined, code: number, message: string): string {
  const id = rawId !== undefined && isIdToken(rawId) ? rawId : 'null';
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code, message })}}`;
}

/** A number or string token, safe to splice into JSON text as is. */
export function isIdToken(raw: string): boolean {
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(raw)) return true;
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    try {
      return typeof JSON.parse(raw) === 'string';
    } catch {
      return false;
    }
  }
  return false;
}
