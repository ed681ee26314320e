// A call's arguments as the rows the approval card shows: one row per value (its path, its
// JSON), with what a reader would miss flagged on that row (common/visible-text.ts). Rows rather
// than one pretty-printed block so a flag sits next to the value it is about, and so the card can
// tell which values have been on screen (seen-coverage.ts).
import { textFlags, type TextFlag } from '../../../common/visible-text';

export interface ArgumentRow {
  /** `path`, `options.mode`, `files[2]`, `["odd key"]`; empty for arguments that are not an object. */
  path: string;
  /** The value as JSON (a string in quotes, with JSON's escapes). */
  value: string;
  /** Found in the key path or in the value. */
  flags: TextFlag[];
}

/** Rows a card draws one by one; past this the rest is one block (still shown, still scrolled through). */
export const MAX_ROWS = 2000;
const MAX_DEPTH = 20;
const IDENT = /^[A-Za-z_$][\w$]*$/;

function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export function argumentRows(args: unknown): { rows: ArgumentRow[]; rest?: string } {
  const rows: ArgumentRow[] = [];
  const rest: Array<[string, unknown]> = [];
  const leaf = (path: string, keyFlags: TextFlag[], v: unknown) => {
    if (rows.length >= MAX_ROWS) {
      rest.push([path, v]);
      return;
    }
    const valueFlags = typeof v === 'string' ? textFlags(v) : [];
    rows.push({ path, value: json(v), flags: [...keyFlags.map((f) => ({ ...f, message: `key: ${f.message}` })), ...valueFlags] });
  };
  const walk = (v: unknown, path: string, keyFlags: TextFlag[], depth: number): void => {
    const container = v !== null && typeof v === 'object';
    const entries: Array<[string, unknown, boolean]> = !container
      ? []
      : Array.isArray(v)
        ? v.map((x, i) => [String(i), x, true])
        : Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, x, false]);
    if (!container || entries.length === 0 || depth >= MAX_DEPTH) return leaf(path, keyFlags, v);
    for (const [k, x, index] of entries) {
      const step = index ? `[${k}]` : IDENT.test(k) ? (path ? `.${k}` : k) : `[${JSON.stringify(k)}]`;
      walk(x, `${path}${step}`, index ? keyFlags : [...keyFlags, ...textFlags(k)], depth + 1);
    }
  };
  walk(args, '', [], 0);
  return rest.length ? { rows, rest: rest.map(([p, v]) => `${p} ${json(v)}`).join('\n') } : { rows };
}
