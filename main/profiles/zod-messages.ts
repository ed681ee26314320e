// Turns zod issues into what a person editing YAML needs: "expected a string, got a list",
// "unknown key 'comand' (expected one of command, args, ...)", one issue per offending node.
// zod's own messages speak JavaScript ("expected object, received array"); ours speak YAML.
import type { z } from 'zod';
import { BuiltinServerSchema, HttpServerSchema, SERVER_KIND_KEYS, StdioServerSchema } from './schema';
import type { Anchor } from './yaml-source';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

export interface FlatIssue {
  path: PropertyKey[];
  anchor: Anchor;
  message: string;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a map',
  record: 'a map',
  array: 'a list',
};

/** What a YAML value is, in YAML words. */
export function describeValue(v: unknown): string {
  if (v === null) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return 'a string';
    case 'number':
      return `a number (${v})`;
    case 'boolean':
      return `a boolean (${v})`;
    case 'object':
      return 'a map';
    default:
      return typeof v;
  }
}

const show = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

/**
 * Per-parse error map. For `unrecognized_keys` it returns the allowed keys (", "-joined):
 * only the raw issue knows its object schema, and `flattenIssues` needs that list to write
 * one message per unknown key.
 */
export function profileErrorMap(iss: RawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type': {
      const expected = EXPECTED[iss.expected] ?? iss.expected;
      if (iss.input === undefined) return `missing, expected ${expected}`;
      const hint = iss.expected === 'string' && (typeof iss.input === 'number' || typeof iss.input === 'boolean') ? ' (quote it to make it a string)' : '';
      return `expected ${expected}, got ${describeValue(iss.input)}${hint}`;
    }
    case 'invalid_value':
      return iss.values.length === 1
        ? `expected ${String(iss.values[0])}, got ${show(iss.input)}`
        : `expected one of ${iss.values.map(String).join(', ')}, got ${show(iss.input)}`;
    case 'unrecognized_keys': {
      const def = (iss.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def;
      return Object.keys(def?.shape ?? {}).join(', ');
    }
    case 'too_small': {
      if (iss.origin === 'string') return 'must not be empty';
      if (iss.origin === 'array') return `expected at least ${String(iss.minimum)} item${iss.minimum === 1 ? '' : 's'}`;
      return `expected a number ${iss.inclusive ? '≥' : '>'} ${String(iss.minimum)}, got ${show(iss.input)}`;
    }
    case 'too_big':
      return `expected at most ${String(iss.maximum)}, got ${show(iss.input)}`;
    case 'invalid_format':
      return iss.pattern ? `expected a value matching ${iss.pattern}, got ${show(iss.input)}` : `invalid ${iss.format}: ${show(iss.input)}`;
    default:
      return undefined;
  }
}

/** Walks zod's issue tree (unions, record keys) into one issue per node, with the input at hand. */
export function flattenIssues(issues: readonly Issue[], data: unknown): FlatIssue[] {
  const out: FlatIssue[] = [];
  walk(issues, [], data, out);
  return out;
}

function walk(issues: readonly Issue[], base: PropertyKey[], data: unknown, out: FlatIssue[]): void {
  for (const iss of issues) {
    const path = [...base, ...iss.path];
    switch (iss.code) {
      case 'unrecognized_keys': {
        const allowed = iss.message ? iss.message.split(', ') : [];
        for (const key of iss.keys) out.push({ path: [...path, key], anchor: 'key', message: unknownKey(key, allowed) });
        break;
      }
      case 'invalid_key':
        out.push({ path, anchor: 'key', message: iss.issues[0]?.message ?? iss.message });
        break;
      case 'invalid_union':
        union(iss, path, data, out);
        break;
      default:
        out.push({ path, anchor: 'value', message: iss.message });
    }
  }
}

function union(iss: Extract<Issue, { code: 'invalid_union' }>, path: PropertyKey[], data: unknown, out: FlatIssue[]): void {
  const value = valueAt(data, path);
  const branches = iss.errors;
  if (path.length === 2 && path[0] === 'servers') {
    serverEntry(branches, path, value, data, out);
    return;
  }
  // Prefer the branch whose type fit (its errors are about the inside of the value).
  const fitting = branches.find((errs) => !errs.some((e) => e.code === 'invalid_type' && e.path.length === 0));
  if (fitting) {
    walk(fitting, path, data, out);
    return;
  }
  const expected = branches.flatMap((errs) =>
    errs.filter((e): e is Extract<Issue, { code: 'invalid_type' }> => e.code === 'invalid_type' && e.path.length === 0).map((e) => EXPECTED[e.expected] ?? e.expected),
  );
  out.push({ path, anchor: 'value', message: `expected ${orList(expected)}, got ${value === undefined ? 'nothing' : describeValue(value)}` });
}

/** A server entry's kind is the one of command/url/builtin it has; report that branch's errors. */
function serverEntry(branches: Issue[][], path: PropertyKey[], value: unknown, data: unknown, out: FlatIssue[]): void {
  const kinds = 'exactly one of command, url or builtin';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    out.push({ path, anchor: 'value', message: `expected a map with ${kinds}, got ${describeValue(value)}` });
    return;
  }
  const present = SERVER_KIND_KEYS.filter((k) => Object.hasOwn(value, k));
  if (present.length === 1) {
    const branch = branches[SERVER_KIND_KEYS.indexOf(present[0]!)];
    if (branch) {
      walk(branch, path, data, out);
      return;
    }
  }
  // No kind (or several): keys no branch knows are still worth reporting, since a typo
  // (`comand:`) is the usual reason the kind key is missing.
  const allowed = [...new Set([StdioServerSchema, HttpServerSchema, BuiltinServerSchema].flatMap((s) => Object.keys(s.shape)))];
  const unknownEverywhere = Object.keys(value).filter((k) => !allowed.includes(k));
  for (const key of unknownEverywhere) out.push({ path: [...path, key], anchor: 'key', message: unknownKey(key, allowed) });
  const got = present.length === 0 ? 'got none of them' : present.length === 2 ? `got both ${present[0]} and ${present[1]}` : `got ${orList(present, 'and')}`;
  out.push({ path, anchor: 'value', message: `expected ${kinds}, ${got}` });
}

function unknownKey(key: string, allowed: string[]): string {
  const near = closest(key, allowed);
  const list = allowed.length ? ` (expected one of ${allowed.join(', ')})` : '';
  return `unknown key '${key}'${list}${near ? `; did you mean '${near}'?` : ''}`;
}

function orList(items: string[], word = 'or'): string {
  if (items.length <= 1) return items[0] ?? 'something else';
  return `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

/** The allowed key within edit distance 2 (a typo), if any. */
function closest(key: string, allowed: string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const a of allowed) {
    const d = distance(key.toLowerCase(), a.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
