// One-line notices in the approvals inbox for things a person should know but cannot answer:
// e.g. "refused 496 requests from gateway pid 4242: limit 16 pending per gateway". A flood is
// one line whose count grows, never hundreds of cards (relay-server.ts). Bounded: the newest
// MAX_NOTICES keys are kept.
export interface InboxNotice {
  key: string;
  text: string;
  count: number;
  /** ms since the epoch of the latest bump. */
  at: number;
}

export const MAX_NOTICES = 32;

export class InboxNotices {
  private readonly byKey = new Map<string, InboxNotice>();
  private readonly listeners = new Set<(n: InboxNotice) => void>();

  /** Adds `by` to the notice `key` and sets its text from the new count. */
  bump(key: string, by: number, text: (count: number) => string): InboxNotice {
    const count = (this.byKey.get(key)?.count ?? 0) + by;
    const notice: InboxNotice = { key, text: text(count), count, at: Date.now() };
    this.byKey.delete(key); // re-insert: Map order is recency
    this.byKey.set(key, notice);
    while (this.byKey.size > MAX_NOTICES) this.byKey.delete(this.byKey.keys().next().value!);
    for (const fn of this.listeners) fn(notice);
    return notice;
  }

  list(): InboxNotice[] {
    return [...this.byKey.values()].map((n) => ({ ...n }));
  }

  onChange(fn: (n: InboxNotice) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
