// A bounded, batched event bus: the protocol path publishes and never waits
// (ARCHITECTURE.md: "The protocol path never waits for the UI or the disk"). The bus keeps
// the last `capacity` items for replay to a window that attaches late, and delivers to each
// subscriber in batches on a timer, the way VS Code batches pty output, so a burst of a
// thousand messages costs a subscriber one call, not a thousand.

export const DEFAULT_BUS_CAPACITY = 10_000;
export const DEFAULT_BATCH_INTERVAL_MS = 25;
export const DEFAULT_MAX_PENDING = 5_000;
/** With a sizeOf: bytes the ring keeps for replay, and bytes one subscriber may have waiting. */
export const DEFAULT_BUS_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_PENDING_BYTES = 16 * 1024 * 1024;

export interface BoundedBusOptions<T = unknown> {
  /** Items kept for snapshot/replay (a ring: the oldest is overwritten). */
  capacity?: number;
  /** Names the bus in the one-line stderr report of a throwing subscriber. */
  name?: string;
  /**
   * An item's size in bytes (about what it holds in memory). With it, the ring and every
   * subscriber queue are bounded in bytes too, not only in items: a thousand 1 MB messages
   * must not be held because a thousand 200-byte ones would fit.
   */
  sizeOf?: (item: T) => number;
  /** Bytes the ring keeps (with sizeOf; default DEFAULT_BUS_MAX_BYTES). The newest item is always kept. */
  maxBytes?: number;
}

export interface SubscribeOptions<T = unknown> {
  /** How often pending items are delivered. */
  intervalMs?: number;
  /** Items a subscriber may have waiting; beyond that the oldest are dropped (and counted). */
  maxPending?: number;
  /** Bytes a subscriber may have waiting (when the bus has a sizeOf); beyond that the oldest are dropped (and counted). */
  maxPendingBytes?: number;
  /**
   * Deliver at once, from inside publish(), when a published item matches: the one exception to
   * "never calls a subscriber from publish", for the audit writer, which must have an agent's
   * answer on disk before the answer leaves (docs/audit.md "Audit store": no answered call missing after a crash).
   */
  flushOn?: (item: T) => boolean;
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
  /** Bytes held in the ring (only with a sizeOf). */
  heldBytes?: number;
}

interface Subscription<T> {
  fn: BusSubscriber<T>;
  intervalMs: number;
  maxPending: number;
  // A queue as array + head index: dropping the oldest is O(1), compacted now and then.
  queue: T[];
  head: number;
  dropped: number;
  maxPendingBytes: number;
  pendingBytes: number;
  flushOn: ((item: T) => boolean) | undefined;
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
  private readonly sizeOf: ((item: T) => number) | undefined;
  private readonly maxBytes: number;
  private readonly sizes: number[];
  private heldBytes = 0;

  constructor(options: BoundedBusOptions<T> = {}) {
    this.capacity = options.capacity ?? DEFAULT_BUS_CAPACITY;
    if (!Number.isInteger(this.capacity) || this.capacity <= 0) {
      throw new Error(`capacity: expected a positive integer, got ${String(options.capacity)}`);
    }
    this.name = options.name ?? 'bus';
    this.ring = new Array<T | undefined>(this.capacity);
    this.sizeOf = options.sizeOf;
    this.maxBytes = options.maxBytes ?? DEFAULT_BUS_MAX_BYTES;
    this.sizes = this.sizeOf ? new Array<number>(this.capacity).fill(0) : [];
  }

  private measure(item: T): number {
    if (!this.sizeOf) return 0;
    try {
      const n = this.sizeOf(item);
      return Number.isFinite(n) && n > 0 ? n : 0;
    } catch {
      return 0;
    }
  }

  /** Keeps the ring within its byte budget, oldest out first (the newest item always stays). */
  private trimRingBytes(): void {
    while (this.heldBytes > this.maxBytes && this.held > 1) {
      const oldest = (this.next - this.held + this.capacity) % this.capacity;
      this.heldBytes -= this.sizes[oldest]!;
      this.sizes[oldest] = 0;
      this.ring[oldest] = undefined;
      this.held--;
    }
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
    const size = this.measure(full);
    if (this.sizeOf) {
      this.heldBytes += size - (this.held === this.capacity ? this.sizes[this.next]! : 0);
      this.sizes[this.next] = size;
    }
    this.ring[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
    if (this.held < this.capacity) this.held++;
    if (this.sizeOf) this.trimRingBytes();
    if (this.closed) return full;
    for (const sub of this.subs) {
      sub.queue.push(full);
      sub.pendingBytes += size;
      while (sub.queue.length - sub.head > sub.maxPending || (sub.pendingBytes > sub.maxPendingBytes && sub.queue.length - sub.head > 1)) {
        if (this.sizeOf) sub.pendingBytes -= this.measure(sub.queue[sub.head]!);
        sub.head++;
        sub.dropped++;
        this.droppedTotal++;
      }
      if (sub.head > sub.maxPending) {
        sub.queue = sub.queue.slice(sub.head);
        sub.head = 0;
      }
      if (sub.flushOn?.(full)) {
        if (sub.timer) clearTimeout(sub.timer);
        this.flush(sub);
      } else if (!sub.timer) this.schedule(sub);
    }
    return full;
  }

  /**
   * Deliver future items to `fn` in batches, never from inside publish(). To replay history
   * without a gap, call snapshot() and subscribe() in the same tick. Returns unsubscribe.
   */
  subscribe(fn: BusSubscriber<T>, options: SubscribeOptions<T> = {}): () => void {
    const sub: Subscription<T> = {
      fn,
      intervalMs: options.intervalMs ?? DEFAULT_BATCH_INTERVAL_MS,
      maxPending: Math.max(1, options.maxPending ?? DEFAULT_MAX_PENDING),
      queue: [],
      head: 0,
      dropped: 0,
      maxPendingBytes: Math.max(1, options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES),
      pendingBytes: 0,
      flushOn: options.flushOn,
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
    return { held: this.held, total: this.seq, dropped: this.droppedTotal, evicted: this.seq - this.held, ...(this.sizeOf ? { heldBytes: this.heldBytes } : {}) };
  }

  /**
   * Stops delivering. What a subscriber has waiting is delivered first, in this call: the audit
   * writer of a host that shuts down gets the last messages (up to a batch interval's worth)
   * instead of losing them. The ring stays readable.
   */
  close(): void {
    this.closed = true;
    for (const sub of [...this.subs]) {
      if (sub.timer) clearTimeout(sub.timer);
      this.flush(sub);
      this.unsubscribe(sub);
    }
  }

  private unsubscribe(sub: Subscription<T>): void {
    sub.active = false;
    if (sub.timer) clearTimeout(sub.timer);
    sub.timer = undefined;
    sub.queue = [];
    sub.head = 0;
    sub.pendingBytes = 0;
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
    sub.pendingBytes = 0;
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
