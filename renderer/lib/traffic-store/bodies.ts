// Message bodies of live rows, fetched from the host when shown (docs/ui-layout.md "Traffic's memory and render path"): the detail pane,
// replay, diff and export ask here; the store keeps only row fields (body-shed.ts). A few hundred
// recent bodies are cached so moving between rows does not refetch.
import type { HostApi } from '../../../common/host-api';
import type { TrafficRow } from './types';

const CACHE = 500;
const CHUNK = 2000;

export type BodyState = { state: 'held'; message: unknown } | { state: 'loading' } | { state: 'gone' };

export class TrafficBodies {
  private api: Pick<HostApi, 'call'> | undefined;
  private readonly cache = new Map<number, unknown>();
  private readonly gone = new Set<number>();
  private readonly loading = new Map<number, Promise<void>>();
  private readonly listeners = new Set<() => void>();
  version = 0;

  connect(api: Pick<HostApi, 'call'>): void {
    this.api = api;
  }

  /** The row's message now: its own (history, synthetic, faults), or the host's once fetched. */
  peek(row: TrafficRow): BodyState {
    if (!row.remote) return { state: 'held', message: row.ev.message };
    if (this.cache.has(row.seq)) return { state: 'held', message: this.cache.get(row.seq) };
    if (this.gone.has(row.seq)) return { state: 'gone' };
    return { state: 'loading' };
  }

  /** The row's message, fetched if need be; undefined when the host no longer has it. */
  async message(row: TrafficRow): Promise<unknown> {
    await this.load([row]);
    const b = this.peek(row);
    return b.state === 'held' ? b.message : undefined;
  }

  /** Fetch the bodies of these rows that are not here yet (in chunks). */
  async load(rows: readonly TrafficRow[]): Promise<void> {
    const want = rows.filter((r) => r.remote && !this.cache.has(r.seq) && !this.gone.has(r.seq));
    const waits: Promise<void>[] = [];
    const fresh: TrafficRow[] = [];
    for (const r of want) {
      const p = this.loading.get(r.seq);
      if (p) waits.push(p);
      else fresh.push(r);
    }
    for (let i = 0; i < fresh.length; i += CHUNK) {
      const chunk = fresh.slice(i, i + CHUNK);
      const p = this.fetch(chunk);
      for (const r of chunk) this.loading.set(r.seq, p);
      waits.push(p);
    }
    await Promise.all(waits);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every row's message for an export, in chunks, not cached (a held row's own, or the host's). */
  async collect(rows: readonly TrafficRow[]): Promise<Map<number, unknown>> {
    const out = new Map<number, unknown>();
    const remote: TrafficRow[] = [];
    for (const r of rows) {
      const b = this.peek(r);
      if (b.state === 'held') out.set(r.seq, b.message);
      else if (r.remote) remote.push(r);
    }
    for (let i = 0; i < remote.length && this.api; i += CHUNK) {
      const chunk = remote.slice(i, i + CHUNK);
      const got = await this.api.call('traffic:bodies', { refs: chunk.map((r) => ({ session: r.ev.session, seq: r.seq, ts: r.ev.ts })) });
      for (const b of got) if (b.found) out.set(b.seq, b.message);
    }
    return out;
  }

  private async fetch(rows: TrafficRow[]): Promise<void> {
    try {
      if (!this.api) throw new Error('no host connection');
      const out = await this.api.call('traffic:bodies', { refs: rows.map((r) => ({ session: r.ev.session, seq: r.seq, ts: r.ev.ts })) });
      for (const b of out) {
        if (b.found) this.cache.set(b.seq, b.message);
        else this.gone.add(b.seq);
      }
    } catch {
      for (const r of rows) this.gone.add(r.seq);
    } finally {
      for (const r of rows) this.loading.delete(r.seq);
      while (this.cache.size > CACHE) this.cache.delete(this.cache.keys().next().value!);
      while (this.gone.size > 10 * CACHE) this.gone.delete(this.gone.values().next().value!);
      this.version++;
      for (const l of [...this.listeners]) l();
    }
  }
}
