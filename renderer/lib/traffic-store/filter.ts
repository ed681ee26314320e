// The Traffic filter: a TrafficFilter compiled once per change into sets and matchers,
// and the text a search runs over. The store keeps each row's match; this decides it.
import { rowSummary } from './summary';
import type { Direction, StatusFilter, TrafficFilter, TrafficRow } from './types';

export interface CompiledFilter {
  all: boolean;
  sessions?: Set<string>;
  servers?: Set<string>;
  directions?: Set<Direction>;
  statuses?: Set<StatusFilter>;
  include?: (method: string) => boolean;
  exclude?: (method: string) => boolean;
  /** Keep calls slower than this (ms): `latency>500ms` in the search box. */
  minLatency?: number;
  text: string;
}

export function compileFilter(f: TrafficFilter): CompiledFilter {
  const set = <T>(xs?: readonly T[]): Set<T> | undefined => (xs && xs.length > 0 ? new Set(xs) : undefined);
  const c: CompiledFilter = {
    all: false,
    sessions: set(f.sessions),
    servers: set(f.servers),
    directions: set(f.directions),
    statuses: set(f.statuses),
    include: f.includeMethods?.length ? methodMatcher(f.includeMethods) : undefined,
    exclude: f.excludeMethods?.length ? methodMatcher(f.excludeMethods) : undefined,
    minLatency: f.minLatencyMs !== undefined && Number.isFinite(f.minLatencyMs) ? f.minLatencyMs : undefined,
    text: (f.text ?? '').trim().toLowerCase(),
  };
  c.all = !c.sessions && !c.servers && !c.directions && !c.statuses && !c.include && !c.exclude && c.minLatency === undefined && !c.text;
  return c;
}

/**
 * Whether a row passes the compiled filter (its own fields only; the store adds children).
 * `bodyHit`: whether the text is in the row's message or its pair's, for rows whose message is
 * in the host (the store learns that from the host, or saw it on arrival).
 */
export function rowMatches(f: CompiledFilter, row: TrafficRow, bodyHit?: (row: TrafficRow) => boolean): boolean {
  if (f.all) return true;
  const ev = row.ev;
  if (f.sessions && !f.sessions.has(ev.session)) return false;
  if (f.servers) {
    const server = row.server ?? ev.server ?? '';
    if (!f.servers.has(server)) return false;
  }
  // A call is in the direction of its request; its response travels inside it.
  if (f.directions && !f.directions.has(ev.direction)) return false;
  const method = ev.method ?? '';
  if (f.include && !f.include(method)) return false;
  if (f.exclude && f.exclude(method)) return false;
  if (f.statuses) {
    // A denial is a DENY verdict, or an APPROVAL that a person, the timeout or nobody denied; the
    // Findings chip keeps calls the data scanner found something in (docs/data.md).
    const denied = row.decision === 'DENY' || row.outcome === 'denied';
    const ok =
      (row.status !== undefined && f.statuses.has(row.status)) || (f.statuses.has('denied') && denied) || (f.statuses.has('findings') && (row.findings?.length ?? 0) > 0);
    if (!ok) return false;
  }
  // Only answered calls have a latency: a pending one is not (yet) slow.
  if (f.minLatency !== undefined && !(row.latencyMs !== undefined && row.latencyMs > f.minLatency)) return false;
  if (f.text) return searchText(row).includes(f.text) || (bodyHit?.(row) ?? false);
  return true;
}

/** `latency > 500 ms`, `latency>2s`, `latency>250` (ms) in the search box. */
const LATENCY_TERM = /(?:^|\s)latency\s*>\s*(\d+(?:\.\d+)?)\s*(ms|s)?(?=\s|$)/i;

/**
 * What the search box says: its text, and a `latency > N ms` term taken out of it (the one
 * filter the box has a syntax for). `formatQuery` writes a filter back as the box shows it.
 */
export function parseQuery(raw: string): { text: string; minLatencyMs?: number } {
  const m = LATENCY_TERM.exec(raw);
  if (!m) return { text: raw.trim() };
  const n = Number(m[1]) * (m[2]?.toLowerCase() === 's' ? 1000 : 1);
  return { text: (raw.slice(0, m.index) + ' ' + raw.slice(m.index + m[0].length)).replace(/\s+/g, ' ').trim(), minLatencyMs: n };
}

export function formatQuery(f: Pick<TrafficFilter, 'text' | 'minLatencyMs'>): string {
  return [f.minLatencyMs !== undefined ? `latency>${f.minLatencyMs}ms` : '', f.text ?? ''].filter(Boolean).join(' ');
}

/** `notifications/message` exact; `notifications/*` or `notifications/` a prefix. */
export function methodMatcher(patterns: readonly string[]): (method: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of patterns) {
    if (p.endsWith('*')) prefixes.push(p.slice(0, -1));
    else if (p.endsWith('/')) prefixes.push(p);
    else exact.add(p);
  }
  return (m) => exact.has(m) || prefixes.some((p) => m.startsWith(p));
}

/**
 * The text a search runs over: method, summary and the JSON of the message and its pair (when
 * held here; a live row's message is searched in the host, see TrafficStore.setFilter).
 */
export function searchText(row: TrafficRow): string {
  if (row._text === undefined) {
    let s = `${row.ev.method ?? ''}\n${rowSummary(row)}\n${row.remote ? (row.error ?? '') : safeJson(row.ev.message)}`;
    if (row.pair && !row.pair.remote) s += `\n${safeJson(row.pair.ev.message)}`;
    if (row.ev.fault) s += `\n${row.ev.fault}`;
    row._text = s.toLowerCase();
  }
  return row._text;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
}

/** Where `query` occurs in `text` (case-insensitive), as [start, end) ranges for highlighting. */
export function findMatches(text: string, query: string): [number, number][] {
  const q = query.toLowerCase();
  if (!q) return [];
  const t = text.toLowerCase();
  const out: [number, number][] = [];
  for (let i = t.indexOf(q); i >= 0 && out.length < 1000; i = t.indexOf(q, i + q.length)) out.push([i, i + q.length]);
  return out;
}
