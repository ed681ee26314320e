// Building the Traffic timeline's visible list after a filter change: in one pass over the held
// rows (ring order is already the list's order), or, when the filter index narrowed the rows
// that can match (filter-index.ts), from those rows alone and then sorted: a chip click costs
// what it shows, not what is held.
import type { TrafficRow } from './types';

/** What a build reads of the store. */
export interface BuildHost {
  /** Held rows, oldest first. */
  held(): Iterable<TrafficRow>;
  /** Pinned rows evicted from the ring, kept for their pin. */
  pinnedKept(): Iterable<TrafficRow>;
  /** Pinned rows still held. */
  pinnedHeld(): Iterable<TrafficRow>;
  /** A direction filter lists each matching message on its own (traffic-store.ts flat()). */
  flat: boolean;
  matches(row: TrafficRow): boolean;
  shouldShow(row: TrafficRow): boolean;
  isExpanded(row: TrafficRow): boolean;
  isPinned(row: TrafficRow): boolean;
}

/** Every row shown, from one pass; in (root seq, seq) order unless `needsSort`. */
export function buildFromHeld(host: BuildHost): { rows: TrafficRow[]; needsSort: boolean } {
  const next: TrafficRow[] = [];
  const kept = [...host.pinnedKept()].sort((a, b) => a.seq - b.seq);
  for (const r of kept) {
    r._shown = true;
    next.push(r);
  }
  if (host.flat) {
    for (const r of host.held()) {
      if (r._shown || !host.shouldShow(r)) continue;
      r._shown = true;
      next.push(r);
    }
    return { rows: next, needsSort: true };
  }
  for (const r of host.held()) {
    if (r.merged || r.root !== r) continue;
    if (!host.shouldShow(r)) {
      // A pinned child of a hidden root is still shown.
      for (const c of r.children ?? []) {
        if (host.isPinned(c)) {
          c._shown = true;
          next.push(c);
        }
      }
      continue;
    }
    r._shown = true;
    next.push(r);
    const open = host.isExpanded(r);
    for (const c of r.children ?? []) {
      if (!c.evicted && ((open && host.matches(c)) || host.isPinned(c))) {
        c._shown = true;
        next.push(c);
      }
    }
  }
  return { rows: next, needsSort: false };
}

/** The same list from the rows that match (and the pins), unordered: the caller sorts it. */
export function buildFromMatches(host: BuildHost, matched: readonly TrafficRow[]): TrafficRow[] {
  const next: TrafficRow[] = [];
  const show = (r: TrafficRow) => {
    if (r._shown) return;
    r._shown = true;
    next.push(r);
  };
  for (const r of host.pinnedKept()) show(r);
  // Pinned rows show whatever the filter (a pinned child too, under a hidden root).
  for (const r of host.pinnedHeld()) if (!r.merged) show(r);
  const seen = new Set<TrafficRow>();
  for (const r of matched) {
    if (host.flat) {
      if (!r.merged) show(r);
      continue;
    }
    const root = r.root;
    if (root.evicted || seen.has(root)) continue;
    seen.add(root);
    if (!host.shouldShow(root)) continue;
    show(root);
    if (!host.isExpanded(root)) continue;
    for (const c of root.children ?? []) if (!c.evicted && host.matches(c)) show(c);
  }
  return next;
}
