// The renderer's composition root for live data: created once in main.tsx, it takes a
// snapshot of the host (bounded replay), then applies events. Traffic and stderr bytes never
// enter React state: they go straight into the traffic/log stores (STYLE.md).
//
// Events that arrive while a snapshot is in flight are held and replayed after it, skipping
// traffic/stderr the snapshot already contained (by seq), so nothing is shown twice or lost.
import type { EventName, EventPayload, HostApi } from '../../common/host-api';
import type { ConnectedHostApi, ConnectionInfo } from '../api';
import { ApprovalsStore } from './approvals-store';
import { NoticesStore } from './notices-store';
import { LaunchesStore } from './launches-store';
import { Store } from './store';
import type { BufferStats, DecisionEvent, PendingApproval, StderrLine, TrafficEvent } from './types';

/** What the traffic store must accept (renderer/lib/traffic-store implements it). */
export interface TrafficSink {
  replace(events: TrafficEvent[], stats: BufferStats): void;
  append(events: TrafficEvent[], dropped: number): void;
  /** The host's records of calls: decision, who decided, outcome (and rows for console calls). */
  applyExchanges(list: EventPayload<'exchange:batch'>['changes'][number]['exchange'][]): void;
  /** A server's session ended (crash, stop, restart): its calls in flight will never be answered. */
  abortPending(server: string, session?: string): number;
}

/** What the Tool console's state must accept (renderer/state/tool-console-state.ts implements it). */
export interface ConsoleCallSink {
  adopt(call: EventPayload<'console:call'>['call']): void;
}

/** What the log store must accept (renderer/lib/log-store implements it). */
export interface LogSink {
  replace(lines: StderrLine[], stats?: BufferStats): void;
  append(lines: StderrLine[], dropped: number): void;
}

export type ConnectionStatus = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

export interface ConnectionState {
  status: ConnectionStatus;
  /** Why the last attempt failed, shown on hover. */
  detail?: string;
  /** Failed attempts since the connection was last open. */
  attempts: number;
  since: number;
}

/** Any HostApi works; a transport that can drop (the WebSocket) also reports its connection. */
export type AppHostApi = HostApi & Partial<Pick<ConnectedHostApi, 'connection' | 'onConnectionChange'>>;

export function connectionStatus(info: ConnectionInfo, everOpened: boolean): ConnectionStatus {
  if (info.state === 'open') return 'connected';
  if (info.state === 'closed') return 'disconnected';
  return everOpened || info.attempts > 0 ? 'reconnecting' : 'connecting';
}

export const SNAPSHOT_TRAFFIC_LIMIT = 20_000;
export const SNAPSHOT_STDERR_LIMIT = 5_000;
const DECISIONS_LIMIT = 500;
const ENDED_STATES: ReadonlySet<string> = new Set(['failed', 'stopped', 'restarting']);

type Held = { [E in EventName]: { event: E; payload: EventPayload<E> } }[EventName];

export class AppState {
  readonly launches = new LaunchesStore();
  readonly approvals = new ApprovalsStore();
  readonly notices = new NoticesStore();
  readonly connection = new Store<ConnectionState>({ status: 'connecting', attempts: 0, since: Date.now() });
  readonly decisions = new Store<DecisionEvent[]>([]);

  private offs: Array<() => void> = [];
  private held: Held[] | null = null;
  private snapshotting: Promise<void> | null = null;
  private newApprovalListeners = new Set<(r: PendingApproval) => void>();
  private pruneTimer: ReturnType<typeof setInterval> | null = null;

  constructor(
    readonly api: AppHostApi,
    private readonly traffic: TrafficSink | null,
    private readonly logs: LogSink | null,
    private readonly consoleCalls: ConsoleCallSink | null = null,
  ) {}

  start(): void {
    const sub = <E extends EventName>(event: E): void => {
      this.offs.push(this.api.on(event, (payload) => this.receive({ event, payload } as Held)));
    };
    sub('launch:changed');
    sub('server:status');
    sub('traffic:batch');
    sub('stderr:batch');
    sub('approval:requested');
    sub('approval:resolved');
    sub('approval:notice');
    sub('decision:made');
    sub('exchange:batch');
    sub('console:call');

    if (this.api.onConnectionChange) {
      let everOpened = false;
      const onInfo = (info: ConnectionInfo): void => {
        const status = connectionStatus(info, everOpened);
        if (info.state === 'open') everOpened = true;
        this.connection.set({ status, detail: info.reason, attempts: info.attempts, since: Date.now() });
        // A window that reattaches gets a fresh bounded replay before live events: whatever
        // was sent while the socket was down is gone, the host's buffers are not.
        if (info.state === 'open' && info.reconnected) void this.snapshot();
      };
      this.offs.push(this.api.onConnectionChange(onInfo));
      const now = this.api.connection?.();
      if (now) onInfo(now);
    }
    this.pruneTimer = setInterval(() => this.approvals.prune(Date.now()), 1000);
    void this.snapshot();
  }

  dispose(): void {
    for (const off of this.offs) off();
    this.offs = [];
    if (this.pruneTimer) clearInterval(this.pruneTimer);
  }

  /** Called when a new approval request arrives live (for desktop notifications). */
  onNewApproval(listener: (r: PendingApproval) => void): () => void {
    this.newApprovalListeners.add(listener);
    return () => this.newApprovalListeners.delete(listener);
  }

  snapshot(): Promise<void> {
    if (this.snapshotting) return this.snapshotting;
    this.held = [];
    this.snapshotting = (async () => {
      try {
        const snap = await this.api.call('host:snapshot', { trafficLimit: SNAPSHOT_TRAFFIC_LIMIT, stderrLimit: SNAPSHOT_STDERR_LIMIT });
        this.launches.replace(snap.launches);
        this.approvals.replace(snap.approvals);
        this.notices.replace(snap.approvalNotices ?? []);
        this.traffic?.replace(snap.traffic, snap.trafficStats);
        this.traffic?.applyExchanges(snap.exchanges ?? []);
        this.logs?.replace(snap.stderr, snap.stderrStats);
        for (const call of snap.consoleCalls ?? []) this.consoleCalls?.adopt(call);
        const lastTraffic = snap.traffic.at(-1)?.seq ?? -Infinity;
        const lastStderr = snap.stderr.at(-1)?.seq ?? -Infinity;
        const held = this.held ?? [];
        this.held = null;
        for (const h of held) {
          if (h.event === 'traffic:batch') {
            const events = h.payload.events.filter((e) => e.seq > lastTraffic);
            if (events.length || h.payload.dropped) this.apply({ event: h.event, payload: { events, dropped: h.payload.dropped } });
          } else if (h.event === 'stderr:batch') {
            const lines = h.payload.lines.filter((l) => l.seq > lastStderr);
            if (lines.length || h.payload.dropped) this.apply({ event: h.event, payload: { lines, dropped: h.payload.dropped } });
          } else {
            this.apply(h);
          }
        }
        // IPC never reports its connection: a snapshot that worked is proof enough.
        if (!this.api.onConnectionChange) this.connection.set({ status: 'connected', attempts: 0, since: Date.now() });
      } catch (e) {
        const held = this.held ?? [];
        this.held = null;
        for (const h of held) this.apply(h);
        const detail = e instanceof Error ? e.message : String(e);
        if (!this.api.onConnectionChange) this.connection.set({ status: 'disconnected', detail, attempts: 0, since: Date.now() });
        else this.connection.update((c) => ({ ...c, detail }));
        this.launches.update((s) => ({ ...s, loaded: true }));
      } finally {
        this.snapshotting = null;
      }
    })();
    return this.snapshotting;
  }

  private receive(h: Held): void {
    if (this.held) {
      this.held.push(h);
      // Requests must still be visible at once, even mid-snapshot: add now, the replace()
      // that follows keeps them (it is replayed after).
      if (h.event === 'approval:requested') this.newApprovalListeners.forEach((l) => l(h.payload.request));
      return;
    }
    this.apply(h, true);
  }

  private apply(h: Held, live = false): void {
    switch (h.event) {
      case 'launch:changed':
        this.launches.applyLaunchChanged(h.payload.launch, h.payload.stopped);
        break;
      case 'server:status': {
        const { launchId, status } = h.payload;
        this.launches.applyServerStatus(launchId, status);
        // The server's process is gone: calls it had not answered are marked aborted, not left pending.
        if (ENDED_STATES.has(status.state)) this.traffic?.abortPending(status.id, launchId);
        break;
      }
      case 'traffic:batch':
        this.traffic?.append(h.payload.events, h.payload.dropped);
        break;
      case 'stderr:batch':
        this.logs?.append(h.payload.lines, h.payload.dropped);
        break;
      case 'approval:requested': {
        const added = this.approvals.add(h.payload.request);
        if (added && live) this.newApprovalListeners.forEach((l) => l(h.payload.request));
        break;
      }
      case 'approval:resolved':
        this.approvals.resolve(h.payload.request, h.payload.outcome);
        break;
      case 'exchange:batch':
        this.traffic?.applyExchanges(h.payload.changes.map((c) => c.exchange));
        break;
      case 'console:call':
        this.consoleCalls?.adopt(h.payload.call);
        break;
      case 'approval:notice':
        this.notices.upsert(h.payload.notice);
        break;
      case 'decision:made':
        this.decisions.update((d) => [h.payload, ...d].slice(0, DECISIONS_LIMIT));
        break;
    }
  }
}
