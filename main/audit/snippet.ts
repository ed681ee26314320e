// The part of a matching audit row that contains the search text, for the Audit view to show
// with the match highlighted. The store's search is `LIKE '%text%'` over a few columns (ASCII
// case-insensitive, as SQLite's LIKE is); this finds the same occurrence in the same columns.

export interface Snippet {
  /** Which column matched (`message`, `method`, `args`…). */
  field: string;
  /** A window of that column's text around the match (with … where it was cut). */
  text: string;
  /** The match within `text`: [start, end). */
  start: number;
  end: number;
}

/** Characters kept either side of the match. */
const CONTEXT = 48;

/** ASCII-only lower-casing: LIKE folds only A–Z, and offsets must not move (ß, İ would). */
const foldAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

/**
 * The first field (in the order given) whose text contains `query`, with `context` characters
 * around the match; undefined when none does (or the query is empty).
 */
export function findSnippet(fields: ReadonlyArray<readonly [string, unknown]>, query: string, context = CONTEXT): Snippet | undefined {
  const q = foldAscii(query);
  if (!q) return undefined;
  for (const [field, value] of fields) {
    const text = asText(value);
    if (!text) continue;
    const at = foldAscii(text).indexOf(q);
    if (at < 0) continue;
    const from = Math.max(0, at - context);
    const to = Math.min(text.length, at + q.length + context);
    const head = from > 0 ? '…' : '';
    // Line breaks and tabs become spaces one for one, so the offsets stay those of the column.
    const body = text.slice(from, to).replace(/[\r\n\t]/g, ' ');
    const start = head.length + (at - from);
    return { field, text: `${head}${body}${to < text.length ? '…' : ''}`, start, end: start + q.length };
  }
  return undefined;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
}
