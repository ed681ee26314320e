// The Traffic timeline's data (issue 5): a bounded, indexed store of JSON-RPC traffic that the
// view reads on animation frames. Output bytes never live in React state (STYLE.md): rows live
// here, and a virtualized list renders the visible slice.
//
// Cost model: append is O(1) amortised per event (a ring buffer plus hash indexes, no re-sort);
// a filter change walks the held rows once; everything else touches one call's tree.
import { invalidateSummary, progressText, rowSummary } from './summary';
import { newEraSides } from '../era';
import type {
  Direction,
  ExchangeInfo,
  HostBufferStats,
  Progress,
  RowStatus,
  StatusFilter,
  TrafficEvent,
  TrafficFilter,
  TrafficRow,
  TrafficStats,
} from './types';

export const DEFAULT_TRAFFIC_CAPACITY = 100_000;

/** Server → client requests that happen on behalf of a call in flight (MCP: sampling, elicitation, roots). */
const NESTED_SERVER_REQUESTS = new Set(['sampling/createMessage', 'elicitation/create', 'roots/list']);

const OPPOSITE: Record<Direction, Direction> = {
  agent_to_gateway: 'gateway_to_agent',
  gateway_to_agent: 'agent_to_gateway',
  gateway_to_server: 'server_to_gateway',
  server_to_gateway: 'gateway_to_server',
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `(session, agentSession)` for the downstream hops, `(session, server)` for the upstream ones. */
export function connectionOf(ev: Pick<TrafficEvent, 'session' | 'agentSession' | 'server' | 'direction'>): string {
  return ev.direction === 'agent_to_gateway' || ev.direction === 'gateway_to_agent'
    ? `${ev.session}\u0000a\u0000${ev.agentSession ?? ''}`
    : `${ev.session}\u0000s\u0000${ev.server ?? ''}`;
}

// JSON-RPC ids 1 and "1" are different ids.
const idKey = (id: string | number): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

export class TrafficStore {
  private capacity: number;
  /** Physical ring size: `capacity`, or more while older history loaded on request is held. */
  private ringSize: number;
  private ring: (TrafficRow | undefined)[];
  private head = 0;
  private count = 0;

  // indexes (entries are deleted on eviction, when they still point at the evicted row)
  private readonly bySeq = new Map<number, TrafficRow>();
  private readonly pending = new Map<string, TrafficRow>(); // conn|dir|id → open request
  private readonly inflight = new Map<string, TrafficRow[]>(); // conn|dir → open requests, oldest first
  private readonly tokens = new Map<string, TrafficRow>(); // conn|token → request that asked for progress
  private readonly exchanges = new Map<string, TrafficRow>(); // session|exchange → the agent-side call (or first leg)
  private readonly replayLinks = new Map<string, number>(); // session|exchange → seq of the original call
  /** session|exchange → the host's record of the call (decision, decider, outcome), latest state. */
  private readonly exchangeInfo = new Map<string, ExchangeInfo>();
  private maxSeq = 0;
  private synthetic = 0;
  /** Ingesting older history: a response whose request is older still is not "unmatched". */
  private ingestingHistory = false;
  private readonly methodsSeen = new Set<string>();
  private readonly serversSeen = new Set<string>();

  // view state, keyed by seq so it survives a rebuild
  private readonly pins = new Set<number>();
  private readonly pinnedKept = new Map<number, TrafficRow>(); // pinned rows evicted from the ring
  private readonly expanded = new Set<number>();
  private expandAll = false;

  private filter: TrafficFilter = {};
  private compiled: CompiledFilter = compile({});

  /** The visible list, ordered by (root seq, seq): roots, and under an expanded root its children. */
  private entries: TrafficRow[] = [];

  private base: HostBufferStats = { held: 0, total: 0, dropped: 0 };
  private appended = 0;
  private droppedLive = 0;
  private evictedCount = 0;

  private listeners = new Set<() => void>();
  /** Bumps on every change a view must redraw for. */
  version = 0;
  /** Entries added at the tail of the visible list, ever (the "N new" marker counts from here). */
  tailAppends = 0;
  /** Entries removed from the head of the visible list by eviction, ever (keeps the scroll anchored). */
  headRemovals = 0;

  constructor(options: { capacity?: number } = {}) {
    this.capacity = Math.max(1, Math.floor(options.capacity ?? DEFAULT_TRAFFIC_CAPACITY));
    this.ringSize = this.capacity;
    this.ring = new Array<TrafficRow | undefined>(this.ringSize);
  }

  // ---- feeding ------------------------------------------------------------------------------

  /** A fresh snapshot (`host:snapshot`): forget everything held and index these events. */
  replace(events: readonly TrafficEvent[], stats?: HostBufferStats): void {
    this.reset(this.capacity);
    // A fresh snapshot brings the exchanges it knows of (applyExchanges right after).
    this.exchangeInfo.clear();
    this.base = stats ? { ...stats } : { held: events.length, total: events.length, dropped: 0 };
    this.appended = 0;
    this.droppedLive = 0;
    this.evictedCount = 0;
    for (const ev of events) this.ingest(ev);
    this.rebuildEntries();
    this.changed();
  }

  /** A live batch (`traffic:batch`); `dropped` = events the host could not deliver to this window. */
  append(events: readonly TrafficEvent[], dropped = 0): void {
    this.droppedLive += dropped;
    for (const ev of events) {
      this.appended++;
      this.ingest(ev);
    }
    if (events.length > 0 || dropped > 0) this.changed();
  }

  /**
   * Older history (from `traffic:history`), oldest first. Kept in addition to `capacity`
   * (up to twice it) until live traffic pushes it out again.
   */
  prependHistory(events: readonly TrafficEvent[]): number {
    const oldest = this.count > 0 ? this.rowAt(0)!.seq : Infinity;
    let older = events.filter((e) => e.seq < oldest);
    const room = 2 * this.capacity - this.count;
    if (older.length > room) older = older.slice(older.length - Math.max(0, room));
    if (older.length === 0) return 0;
    const current: TrafficEvent[] = [];
    for (let i = 0; i < this.count; i++) current.push(this.rowAt(i)!.ev);
    this.reset(Math.max(this.capacity, older.length + current.length));
    this.ingestingHistory = true;
    try {
      for (const ev of older) this.ingest(ev);
    } finally {
      this.ingestingHistory = false;
    }
    for (const ev of current) this.ingest(ev);
    this.rebuildEntries();
    this.changed();
    return older.length;
  }

  /** A server's session ended (crash, stop): its calls in flight will never be answered. */
  abortPending(server: string, session?: string): number {
    let n = 0;
    for (const [key, list] of this.inflight) {
      const [s, side, id] = key.split('\u0000');
      if (side !== 's' || id !== server || (session !== undefined && s !== session)) continue;
      for (const row of list) {
        if (row.status === 'pending') {
          n++;
          this.setStatus(row, 'aborted');
          if (row.root !== row && row.root.status === 'pending') this.setStatus(row.root, 'aborted');
        }
      }
    }
    if (n > 0) this.changed();
    return n;
  }

  setCapacity(capacity: number): void {
    const next = Math.max(1, Math.floor(capacity));
    if (next === this.capacity && this.ringSize === next) return;
    const keep: TrafficRow[] = [];
    for (let i = Math.max(0, this.count - next); i < this.count; i++) keep.push(this.rowAt(i)!);
    for (let i = 0; i < this.count - keep.length; i++) {
      this.evictedCount++;
      this.evict(this.rowAt(i)!);
    }
    this.capacity = next;
    this.ringSize = next;
    this.ring = new Array<TrafficRow | undefined>(next);
    this.head = 0;
    this.count = 0;
    for (const r of keep) this.ring[this.count++] = r;
    this.rebuildEntries();
    this.changed();
  }

  // ---- reading --------------------------------------------------------------------------------

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stats(): TrafficStats {
    return {
      held: this.count,
      total: this.base.total + this.appended + this.droppedLive,
      dropped: this.base.dropped + this.droppedLive,
      evicted: this.evictedCount + (this.base.evicted ?? 0),
      capacity: this.capacity,
    };
  }

  /** Visible rows (after filters, pins and expansion). */
  size(): number {
    return this.entries.length;
  }

  at(index: number): TrafficRow | undefined {
    return this.entries[index];
  }

  indexOf(row: TrafficRow): number {
    if (!row._shown) return -1;
    const i = lowerBound(this.entries, row);
    return this.entries[i] === row ? i : -1;
  }

  get(seq: number): TrafficRow | undefined {
    return this.bySeq.get(seq) ?? this.pinnedKept.get(seq);
  }

  /** Every row held, oldest first (merged responses included). */
  *all(): IterableIterator<TrafficRow> {
    for (let i = 0; i < this.count; i++) yield this.rowAt(i)!;
  }

  summary(row: TrafficRow): string {
    return rowSummary(row);
  }

  /** Seq of the oldest event held (for `traffic:history` `beforeSeq`). */
  oldestSeq(): number | undefined {
    // A synthetic row's fractional seq is not a tap seq: page back from the oldest real one.
    for (let i = 0; i < this.count; i++) {
      const row = this.rowAt(i)!;
      if (!row.synthetic) return row.seq;
    }
    return undefined;
  }

  /**
   * The host's exchange records (`exchange:batch`, `host:snapshot`): each call's row takes its
   * decision, who decided and its outcome from here. A call that has no agent-side request row
   * (Tool console, legacy envelope) gets a row of its own, so denied and pending console calls
   * show too.
   */
  applyExchanges(list: readonly ExchangeInfo[]): void {
    if (list.length === 0) return;
    for (const info of list) {
      const key = `${info.session}\u0000${info.id}`;
      this.exchangeInfo.delete(key);
      this.exchangeInfo.set(key, info);
      if (this.exchangeInfo.size > this.capacity) {
        const oldest = this.exchangeInfo.keys().next();
        if (!oldest.done) this.exchangeInfo.delete(oldest.value);
      }
      const row = this.exchanges.get(key);
      if (row && !row.evicted) this.applyInfo(row, info);
      else if (needsOwnRow(info)) this.ingest(this.syntheticEvent(info));
    }
    this.changed();
  }

  /** Methods and servers seen among the held rows (for filter chips and selects). */
  facets(): { methods: string[]; servers: string[] } {
    return { methods: [...this.methodsSeen].sort(), servers: [...this.serversSeen].sort() };
  }

  // ---- filters, pins, expansion -----------------------------------------------------------------

  getFilter(): TrafficFilter {
    return this.filter;
  }

  /** One pass over the held rows, however many criteria changed. */
  setFilter(filter: TrafficFilter): void {
    this.filter = filter;
    this.compiled = compile(filter);
    for (let i = 0; i < this.count; i++) this.rowAt(i)!._childMatches = 0;
    for (const r of this.pinnedKept.values()) r._childMatches = 0;
    for (let i = 0; i < this.count; i++) {
      const r = this.rowAt(i)!;
      if (r.merged) continue;
      r._match = this.matches(r);
      if (r._match && r.root !== r) r.root._childMatches++;
    }
    for (const r of this.pinnedKept.values()) r._match = this.matches(r);
    this.rebuildEntries();
    this.changed();
  }

  /** The active text query, lower-cased (empty when none). */
  query(): string {
    return this.compiled.text;
  }

  isPinned(row: TrafficRow): boolean {
    return this.pins.has(row.seq);
  }

  togglePin(row: TrafficRow): void {
    if (this.pins.has(row.seq)) {
      this.pins.delete(row.seq);
      this.pinnedKept.delete(row.seq);
    } else this.pins.add(row.seq);
    if (row.evicted && !this.pins.has(row.seq)) this.removeEntry(row);
    else this.refreshVisibility(row);
    this.changed();
  }

  pinnedRows(): TrafficRow[] {
    const out: TrafficRow[] = [];
    for (const seq of this.pins) {
      const r = this.get(seq);
      if (r) out.push(r);
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  isExpanded(row: TrafficRow): boolean {
    return this.expandAll ? !this.expanded.has(row.seq) : this.expanded.has(row.seq);
  }

  setExpanded(row: TrafficRow, open: boolean): void {
    const root = row.root;
    if (this.isExpanded(root) === open) return;
    if (this.expanded.has(root.seq)) this.expanded.delete(root.seq);
    else this.expanded.add(root.seq);
    if (root._shown && root.children) {
      for (const c of root.children) {
        if (open && c._match && !c.evicted) this.insertEntry(c);
        else if (!open) this.removeEntry(c);
      }
    }
    this.changed();
  }

  setExpandAll(open: boolean): void {
    this.expandAll = open;
    this.expanded.clear();
    this.rebuildEntries();
    this.changed();
  }

  expandedAll(): boolean {
    return this.expandAll;
  }

  // ---- exchanges, export, replay ----------------------------------------------------------------

  /** Everything that belongs to this row's call: both hops, their responses, progress, sampling. */
  exchangeRows(row: TrafficRow): TrafficRow[] {
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

  /** The root call of an exchange (`<agentSession>#<id>`) in a launch, when held. */
  exchangeRoot(session: string, exchange: string): TrafficRow | undefined {
    return this.exchanges.get(`${session}\u0000${exchange}`)?.root;
  }

  /** The filtered set (what the timeline shows, with the responses merged into it), oldest first. */
  filteredRows(): TrafficRow[] {
    const out: TrafficRow[] = [];
    for (const r of this.entries) {
      out.push(r);
      if (r.pair?.merged) out.push(r.pair);
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Link a replay's exchange to the call it re-sent; the replay's row gets `replayOf`. */
  linkReplay(original: TrafficRow, session: string, exchange: string): void {
    const key = `${session}\u0000${exchange}`;
    this.replayLinks.set(key, original.seq);
    const root = this.exchanges.get(key)?.root;
    if (root) root.replayOf = original.seq;
    this.changed();
  }

  /** Calls that replayed this one (seq order). */
  replaysOf(row: TrafficRow): TrafficRow[] {
    const out: TrafficRow[] = [];
    for (const [key, seq] of this.replayLinks) {
      if (seq !== row.seq) continue;
      const r = this.exchanges.get(key)?.root;
      if (r) out.push(r);
    }
    return out;
  }

  // ---- ingest -----------------------------------------------------------------------------------

  /** The row a call with no agent-side request stands on: what the host knows of it. */
  private syntheticEvent(info: ExchangeInfo): TrafficEvent {
    // Between the last tap seq seen and the next one, unique.
    const seq = this.maxSeq + (++this.synthetic % 1_000_000) / 1_000_001;
    return {
      seq,
      ts: info.ts,
      session: info.session,
      ...(info.agentSession !== undefined ? { agentSession: info.agentSession } : {}),
      direction: 'agent_to_gateway',
      kind: 'request',
      method: info.method,
      bytes: 0,
      message: { jsonrpc: '2.0', method: info.method, params: { name: info.advertised ?? info.tool } },
      exchange: info.id,
      ...(info.tool !== undefined ? { tool: info.tool } : {}),
      ...(info.server !== undefined ? { server: info.server } : {}),
      ...(info.decision !== undefined ? { decision: info.decision } : {}),
    };
  }

  private applyInfo(row: TrafficRow, info: ExchangeInfo): void {
    row.newEra = newEraSides(info);
    if (info.decision) row.decision = info.decision;
    if (info.decidedBy) row.decidedBy = info.decidedBy;
    row.outcome = info.outcome;
    if (info.tool && !row.tool) row.tool = info.tool;
    if (info.server && !row.server) {
      row.server = info.server;
      this.serversSeen.add(info.server);
    }
    let status = row.status ?? 'pending';
    if (row.synthetic || status === 'pending') {
      // The host knows how the call ended even when its response is not (yet) here.
      if (info.outcome === 'ok') status = 'ok';
      else if (info.outcome === 'cancelled' || info.outcome === 'aborted') status = 'aborted';
      else if (info.outcome !== 'pending') status = 'error';
      if (info.outcome !== 'ok' && info.outcome !== 'pending' && info.error && !row.error) row.error = info.error;
      if (info.latencyMs !== undefined && row.latencyMs === undefined && info.outcome !== 'pending') row.latencyMs = info.latencyMs;
    }
    if (row.synthetic || status !== row.status) this.setStatus(row, status);
    else {
      invalidateSummary(row);
      this.setStatus(row, status);
    }
  }

  private ingest(ev: TrafficEvent): void {
    if (this.count === this.ringSize) this.evictOldest();
    if (Number.isInteger(ev.seq) && ev.seq > this.maxSeq) this.maxSeq = ev.seq;
    const synthetic = !Number.isInteger(ev.seq);
    const row: TrafficRow = {
      ev,
      seq: ev.seq,
      conn: connectionOf(ev),
      root: undefined as unknown as TrafficRow,
      depth: 0,
      merged: false,
      evicted: false,
      _match: false,
      _childMatches: 0,
      _shown: false,
    };
    row.root = row;
    if (synthetic) row.synthetic = true;
    if (ev.server) {
      row.server = ev.server;
      this.serversSeen.add(ev.server);
    }
    if (ev.method) this.methodsSeen.add(ev.method);
    if (ev.tool) row.tool = ev.tool;
    if (ev.decision) row.decision = ev.decision;
    this.ring[(this.head + this.count) % this.ringSize] = row;
    this.count++;
    this.bySeq.set(row.seq, row);

    switch (ev.kind) {
      case 'request':
        this.ingestRequest(row);
        break;
      case 'notification':
        this.ingestNotification(row);
        break;
      case 'response':
      case 'error':
        this.ingestResponse(row);
        break;
      case 'fault':
        row.status = 'fault';
        break;
    }
    if (row.merged) return;
    row._match = this.matches(row);
    this.insertRow(row);
    // The call's own record, when the host sent it before this row arrived.
    if (ev.exchange && ev.kind === 'request') {
      const key = `${ev.session}\u0000${ev.exchange}`;
      const info = this.exchangeInfo.get(key);
      if (info && this.exchanges.get(key) === row) this.applyInfo(row, info);
    }
  }

  private insertRow(row: TrafficRow): void {
    if (row.root === row) {
      if (row._match || this.pins.has(row.seq)) this.insertEntry(row);
    } else {
      const root = row.root;
      (root.children ??= []).push(row);
      if (row._match) {
        root._childMatches++;
        this.refreshVisibility(root);
        if (this.flat() || (root._shown && this.isExpanded(root))) this.insertEntry(row);
      }
    }
  }

  private ingestRequest(row: TrafficRow): void {
    const { ev } = row;
    row.status = 'pending';
    const params = isObj(ev.message) && isObj(ev.message.params) ? ev.message.params : undefined;
    if (ev.id !== undefined) {
      const key = `${row.conn}\u0000${ev.direction}\u0000${idKey(ev.id)}`;
      this.pending.set(key, row);
      const flightKey = `${row.conn}\u0000${ev.direction}`;
      const list = this.inflight.get(flightKey);
      if (list) list.push(row);
      else this.inflight.set(flightKey, [row]);
    }
    const meta = params && isObj(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    if (typeof token === 'string' || typeof token === 'number') this.tokens.set(`${row.conn}\u0000${idKey(token)}`, row);

    let parent: TrafficRow | undefined;
    if (ev.exchange) {
      const key = `${ev.session}\u0000${ev.exchange}`;
      const call = this.exchanges.get(key);
      const downstream = ev.direction === 'agent_to_gateway';
      if (call && !call.evicted && !downstream) {
        // The upstream leg of an agent's call (same exchange, its own upstream id).
        parent = call;
        if (ev.server && !call.server) call.server = ev.server;
        if (ev.tool && !call.tool) call.tool = ev.tool;
        if (ev.decision && !call.decision) call.decision = ev.decision;
        invalidateSummary(call);
      } else if (!call || downstream) {
        this.exchanges.set(key, row);
      }
      const replayOf = this.replayLinks.get(key);
      if (replayOf !== undefined && !parent) row.replayOf = replayOf;
    }
    if (!parent && ev.method && NESTED_SERVER_REQUESTS.has(ev.method)) {
      // Sampling/elicitation come while a call is in flight on the same connection, the other way.
      parent = this.latestInFlight(row.conn, OPPOSITE[ev.direction]);
    }
    if (parent) this.attach(row, parent);
  }

  private ingestNotification(row: TrafficRow): void {
    const { ev } = row;
    const params = isObj(ev.message) && isObj(ev.message.params) ? ev.message.params : {};
    if (ev.method === 'notifications/progress') {
      const token = params.progressToken;
      if (typeof token !== 'string' && typeof token !== 'number') return;
      // Downstream: the agent's token; upstream: the gateway's token, which is the upstream request id.
      let call = this.tokens.get(`${row.conn}\u0000${idKey(token)}`);
      if (!call || call.evicted) call = this.pending.get(`${row.conn}\u0000${OPPOSITE[ev.direction]}\u0000${idKey(token)}`);
      if (!call || call.evicted) return;
      const p: Progress = { done: Number(params.progress ?? 0) };
      if (typeof params.total === 'number') p.total = params.total;
      if (typeof params.message === 'string') p.message = params.message;
      row.progress = p;
      this.attach(row, call);
      for (const target of [call, call.root]) {
        target.progress = p;
        invalidateSummary(target);
      }
      return;
    }
    if (ev.method === 'notifications/cancelled') {
      const id = params.requestId;
      if (typeof id !== 'string' && typeof id !== 'number') return;
      // A cancel travels the same way as the request it cancels (MCP basic/utilities/cancellation).
      const call = this.pending.get(`${row.conn}\u0000${ev.direction}\u0000${idKey(id)}`);
      if (!call || call.evicted) return;
      this.attach(row, call);
      if (call.status === 'pending') this.setStatus(call, 'aborted');
    }
  }

  private ingestResponse(row: TrafficRow): void {
    const { ev } = row;
    const req = ev.id !== undefined ? this.pending.get(`${row.conn}\u0000${OPPOSITE[ev.direction]}\u0000${idKey(ev.id)}`) : undefined;
    if (!req || req.evicted) {
      // A leg of a known call, or history whose request is older still: not an orphan. Only a
      // response nobody asked for (as far as anything held or known says) is "unmatched".
      if (ev.exchange || this.ingestingHistory) {
        const msg = isObj(ev.message) ? ev.message : {};
        row.status = ev.kind === 'error' || isObj(msg.error) || (isObj(msg.result) && msg.result.isError === true) ? 'error' : 'ok';
        return;
      }
      row.status = 'unmatched';
      return;
    }
    this.pending.delete(`${row.conn}\u0000${OPPOSITE[ev.direction]}\u0000${idKey(ev.id!)}`);
    const list = this.inflight.get(`${req.conn}\u0000${req.ev.direction}`);
    if (list) {
      const i = list.lastIndexOf(req);
      if (i >= 0) list.splice(i, 1);
    }
    row.merged = true;
    row.pair = req;
    row.parent = req;
    row.root = req.root;
    row.depth = req.depth;
    req.pair = row;
    req.latencyMs = ev.latencyMs ?? Math.max(0, ev.ts - req.ev.ts);
    if (ev.decision) req.decision = ev.decision;
    if (ev.tool) req.tool = ev.tool;
    const msg = isObj(ev.message) ? ev.message : {};
    let status: RowStatus = 'ok';
    if (ev.kind === 'error' || isObj(msg.error)) {
      status = 'error';
      req.error = isObj(msg.error) && typeof msg.error.message === 'string' ? msg.error.message : 'error';
    } else if (isObj(msg.result) && msg.result.isError === true) {
      status = 'error';
      const content = Array.isArray(msg.result.content) ? msg.result.content : [];
      const text = content.find((c): c is Obj => isObj(c) && typeof c.text === 'string');
      req.error = text ? String(text.text) : 'tool error';
    }
    // A call already marked aborted stays aborted: whatever came late does not un-abort it.
    if (req.status !== 'aborted') this.setStatus(req, status);
    else invalidateSummary(req);
    if (req.root !== req && req.root.decision === undefined && req.decision) req.root.decision = req.decision;
  }

  private attach(row: TrafficRow, parent: TrafficRow): void {
    row.parent = parent;
    row.root = parent.root;
    row.depth = Math.min(parent.depth + 1, 4);
  }

  private latestInFlight(conn: string, direction: Direction): TrafficRow | undefined {
    const list = this.inflight.get(`${conn}\u0000${direction}`);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const r = list[i]!;
      if (r.status === 'pending' && !r.evicted && r.ev.method === 'tools/call') return r;
    }
    // Only a tool call runs long enough to ask for sampling or input; a roots/list during
    // tools/list is the server's own business, not part of that request.
    return undefined;
  }

  private setStatus(row: TrafficRow, status: RowStatus): void {
    row.status = status;
    invalidateSummary(row);
    // A changed status or pair may change whether the row (and its root) passes the filter.
    if (row.merged) return;
    const was = row._match;
    row._match = this.matches(row);
    if (row.root !== row) {
      if (was !== row._match) {
        row.root._childMatches += row._match ? 1 : -1;
        if (this.flat() || (row.root._shown && this.isExpanded(row.root))) {
          if (row._match) this.insertEntry(row);
          else this.removeEntry(row);
        }
      }
      this.refreshVisibility(row.root);
    } else this.refreshVisibility(row);
  }

  // ---- eviction ---------------------------------------------------------------------------------

  private evictOldest(): void {
    const row = this.ring[this.head]!;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.ringSize;
    this.count--;
    this.evictedCount++;
    this.evict(row);
  }

  private evict(row: TrafficRow): void {
    row.evicted = true;
    this.bySeq.delete(row.seq);
    const { ev } = row;
    if (ev.kind === 'request' && ev.id !== undefined) {
      const key = `${row.conn}\u0000${ev.direction}\u0000${idKey(ev.id)}`;
      if (this.pending.get(key) === row) this.pending.delete(key);
      const flightKey = `${row.conn}\u0000${ev.direction}`;
      const list = this.inflight.get(flightKey);
      if (list && list[0] === row) list.shift();
      else if (list) {
        const i = list.indexOf(row);
        if (i >= 0) list.splice(i, 1);
      }
      if (list && list.length === 0) this.inflight.delete(flightKey);
      const params = isObj(ev.message) && isObj(ev.message.params) ? ev.message.params : undefined;
      const token = params && isObj(params._meta) ? params._meta.progressToken : undefined;
      if (typeof token === 'string' || typeof token === 'number') {
        const tk = `${row.conn}\u0000${idKey(token)}`;
        if (this.tokens.get(tk) === row) this.tokens.delete(tk);
      }
    }
    if (ev.exchange) {
      const key = `${ev.session}\u0000${ev.exchange}`;
      if (this.exchanges.get(key) === row) this.exchanges.delete(key);
      this.replayLinks.delete(key);
    }
    const root = row.root;
    if (root !== row && root.children?.[0] === row) root.children.shift();
    if (this.pins.has(row.seq)) {
      this.pinnedKept.set(row.seq, row);
      return;
    }
    if (this.expanded.has(row.seq)) this.expanded.delete(row.seq);
    if (row._shown) this.evictHeadEntries();
  }

  /** Eviction is oldest-first, so what it hides sits at the head of the visible list. */
  private evictHeadEntries(): void {
    let n = 0;
    const kept: TrafficRow[] = [];
    while (n < this.entries.length) {
      const e = this.entries[n]!;
      if (!e.evicted && !e.root.evicted) break;
      if (this.pins.has(e.seq)) kept.push(e);
      else e._shown = false;
      n++;
    }
    if (n === 0) return;
    this.entries.splice(0, n, ...kept);
    this.headRemovals += n - kept.length;
  }

  // ---- visible list -----------------------------------------------------------------------------

  /**
   * A direction filter lists each matching message (a call by its request's direction) on its
   * own: a call's upstream leg under "G→S" without the agent-side call it belongs to, so each
   * direction shows only that direction.
   */
  private flat(): boolean {
    return this.compiled.directions !== undefined;
  }

  private shouldShow(row: TrafficRow): boolean {
    if (this.pins.has(row.seq)) return true;
    if (this.flat()) return row._match && !row.merged;
    if (row.root === row) return row._match || row._childMatches > 0;
    return row._match && !row.root.evicted && row.root._shown && this.isExpanded(row.root);
  }

  private refreshVisibility(row: TrafficRow): void {
    if (row.merged) return;
    const show = this.shouldShow(row);
    if (show === row._shown) return;
    if (show) {
      this.insertEntry(row);
      if (row.root === row && this.isExpanded(row) && row.children) for (const c of row.children) if (c._match && !c.evicted) this.insertEntry(c);
    } else {
      this.removeEntry(row);
      if (row.root === row && row.children) for (const c of row.children) if (!this.pins.has(c.seq)) this.removeEntry(c);
    }
  }

  private insertEntry(row: TrafficRow): void {
    if (row._shown) return;
    row._shown = true;
    const last = this.entries[this.entries.length - 1];
    if (!last || compareRows(last, row) < 0) {
      this.entries.push(row);
      this.tailAppends++;
      return;
    }
    this.entries.splice(lowerBound(this.entries, row), 0, row);
  }

  private removeEntry(row: TrafficRow): void {
    if (!row._shown) return;
    const i = lowerBound(this.entries, row);
    if (this.entries[i] === row) this.entries.splice(i, 1);
    row._shown = false;
  }

  private rebuildEntries(): void {
    for (const e of this.entries) e._shown = false;
    const next: TrafficRow[] = [];
    const kept = [...this.pinnedKept.values()].sort((a, b) => a.seq - b.seq);
    for (const r of kept) {
      r._shown = true;
      next.push(r);
    }
    if (this.flat()) {
      for (let i = 0; i < this.count; i++) {
        const r = this.rowAt(i)!;
        if (r._shown || !this.shouldShow(r)) continue;
        r._shown = true;
        next.push(r);
      }
      this.entries = next.sort(compareRows);
      return;
    }
    for (let i = 0; i < this.count; i++) {
      const r = this.rowAt(i)!;
      if (r.merged || r.root !== r) continue;
      if (!this.shouldShow(r)) {
        // A pinned child of a hidden root is still shown.
        for (const c of r.children ?? []) {
          if (this.pins.has(c.seq)) {
            c._shown = true;
            next.push(c);
          }
        }
        continue;
      }
      r._shown = true;
      next.push(r);
      const open = this.isExpanded(r);
      for (const c of r.children ?? []) {
        if (!c.evicted && ((open && c._match) || this.pins.has(c.seq))) {
          c._shown = true;
          next.push(c);
        }
      }
    }
    this.entries = next;
  }

  // ---- filter -----------------------------------------------------------------------------------

  private matches(row: TrafficRow): boolean {
    const f = this.compiled;
    if (f.all) return true;
    const ev = row.ev;
    if (f.sessions && !f.sessions.has(ev.session)) return false;
    if (f.servers) {
      const server = row.server ?? ev.server ?? '';
      if (!f.servers.has(server)) return false;
    }
    // A call is in the direction of its request; its response travels inside it.
    if (f.directions && !f.directions.has(ev.direction)) return false;
    const method = ev.method ?? '';
    if (f.include && !f.include(method)) return false;
    if (f.exclude && f.exclude(method)) return false;
    if (f.statuses) {
      // A denial is a DENY verdict, or an APPROVAL that a person, the timeout or nobody denied.
      const denied = row.decision === 'DENY' || row.outcome === 'denied';
      const ok = (row.status !== undefined && f.statuses.has(row.status)) || (f.statuses.has('denied') && denied);
      if (!ok) return false;
    }
    if (f.text) return searchText(row).includes(f.text);
    return true;
  }

  // ---- ring ---------------------------------------------------------------------------------------

  private rowAt(i: number): TrafficRow | undefined {
    return this.ring[(this.head + i) % this.ringSize];
  }

  private reset(ringSize: number): void {
    for (let i = 0; i < this.count; i++) {
      const r = this.rowAt(i)!;
      r._shown = false;
    }
    this.ringSize = ringSize;
    this.ring = new Array<TrafficRow | undefined>(ringSize);
    this.head = 0;
    this.count = 0;
    this.bySeq.clear();
    this.pending.clear();
    this.inflight.clear();
    this.tokens.clear();
    this.exchanges.clear();
    this.pinnedKept.clear();
    this.entries = [];
  }

  private changed(): void {
    this.version++;
    for (const l of [...this.listeners]) l();
  }
}

// ---- helpers ----------------------------------------------------------------------------------

/** The text a search runs over: method, summary and the JSON of the message and its pair. */
export function searchText(row: TrafficRow): string {
  if (row._text === undefined) {
    let s = `${row.ev.method ?? ''}\n${rowSummary(row)}\n${safeJson(row.ev.message)}`;
    if (row.pair) s += `\n${safeJson(row.pair.ev.message)}`;
    if (row.ev.fault) s += `\n${row.ev.fault}`;
    row._text = s.toLowerCase();
  }
  return row._text;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
}

/** Where `query` occurs in `text` (case-insensitive), as [start, end) ranges for highlighting. */
export function findMatches(text: string, query: string): [number, number][] {
  const q = query.toLowerCase();
  if (!q) return [];
  const t = text.toLowerCase();
  const out: [number, number][] = [];
  for (let i = t.indexOf(q); i >= 0 && out.length < 1000; i = t.indexOf(q, i + q.length)) out.push([i, i + q.length]);
  return out;
}

/**
 * A call with no agent-side request (Tool console, legacy envelope) that has no upstream leg to
 * show either: decided against, waiting for a person, or answered by the gateway itself. One
 * that went upstream is shown by its legs, as any call.
 */
function needsOwnRow(info: ExchangeInfo): boolean {
  if (info.kind !== 'call' || info.downstreamId !== undefined || info.sentAt !== undefined) return false;
  return info.outcome !== 'pending' || info.decision === 'APPROVAL' || info.decision === 'DENY';
}

function compareRows(a: TrafficRow, b: TrafficRow): number {
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

interface CompiledFilter {
  all: boolean;
  sessions?: Set<string>;
  servers?: Set<string>;
  directions?: Set<Direction>;
  statuses?: Set<StatusFilter>;
  include?: (method: string) => boolean;
  exclude?: (method: string) => boolean;
  text: string;
}

function compile(f: TrafficFilter): CompiledFilter {
  const set = <T>(xs?: readonly T[]): Set<T> | undefined => (xs && xs.length > 0 ? new Set(xs) : undefined);
  const c: CompiledFilter = {
    all: false,
    sessions: set(f.sessions),
    servers: set(f.servers),
    directions: set(f.directions),
    statuses: set(f.statuses),
    include: f.includeMethods?.length ? methodMatcher(f.includeMethods) : undefined,
    exclude: f.excludeMethods?.length ? methodMatcher(f.excludeMethods) : undefined,
    text: (f.text ?? '').trim().toLowerCase(),
  };
  c.all = !c.sessions && !c.servers && !c.directions && !c.statuses && !c.include && !c.exclude && !c.text;
  return c;
}

/** `notifications/message` exact; `notifications/*` or `notifications/` a prefix. */
export function methodMatcher(patterns: readonly string[]): (method: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of patterns) {
    if (p.endsWith('*')) prefixes.push(p.slice(0, -1));
    else if (p.endsWith('/')) prefixes.push(p);
    else exact.add(p);
  }
  return (m) => exact.has(m) || prefixes.some((p) => m.startsWith(p));
}

/** One event per line, as the host sent it (already redacted). */
export function toJsonl(rows: readonly TrafficRow[]): string {
  return rows.map((r) => JSON.stringify(r.ev)).join('\n') + (rows.length ? '\n' : '');
}

export { progressText };
