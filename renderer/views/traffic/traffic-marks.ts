// Pins and replay links, kept by the host (`traffic:marks`, `traffic:pin`, `traffic:linkReplay`;
// main/api/traffic-marks.ts) so a reload, a second window or a restart finds them again. The
// TrafficStore only knows pins by seq for the rows it holds; this applies the host's marks to rows
// as they arrive (snapshot, live batches, "Load older") and sends every change back.
import type { HostApi } from '../../../common/host-api';
import type { TrafficRow, TrafficStore } from '../../lib/traffic-store';

interface RowRef {
  session: string;
  seq: number;
  ts: number;
}

type MarksApi = Pick<HostApi, 'call'>;

const refOf = (row: TrafficRow): RowRef => ({ session: row.ev.session, seq: row.seq, ts: row.ev.ts });
const same = (row: TrafficRow | undefined, ref: RowRef): row is TrafficRow => !!row && row.ev.session === ref.session && row.ev.ts === ref.ts;

export class TrafficMarksSync {
  private pendingPins: RowRef[] = [];
  private pendingReplays: Array<{ session: string; exchange: string; original: RowRef }> = [];
  private frame = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly api: MarksApi,
    private readonly store: TrafficStore,
  ) {}

  /** Fetches the host's marks and applies them as their rows arrive. */
  async start(): Promise<void> {
    this.unsubscribe ??= this.store.subscribe(() => {
      // Cheap when nothing waits (the common case): no per-batch work at all.
      if (this.frame || (this.pendingPins.length === 0 && this.pendingReplays.length === 0)) return;
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.apply();
      });
    });
    try {
      const marks = await this.api.call('traffic:marks', {});
      this.pendingPins = marks.pins;
      this.pendingReplays = marks.replays;
      this.apply();
    } catch {
      // An older host without marks: pins stay per window.
    }
  }

  dispose(): void {
    this.unsubscribe?.();
    if (this.frame) cancelAnimationFrame(this.frame);
  }

  togglePin(row: TrafficRow): void {
    this.store.togglePin(row);
    const pinned = this.store.isPinned(row);
    void this.api.call('traffic:pin', { row: refOf(row), pinned }).catch(() => {});
  }

  linkReplay(original: TrafficRow, session: string, exchange: string): void {
    this.store.linkReplay(original, session, exchange);
    void this.api.call('traffic:linkReplay', { session, exchange, original: refOf(original) }).catch(() => {});
  }

  private apply(): void {
    if (this.pendingPins.length) {
      this.pendingPins = this.pendingPins.filter((ref) => {
        const row = this.store.get(ref.seq);
        if (!same(row, ref)) return true;
        if (!this.store.isPinned(row)) this.store.togglePin(row);
        return false;
      });
    }
    if (this.pendingReplays.length) {
      this.pendingReplays = this.pendingReplays.filter((link) => {
        const row = this.store.get(link.original.seq);
        if (!same(row, link.original)) return true;
        this.store.linkReplay(row, link.session, link.exchange);
        return false;
      });
    }
  }
}
