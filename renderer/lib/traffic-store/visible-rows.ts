// The Traffic timeline's visible list: the rows shown, ordered by (root seq, seq) — roots, and
// under an expanded root its children — with the counters a view keeps its scroll anchor by.
import type { TrafficRow } from './types';

export class VisibleRows {
  // rows[head…] is the list: eviction drops rows at the head one at a time, thousands a second
  // with a full buffer, so the head moves by an index and the array is compacted only now and
  // then (a splice at the front of 100k entries on every eviction was per-event work ∝ the list).
  private rows: TrafficRow[] = [];
  private head = 0;
  /** Rows added at the tail, ever (the "N new" marker counts from here). */
  tailAppends = 0;
  /** Rows removed from the head by eviction, ever (keeps the scroll anchored). */
  headRemovals = 0;

  get length(): number {
    return this.rows.length - this.head;
  }

  at(index: number): TrafficRow | undefined {
    return index < 0 ? undefined : this.rows[this.head + index];
  }

  indexOf(row: TrafficRow): number {
    if (!row._shown) return -1;
    const i = this.lowerBound(row);
    return this.rows[i] === row ? i - this.head : -1;
  }

  *[Symbol.iterator](): IterableIterator<TrafficRow> {
    for (let i = this.head; i < this.rows.length; i++) yield this.rows[i]!;
  }

  insert(row: TrafficRow): void {
    if (row._shown) return;
    row._shown = true;
    const last = this.rows.length > this.head ? this.rows[this.rows.length - 1] : undefined;
    if (!last || compareRows(last, row) < 0) {
      this.rows.push(row);
      this.tailAppends++;
      return;
    }
    this.rows.splice(this.lowerBound(row), 0, row);
  }

  remove(row: TrafficRow): void {
    if (!row._shown) return;
    const i = this.lowerBound(row);
    if (this.rows[i] === row) {
      if (i === this.head) this.rows[this.head++] = undefined as unknown as TrafficRow;
      else this.rows.splice(i, 1);
    }
    row._shown = false;
    this.compact();
  }

  /** Unmark every row shown, before a rebuild marks the ones it keeps. */
  unmarkAll(): void {
    for (const e of this) e._shown = false;
  }

  /** A rebuilt list (its rows already marked shown); `sort` when not built in order. */
  replace(rows: TrafficRow[], sort = false): void {
    this.rows = sort ? rows.sort(compareRows) : rows;
    this.head = 0;
  }

  /** Eviction is oldest-first, so what it hides sits at the head: drop it, keeping pinned rows. */
  dropEvictedHead(isPinned: (row: TrafficRow) => boolean): void {
    let n = 0;
    const kept: TrafficRow[] = [];
    while (this.head + n < this.rows.length) {
      const e = this.rows[this.head + n]!;
      if (!e.evicted && !e.root.evicted) break;
      if (isPinned(e)) kept.push(e);
      else e._shown = false;
      n++;
    }
    if (n === 0) return;
    if (kept.length === 0) {
      for (let i = 0; i < n; i++) this.rows[this.head + i] = undefined as unknown as TrafficRow;
      this.head += n;
    } else this.rows.splice(this.head, n, ...kept);
    this.headRemovals += n - kept.length;
    this.compact();
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.rows.length) {
      this.rows = this.rows.slice(this.head);
      this.head = 0;
    }
  }

  private lowerBound(row: TrafficRow): number {
    let lo = this.head;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareRows(this.rows[mid]!, row) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function compareRows(a: TrafficRow, b: TrafficRow): number {
  return a.root.seq - b.root.seq || a.seq - b.seq;
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

/** Everything that belongs to a row's call: both hops, their responses, progress, sampling (seq order). */
export function callRows(row: TrafficRow): TrafficRow[] {
  const root = row.root;
  const out: TrafficRow[] = [root];
  if (root.pair) out.push(root.pair);
  for (const c of root.children ?? []) {
    if (c.evicted) continue;
    out.push(c);
    if (c.pair) out.push(c.pair);
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/** The visible rows with the responses merged into them, oldest first. */
export function withMergedPairs(rows: Iterable<TrafficRow>): TrafficRow[] {
  const out: TrafficRow[] = [];
  for (const r of rows) {
    out.push(r);
    if (r.pair?.merged) out.push(r.pair);
  }
  return out.sort((a, b) => a.seq - b.seq);
}
