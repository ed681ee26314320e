// An index per filter facet (status, denial, findings, server, launch, direction, method), kept as rows
// arrive and as their status changes, so a chip click visits the rows that can match instead of
// every row held (docs/ui-layout.md "Traffic's memory and render path"). At 100k held rows
// under load a full pass per click (match every row, rebuild the list) was what made the
// Errors chip take 152 ms median, 504 ms at worst; the rows an Errors click can show are the
// error bucket, a few hundred.
//
// The index gives candidates, never the answer: each candidate is still checked with
// rowMatches, so the index only has to be a superset of the matching rows. Facets that change
// without a status change (a call's server and decision are learnt from its upstream leg while
// it is in flight) are covered by adding the calls in flight to every mutable facet's candidates.
import { rowMatches, type CompiledFilter } from './filter';
import type { Direction, StatusFilter, TrafficRow } from './types';

type Bucket = Set<TrafficRow>;

/** The keys a row is filed under (on the row), to move it when they change. */
type FiledKeys = NonNullable<TrafficRow['_filed']>;

/** A row's server as the filter sees it (filter.ts rowMatches). */
const serverOf = (row: TrafficRow): string => row.server ?? row.ev.server ?? '';

function statusKeys(row: TrafficRow): StatusFilter[] {
  const out: StatusFilter[] = row.status !== undefined ? [row.status] : [];
  if (row.decision === 'DENY' || row.outcome === 'denied') out.push('denied');
  if (row.findings?.length) out.push('findings');
  return out;
}

function add<K>(map: Map<K, Bucket>, key: K, row: TrafficRow): void {
  const b = map.get(key);
  if (b) b.add(row);
  else map.set(key, new Set([row]));
}

function drop<K>(map: Map<K, Bucket>, key: K, row: TrafficRow): void {
  const b = map.get(key);
  if (!b) return;
  b.delete(row);
  if (b.size === 0) map.delete(key);
}

export class FilterIndex {
  private readonly status = new Map<StatusFilter, Bucket>();
  private readonly server = new Map<string, Bucket>();
  private readonly session = new Map<string, Bucket>();
  private readonly direction = new Map<Direction, Bucket>();
  private readonly method = new Map<string, Bucket>();
  /** Calls in flight: their server and decision may still change without a status change. */
  private readonly unsettled: Bucket = new Set();
  /** Rows filed (the session facet holds each once). */
  private filedCount = 0;

  get size(): number {
    return this.filedCount;
  }

  /** A row that is not merged into its request: filed under each facet. */
  add(row: TrafficRow): void {
    if (row.merged || row._filed) return;
    add(this.session, row.ev.session, row);
    add(this.direction, row.ev.direction, row);
    add(this.method, row.ev.method ?? '', row);
    const keys: FiledKeys = { statuses: statusKeys(row), server: serverOf(row) };
    for (const s of keys.statuses) add(this.status, s, row);
    add(this.server, keys.server, row);
    row._filed = keys;
    this.filedCount++;
    if (row.status === 'pending') this.unsettled.add(row);
  }

  /** The row's status, decision or server may have changed: move it between buckets. */
  update(row: TrafficRow): void {
    const keys = row._filed;
    if (!keys) return;
    const statuses = statusKeys(row);
    if (statuses.length !== keys.statuses.length || statuses.some((s, i) => s !== keys.statuses[i])) {
      for (const s of keys.statuses) drop(this.status, s, row);
      for (const s of statuses) add(this.status, s, row);
      keys.statuses = statuses;
    }
    const server = serverOf(row);
    if (server !== keys.server) {
      drop(this.server, keys.server, row);
      add(this.server, server, row);
      keys.server = server;
    }
    if (row.status === 'pending') this.unsettled.add(row);
    else this.unsettled.delete(row);
  }

  /** An evicted row leaves every bucket. */
  remove(row: TrafficRow): void {
    const keys = row._filed;
    if (!keys) return;
    row._filed = undefined;
    this.filedCount--;
    drop(this.session, row.ev.session, row);
    drop(this.direction, row.ev.direction, row);
    drop(this.method, row.ev.method ?? '', row);
    for (const s of keys.statuses) drop(this.status, s, row);
    drop(this.server, keys.server, row);
    this.unsettled.delete(row);
  }

  /** Forgets every row (`rows`: the ones filed, so they can be filed again). */
  clear(rows: Iterable<TrafficRow>): void {
    for (const r of rows) r._filed = undefined;
    for (const m of [this.status, this.server, this.session, this.direction, this.method]) m.clear();
    this.unsettled.clear();
    this.filedCount = 0;
  }

  /**
   * The rows that can match `f`, from the narrowest facet it sets, or undefined when no facet
   * narrows it below half of what is held (then one pass in ring order is cheaper than a
   * sort of the candidates: the store does that).
   */
  candidates(f: CompiledFilter): TrafficRow[] | undefined {
    if (f.all) return undefined;
    let best: { buckets: Bucket[]; mutable: boolean; size: number } | undefined;
    const consider = (buckets: Bucket[], mutable: boolean) => {
      const size = buckets.reduce((n, b) => n + b.size, 0) + (mutable ? this.unsettled.size : 0);
      if (!best || size < best.size) best = { buckets, mutable, size };
    };
    const pick = <K>(map: Map<K, Bucket>, keys: Iterable<K>): Bucket[] => [...keys].flatMap((k) => map.get(k) ?? []);
    if (f.statuses) consider(pick(this.status, f.statuses), true);
    if (f.servers) consider(pick(this.server, f.servers), true);
    if (f.sessions) consider(pick(this.session, f.sessions), false);
    if (f.directions) consider(pick(this.direction, f.directions), false);
    if (f.include || f.exclude) {
      const methods = [...this.method.keys()].filter((m) => (!f.include || f.include(m)) && !(f.exclude && f.exclude(m)));
      consider(pick(this.method, methods), false);
    }
    if (!best || best.size * 2 > this.filedCount) return undefined;
    const sets = best.mutable ? [...best.buckets, this.unsettled] : best.buckets;
    if (sets.length === 1) return [...sets[0]!];
    // A row may sit in two of them (an error that is also a denial, a call in flight).
    const seen = new Set<TrafficRow>();
    for (const s of sets) for (const r of s) seen.add(r);
    return [...seen];
  }
}

/** Reference for tests and the store's fallback: every filed row the compiled filter keeps. */
export function fullFilter(rows: Iterable<TrafficRow>, f: CompiledFilter, bodyHit?: (row: TrafficRow) => boolean): TrafficRow[] {
  const out: TrafficRow[] = [];
  for (const r of rows) if (!r.merged && rowMatches(f, r, bodyHit)) out.push(r);
  return out;
}

/**
 * Filter generations: a row's `_match` and `_childMatches` hold only under the generation they
 * were computed in (`_fgen`), so a filter change needs to visit only the rows it can match; a
 * row it does not visit reads as no match, with no pass to clear the others.
 */
export class FilterGeneration {
  gen = 1;

  next(): void {
    this.gen++;
  }

  matches(r: TrafficRow): boolean {
    return r._fgen === this.gen && r._match;
  }

  childMatches(r: TrafficRow): number {
    return r._fgen === this.gen ? r._childMatches : 0;
  }

  /** Resets a row's state from an older generation; a current one is left as it is. */
  fresh(r: TrafficRow): void {
    if (r._fgen === this.gen) return;
    r._fgen = this.gen;
    r._match = false;
    r._childMatches = 0;
  }

  /** Computes a row's match in this generation (and adds it to its root's count); returns it. */
  judge(r: TrafficRow, matches: (r: TrafficRow) => boolean): boolean {
    this.fresh(r);
    if (r.merged) return false;
    r._match = matches(r);
    if (r._match && r.root !== r) {
      this.fresh(r.root);
      r.root._childMatches++;
    }
    return r._match;
  }
}
