// Canonical JSON and action fingerprints. A remembered "allow for this session" grant is bound
// to a fingerprint, so two calls share one only when the tool and the arguments are the same
// value, whatever order the client wrote the keys in.
import { createHash } from 'node:crypto';

/**
 * Canonical JSON text of a JSON-compatible value, in the manner of RFC 8785 (JCS) for what
 * JSON.parse can produce: object keys sorted by UTF-16 code units, recursively; no whitespace;
 * numbers and strings serialised as ECMAScript JSON.stringify does (which is what JCS specifies).
 * Like JSON.stringify: `toJSON` is honoured, `undefined`/functions/symbols are dropped from
 * objects and become `null` in arrays, non-finite numbers become `null`, and a top-level
 * `undefined` (a call with no arguments) is `null`. Cycles and bigints throw a TypeError.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set()) ?? 'null';
}

/** SHA-256 hex of `tool + "\n" + canonicalJson(args)`. */
export function actionFingerprint(tool: string, args: unknown): string {
  return sha256Hex(`${tool}\n${canonicalJson(args)}`);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function write(value: unknown, seen: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      throw new TypeError('canonicalJson: a bigint has no JSON form');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (seen.has(obj)) throw new TypeError('canonicalJson: the value contains a cycle');
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return `[${obj.map((v) => write(v, seen) ?? 'null').join(',')}]`;
    const parts: string[] = [];
    // Default sort compares UTF-16 code units, which is exactly the JCS key order.
    for (const key of Object.keys(obj).sort()) {
      const text = write((obj as Record<string, unknown>)[key], seen);
      if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    seen.delete(obj);
  }
}
