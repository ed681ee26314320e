// The Traffic timeline's visible list: the rows shown, ordered by (root seq, seq) — roots, and
// under an expanded root its children — with the counters a view keeps its scroll anchor by.
import type { TrafficRow } from './types';

export class VisibleRows {
  private rows: TrafficRow[] = [];
  /** Rows added at the tail, ever (the "N new" marker counts from here). */
  tailAppends = 0;
  /** Rows removed from the head by eviction, ever (keeps the scroll anchored). */
  headRemovals = 0;

  get length(): number {
    return this.rows.length;
  }

  at(index: number): TrafficRow | undefined {
    return this.rows[index];
  }

  indexOf(row: TrafficRow): number {
    if (!row._shown) return -1;
    const i = lowerBound(this.rows, row);
    return this.rows[i] === row ? i : -1;
  }

  [Symbol.iterator](): IterableIterator<TrafficRow> {
    return this.rows[Symbol.iterator]();
  }

  insert(row: TrafficRow): void {
    if (row._shown) return;
    row._shown = true;
    const last = this.rows[this.rows.length - 1];
    if (!last || compareRows(last, row) < 0) {
      this.rows.push(row);
      this.tailAppends++;
      return;
    }
    this.rows.splice(lowerBound(this.rows, row), 0, row);
  }

  remove(row: TrafficRow): void {
    if (!row._shown) return;
    const i = lowerBound(this.rows, row);
    if (this.rows[i] === row) this.rows.splice(i, 1);
    row._shown = false;
  }

  /** Unmark every row shown, before a rebuild marks the ones it keeps. */
  unmarkAll(): void {
    for (const e of this.rows) e._shown = false;
  }

  /** A rebuilt list (its rows already marked shown); `sort` when not built in order. */
  replace(rows: TrafficRow[], sort = false): void {
    this.rows = sort ? rows.sort(compareRows) : rows;
  }

  /** Eviction is oldest-first, so what it hides sits at the head: drop it, keeping pinned rows. */
  dropEvictedHead(isPinned: (row: TrafficRow) => boolean): void {
    let n = 0;
    const kept: TrafficRow[] = [];
    while (n < this.rows.length) {
      const e = this.rows[n]!;
      if (!e.evicted && !e.root.evicted) break;
      if (isPinned(e)) kept.push(e);
      else e._shown = false;
      n++;
    }
    if (n === 0) return;
    this.rows.splice(0, n, ...kept);
    this.headRemovals += n - kept.length;
  }
}

export function compareRows(a: TrafficRow, b: TrafficRow): number {
  return a.root.seq - b.root.seq || a.seq - b.seq;
}

function lowerBound(list: TrafficRow[], row: TrafficRow): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareRows(list[mid]!, row) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One event per line, as the host sent it (already redacted). A live row's message is in the
 * host: pass `bodies` (TrafficBodies.collect); one the host no longer has is marked so.
 */
export function toJsonl(rows: readonly TrafficRow[], bodies?: ReadonlyMap<number, unknown>): string {
  const line = (r: TrafficRow): string => {
    if (!r.remote) return JSON.stringify(r.ev);
    return JSON.stringify(bodies?.has(r.seq) ? { ...r.ev, message: bodies.get(r.seq) } : { ...r.ev, message: undefined, bodyUnavailable: true });
  };
  return rows.map(line).join('\n') + (rows.length ? '\n' : '');
}
