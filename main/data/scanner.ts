// The one scanning step every argument and every result crosses (docs/data.md): the strings of
// a JSON value (keys included) are searched for configured secrets (the profile's Redactor, in
// every form main/secrets/secret-forms.ts lists) and for credentials in common formats
// (./credential-rules.ts). All strings are joined into one text so secretlint runs once per
// value, not once per string; NUL separates them (no rule's pattern crosses a NUL). A finding
// says where (JSON path, range) and which rule, never what.
import type { z } from 'zod';
import type { DataFindingSchema } from '../../common/host-api-shapes';
import type { Redactor } from '../secrets/redactor';
import { findCredentials, mayHoldCredential } from './credential-rules';

export type DataFinding = z.infer<typeof DataFindingSchema>;
export type DataDirection = DataFinding['direction'];

interface Leaf {
  path: string;
  text: string;
  /** Offset of `text` in the joined text. */
  at: number;
}

const SEPARATOR = '\u0000';
const MAX_DEPTH = 256;

function keyPath(base: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

/** The strings of a JSON value with their paths (a key's own text is at `<path>{key}`). */
function leaves(value: unknown): Leaf[] {
  const out: Leaf[] = [];
  let at = 0;
  const push = (path: string, text: string) => {
    out.push({ path, text, at });
    at += text.length + SEPARATOR.length;
  };
  const walk = (v: unknown, path: string, depth: number) => {
    if (typeof v === 'string') push(path, v);
    else if (v === null || typeof v !== 'object' || depth > MAX_DEPTH) return;
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
    else
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        const p = keyPath(path, k);
        push(`${p}{key}`, k);
        walk(item, p, depth + 1);
      }
  };
  walk(value, '$', 0);
  return out;
}

/** Whether any string of `value` could hold a credential (the rules' prefilter, per string, no secretlint). */
export function mayHoldCredentials(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return mayHoldCredential(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (mayHoldCredentials(value[i], depth + 1)) return true;
    return false;
  }
  // for…in, not Object.entries: this runs on every message, and the entries were an array per object.
  const obj = value as Record<string, unknown>;
  for (const k in obj) if (Object.hasOwn(obj, k) && (mayHoldCredential(k) || mayHoldCredentials(obj[k], depth + 1))) return true;
  return false;
}

// The prefilter's "nothing here" verdicts, by object: a message is cleared once and the verdict
// travels with it (docs/data.md "Every message toward the agent"). The tap clears a server's
// answer as it arrives (traffic-screen.ts), and its result is then known clear to the call
// pipeline's scan and, once that scan cleared it, to the outbound screen and the tap's record of
// the answer toward the agent; before, each of them ran the prefilter over the same strings.
// Sound because a message is never changed once it crossed a transport (masking and redaction
// make copies), and a verdict is only ever "clear": a candidate is looked at every time.
const clear = new WeakSet<object>();

/** mayHoldCredentials, remembered for objects it clears (and, for a message, its `result`). */
export function mayHoldCredentialsOnce(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return mayHoldCredentials(value);
  if (clear.has(value)) return false;
  if (Array.isArray(value) ? mayHoldCredentials(value) : mayHoldInFields(value as Record<string, unknown>)) return true;
  clear.add(value);
  const result = (value as { result?: unknown }).result;
  if (result !== null && typeof result === 'object') clear.add(result);
  return false;
}

/** An object's fields, skipping a field whose value is known clear (a screened result in its answer). */
function mayHoldInFields(obj: Record<string, unknown>): boolean {
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    if (mayHoldCredential(k)) return true;
    const v = obj[k];
    if (v !== null && typeof v === 'object' && clear.has(v)) continue;
    if (mayHoldCredentials(v, 1)) return true;
  }
  return false;
}

/** `value` was scanned whole and held no credential: later prefilters of it are skipped. */
export function markClearOfCredentials(value: unknown): void {
  if (value !== null && typeof value === 'object') clear.add(value);
}

function leafAt(list: Leaf[], offset: number): Leaf | undefined {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const leaf = list[mid]!;
    if (offset < leaf.at) hi = mid - 1;
    else if (offset > leaf.at + leaf.text.length) lo = mid + 1;
    else return leaf;
  }
  return undefined;
}

export class DataScanner {
  constructor(private readonly redactor: Redactor) {}

  /** Every configured secret and detected credential in `value`, configured secrets first. */
  async scan(value: unknown, direction: DataDirection): Promise<DataFinding[]> {
    // Most values hold nothing: no configured secret and nothing the rules' prefilter lets
    // through. They are cleared without the leaves, their paths and the joined text.
    if (!this.redactor.holds(value) && !mayHoldCredentialsOnce(value)) return [];
    const list = leaves(value);
    if (list.length === 0) return [];
    const findings: DataFinding[] = [];
    const taken = new Map<Leaf, Array<[number, number]>>();
    if (this.redactor.size > 0) {
      for (const leaf of list) {
        for (const hit of this.redactor.locate(leaf.text)) {
          findings.push({ direction, kind: 'secret', rule: `secret:${hit.name}`, path: leaf.path, start: hit.start, end: hit.end });
          const ranges = taken.get(leaf) ?? [];
          ranges.push([hit.start, hit.end]);
          taken.set(leaf, ranges);
        }
      }
    }
    const joined = list.map((l) => l.text).join(SEPARATOR);
    for (const m of await findCredentials(joined)) {
      const leaf = leafAt(list, m.start);
      if (!leaf) continue;
      const start = m.start - leaf.at;
      const end = Math.min(m.end - leaf.at, leaf.text.length);
      // A configured secret that also looks like a credential is reported once, by its name.
      if (taken.get(leaf)?.some(([a, b]) => start < b && end > a)) continue;
      findings.push({ direction, kind: 'credential', rule: m.rule, ...(m.detail ? { detail: m.detail } : {}), path: leaf.path, start, end });
    }
    if (!findings.some((f) => f.kind === 'credential')) markClearOfCredentials(value);
    return findings;
  }
}

/** What a person may be shown of a finding: where it is and a mask as long as the value. */
export function describeFinding(f: DataFinding): string {
  const what = f.kind === 'secret' ? `configured secret «${f.rule}»` : `${f.detail ?? f.rule} (rule ${f.rule})`;
  return `${what} in ${f.direction} at ${f.path}[${f.start}..${f.end}] (${'•'.repeat(Math.min(8, f.end - f.start))}, ${f.end - f.start} chars)`;
}

/**
 * `value` with each credential finding's range replaced by `«credential:RULE»` (configured
 * secrets are left for the Redactor, which every downstream channel runs). Untouched parts are
 * the same objects, as in Redactor.redactJson.
 */
export function maskCredentials<T>(value: T, findings: readonly DataFinding[]): T {
  if (findings.length === 0) return value; // every call's arguments pass here
  const byPath = new Map<string, DataFinding[]>();
  for (const f of findings) if (f.kind === 'credential') byPath.set(f.path, [...(byPath.get(f.path) ?? []), f]);
  if (byPath.size === 0) return value;
  const mask = (text: string, path: string): string => {
    const hits = byPath.get(path);
    if (!hits) return text;
    let out = text;
    // Right to left, so earlier ranges stay where they were.
    for (const f of [...hits].sort((a, b) => b.start - a.start)) out = `${out.slice(0, f.start)}«credential:${f.rule}»${out.slice(f.end)}`;
    return out;
  };
  const walk = (v: unknown, path: string, depth: number): unknown => {
    if (typeof v === 'string') return mask(v, path);
    if (v === null || typeof v !== 'object' || depth > MAX_DEPTH) return v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      v.forEach((item, i) => {
        const r = walk(item, `${path}[${i}]`, depth + 1);
        if (r !== item) (out ??= v.slice())[i] = r;
      });
      return out ?? v;
    }
    let changed = false;
    const next = Object.entries(v as Record<string, unknown>).map(([k, item]): [string, unknown] => {
      const p = keyPath(path, k);
      const rk = mask(k, `${p}{key}`);
      const r = walk(item, p, depth + 1);
      if (rk !== k || r !== item) changed = true;
      return [rk, r];
    });
    return changed ? Object.fromEntries(next) : v;
  };
  return walk(value, '$', 0) as T;
}
