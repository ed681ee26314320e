// Traffic sorted by a column (Latency, Req, Res): a snapshot of the visible list, each call kept
// with the rows shown under it, ordered by the call's value; rows without one (pending, a
// notification) last whichever the direction. Rebuilt from the store at most once a second
// while traffic flows (a sort of 100k rows is tens of ms; per frame it would be the frame).
import type { TrafficRow } from '../../lib/traffic-store';

export type SortColumn = 'latency' | 'req' | 'res';
export interface TrafficSort {
  column: SortColumn;
  dir: 'asc' | 'desc';
}

/** How long a sorted snapshot stands while the store changes under it. */
export const SORT_REFRESH_MS = 1000;

export function sortValue(row: TrafficRow, column: SortColumn): number | undefined {
  const isResponse = row.ev.kind === 'response' || row.ev.kind === 'error';
  switch (column) {
    case 'latency':
      return row.latencyMs;
    case 'req':
      return isResponse ? undefined : row.ev.bytes;
    case 'res':
      return isResponse ? row.ev.bytes : row.pair?.ev.bytes;
  }
}

/** The next sort when a column header is pressed: descending (slowest, largest first), ascending, off. */
export function nextSort(current: TrafficSort | undefined, column: SortColumn): TrafficSort | undefined {
  if (current?.column !== column) return { column, dir: 'desc' };
  return current.dir === 'desc' ? { column, dir: 'asc' } : undefined;
}

export interface SortedRows {
  sort: TrafficSort;
  /** The store version it was built from. */
  storeVersion: number;
  builtAt: number;
  /** Bumps per build (the list's version). */
  version: number;
  headRemovals: number;
  size(): number;
  at(index: number): TrafficRow | undefined;
  indexOf(row: TrafficRow): number;
}

interface Source {
  size(): number;
  at(index: number): TrafficRow | undefined;
  version: number;
}

let builds = 0;

export function sortRows(source: Source, sort: TrafficSort, now = performance.now()): SortedRows {
  // Groups: a call and the rows shown under it (children follow their root in the visible list).
  const n = source.size();
  const starts: number[] = [];
  const keys: (number | undefined)[] = [];
  let head: TrafficRow | undefined;
  for (let i = 0; i < n; i++) {
    const r = source.at(i)!;
    if (head && r.root === head && r !== head) continue;
    head = r;
    starts.push(i);
    keys.push(sortValue(r, sort.column));
  }
  const order = starts.map((_, g) => g);
  const sign = sort.dir === 'desc' ? -1 : 1;
  order.sort((a, b) => {
    const ka = keys[a];
    const kb = keys[b];
    if (ka === undefined || kb === undefined) return ka === kb ? a - b : ka === undefined ? 1 : -1;
    return sign * (ka - kb) || a - b;
  });
  const list: TrafficRow[] = [];
  for (const g of order) {
    const end = g + 1 < starts.length ? starts[g + 1]! : n;
    for (let i = starts[g]!; i < end; i++) list.push(source.at(i)!);
  }
  let index: Map<TrafficRow, number> | undefined;
  return {
    sort,
    storeVersion: source.version,
    builtAt: now,
    version: ++builds,
    headRemovals: 0,
    size: () => list.length,
    at: (i) => list[i],
    indexOf: (r) => (index ??= new Map(list.map((x, i) => [x, i]))).get(r) ?? -1,
  };
}
