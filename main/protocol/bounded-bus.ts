// A bounded, batched event bus: the protocol path publishes and never waits
// (ARCHITECTURE.md: "The protocol path never waits for the UI or the disk"). The bus keeps
// the last `capacity` items for replay to a window that attaches late, and delivers to each
// subscriber in batches on a timer, the way VS Code batches pty output, so a burst of a
// thousand messages costs a subscriber one call, not a thousand.

export const DEFAULT_BUS_CAPACITY = 10_000;
export const DEFAULT_BATCH_INTERVAL_MS = 25;
export const DEFAULT_MAX_PENDING = 5_000;

export interface BoundedBusOptions {
  /** Items kept for snapshot/replay (a ring: the oldest is overwritten). */
  capacity?: number;
  /** Names the bus in the one-line stderr report of a throwing subscriber. */
  name?: string;
}

export interface SubscribeOptions {
  /** How often pending items are delivered. */
  intervalMs?: number;
  /** Items a subscriber may have waiting; beyond that the oldest are dropped (and counted). */
  maxPending?: number;
}

export interface BatchInfo {
  /** Items dropped for this subscriber since its previous batch, because it fell behind. */
  dropped: number;
}

export type BusSubscriber<T> = (batch: T[], info: BatchInfo) => void;

export interface SnapshotOptions {
  /** Only the most recent `limit` items (after `afterSeq`). */
  limit?: number;
  /** Only items with seq > afterSeq (resume after the last one a subscriber saw). */
  afterSeq?: number;
}

export interface BusStats {
  /** Items in the ring now. */
  held: number;
  /** Items ever published (also the last seq assigned). */
  total: number;
  /** Deliveries dropped because a subscriber fell behind, over all subscribers. */
  dropped: number;
  /** Items overwritten in the ring (no longer available to snapshot). */
  evicted: number;
}

interface Subscription<T> {
  fn: BusSubscriber<T>;
  intervalMs: number;
  maxPending: number;
  // A queue as array + head index: dropping the oldest is O(1), compacted now and then.
  queue: T[];
  head: number;
  dropped: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  reportedThrow: boolean;
  active: boolean;
}

export class BoundedBus<T extends { seq: number }> {
  private readonly capacity: number;
  private readonly name: string;
  private readonly ring: (T | undefined)[];
  private next = 0; // ring index the next item goes to
  private held = 0;
  private seq = 0;
  private droppedTotal = 0;
  private readonly subs = new Set<Subscription<T>>();
  private closed = false;

  constructor(options: BoundedBusOptions = {}) {
    this.capacity = options.capacity ?? DEFAULT_BUS_CAPACITY;
    if (!Number.isInteger(this.capacity) || this.capacity <= 0) {
      throw new Error(`capacity: expected a positive integer, got ${String(options.capacity)}`);
    }
    this.name = options.name ?? 'bus';
    this.ring = new Array<T | undefined>(this.capacity);
  }

  /**
   * Record an item; returns it with its seq. Synchronous and O(subscribers); never calls a
   * subscriber. The seq is stamped on the item itself, not on a copy: the recorder built it for
   * the bus, and a copy would lose what it keeps under a symbol (the message's JSON text, which
   * the audit writer stores instead of serialising the message again: json-text.ts).
   */
  publish(item: Omit<T, 'seq'>): T {
    const full = item as T;
    full.seq = ++this.seq;
    this.ring[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
    if (this.held < this.capacity) this.held++;
    if (this.closed) return full;
    for (const sub of this.subs) {
      sub.queue.push(full);
      if (sub.queue.length - sub.head > sub.maxPending) {
        sub.head++;
        sub.dropped++;
        this.droppedTotal++;
        if (sub.head > sub.maxPending) {
          sub.queue = sub.queue.slice(sub.head);
          sub.head = 0;
        }
      }
      if (!sub.timer) this.schedule(sub);
    }
    return full;
  }

  /**
   * Deliver future items to `fn` in batches, never from inside publish(). To replay history
   * without a gap, call snapshot() and subscribe() in the same tick. Returns unsubscribe.
   */
  subscribe(fn: BusSubscriber<T>, options: SubscribeOptions = {}): () => void {
    const sub: Subscription<T> = {
      fn,
      intervalMs: options.intervalMs ?? DEFAULT_BATCH_INTERVAL_MS,
      maxPending: Math.max(1, options.maxPending ?? DEFAULT_MAX_PENDING),
      queue: [],
      head: 0,
      dropped: 0,
      timer: undefined,
      reportedThrow: false,
      active: true,
    };
    if (!this.closed) this.subs.add(sub);
    return () => this.unsubscribe(sub);
  }

  /** Items still held, oldest first, for replay to a late subscriber. */
  snapshot(options: SnapshotOptions = {}): T[] {
    const firstSeq = this.seq - this.held + 1; // seqs in the ring are contiguous
    let from = Math.max(firstSeq, (options.afterSeq ?? 0) + 1);
    if (options.limit !== undefined) from = Math.max(from, this.seq - Math.max(0, options.limit) + 1);
    const out: T[] = [];
    const oldestIndex = (this.next - this.held + this.capacity) % this.capacity;
    for (let s = from; s <= this.seq; s++) {
      out.push(this.ring[(oldestIndex + (s - firstSeq)) % this.capacity]!);
    }
    return out;
  }

  stats(): BusStats {
    return { held: this.held, total: this.seq, dropped: this.droppedTotal, evicted: this.seq - this.held };
  }

  /** Stop every subscriber (pending items are not delivered). The ring stays readable. */
  close(): void {
    this.closed = true;
    for (const sub of [...this.subs]) this.unsubscribe(sub);
  }

  private unsubscribe(sub: Subscription<T>): void {
    sub.active = false;
    if (sub.timer) clearTimeout(sub.timer);
    sub.timer = undefined;
    sub.queue = [];
    sub.head = 0;
    this.subs.delete(sub);
  }

  private schedule(sub: Subscription<T>): void {
    sub.timer = setTimeout(() => this.flush(sub), sub.intervalMs);
    // A bus must never keep the host alive on its own.
    sub.timer.unref?.();
  }

  private flush(sub: Subscription<T>): void {
    sub.timer = undefined;
    if (!sub.active) return;
    const batch = sub.head === 0 ? sub.queue : sub.queue.slice(sub.head);
    const dropped = sub.dropped;
    sub.queue = [];
    sub.head = 0;
    sub.dropped = 0;
    if (batch.length === 0) return;
    try {
      sub.fn(batch, { dropped });
    } catch (err) {
      // One subscriber's bug must not reach the protocol path or the other subscribers.
      if (!sub.reportedThrow) {
        sub.reportedThrow = true;
        console.error(`gatehouse: a ${this.name} subscriber threw (further errors from it are not reported):`, err);
      }
    }
  }
}
