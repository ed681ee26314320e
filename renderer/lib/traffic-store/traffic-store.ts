// The Traffic timeline's data (docs/ui-layout.md "Traffic's memory and render path"): a bounded, indexed store of JSON-RPC traffic that the
// view reads on animation frames. Output bytes never live in React state (STYLE.md): rows live
// here, and a virtualized list renders the visible slice.
//
// Cost model: append is O(1) amortised per event (a ring buffer plus hash indexes, no re-sort); a filter
// change visits what its narrowest facet can match (filter-index.ts); everything else touches one call's tree.
import { ExchangeLinks, connectionOf, exchangeKey } from './exchange-links';
import { carryShed, Interner, shedBody, shedsBody, type ShedFields } from './body-shed';
import { BodySearch, type BodySearchFn } from './body-search';
import { TrafficBodies } from './bodies';
import { applyExchangeInfo, exchangeRowEvent, needsOwnRow } from './exchange-records';
import { compileFilter, rowMatches, type CompiledFilter } from './filter';
import { FilterGeneration, FilterIndex } from './filter-index';
import { buildFromHeld, buildFromMatches, type BuildHost } from './visible-build';
import { callRows, VisibleRows, withMergedPairs } from './visible-rows';
import { invalidateSummary, rowSummary } from './summary';
import type { ExchangeInfo, HostBufferStats, RowStatus, TrafficEvent, TrafficFilter, TrafficRow, TrafficStats } from './types';

export { connectionOf } from './exchange-links';
export { findMatches, methodMatcher, searchText } from './filter';
export { progressText } from './summary';
export { toJsonl } from './visible-rows';

export const DEFAULT_TRAFFIC_CAPACITY = 100_000;

export class TrafficStore {
  private capacity: number;
  /** Physical ring size: `capacity`, or more while older history loaded on request is held. */
  private ringSize: number;
  private ring: (TrafficRow | undefined)[];
  private head = 0;
  private count = 0;

  // indexes (entries are deleted on eviction, when they still point at the evicted row)
  private readonly bySeq = new Map<number, TrafficRow>();
  /** session|exchange → the host's record of the call (decision, decider, outcome), latest state. */
  private readonly exchangeInfo = new Map<string, ExchangeInfo>();
  private readonly links = new ExchangeLinks(this);
  private readonly interner = new Interner();
  /** Live rows' messages, fetched from the host when shown. */
  readonly bodies = new TrafficBodies();
  /** Where the current text query is in live rows' messages (seen on arrival, or found by the host). */
  private readonly bodySearch = new BodySearch();
  private carried: Map<number, ShedFields> | undefined;
  private maxSeq = 0;
  private synthetic = 0;
  /** Synthetic rows in the ring: they stand for exchanges, not tap events, so `held` leaves them out. */
  private syntheticHeld = 0;
  private readonly methodsSeen = new Set<string>();
  private readonly serversSeen = new Set<string>();

  // view state, keyed by seq so it survives a rebuild
  private readonly pins = new Set<number>();
  private readonly pinnedKept = new Map<number, TrafficRow>(); // pinned rows evicted from the ring
  private readonly expanded = new Set<number>();
  private expandAll = false;

  private filter: TrafficFilter = {};
  private compiled: CompiledFilter = compileFilter({});
  private readonly generation = new FilterGeneration();
  private readonly judge = (r: TrafficRow): boolean => this.generation.judge(r, (x) => this.matches(x));
  private readonly index = new FilterIndex();
  /** Tests compare the indexed path with this one: same rows, every filter. */
  private readonly fullPassOnly: boolean;

  /** The visible list, ordered by (root seq, seq): roots, and under an expanded root its children. */
  private readonly entries = new VisibleRows();

  private base: HostBufferStats = { held: 0, total: 0, dropped: 0 };
  private appended = 0;
  private droppedLive = 0;
  private evictedCount = 0;

  private listeners = new Set<() => void>();
  /** Bumps on every change a view must redraw for. */
  version = 0;

  /** Entries added at the tail of the visible list, ever (the "N new" marker counts from here). */
  get tailAppends(): number { return this.entries.tailAppends; }
  /** Entries removed from the head of the visible list by eviction, ever (keeps the scroll anchored). */
  get headRemovals(): number { return this.entries.headRemovals; }

  constructor(options: { capacity?: number; fullPassFilter?: boolean } = {}) {
    this.fullPassOnly = options.fullPassFilter ?? false;
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
    const current = [...this.all()].map((r) => r.ev);
    // Rows rebuilt from events whose message already went keep what was taken from it.
    this.carried = carryShed(this.all());
    this.reset(Math.max(this.capacity, older.length + current.length));
    this.links.ingestingHistory = true;
    try {
      for (const ev of older) this.ingest(ev);
    } finally {
      this.links.ingestingHistory = false;
    }
    for (const ev of current) this.ingest(ev);
    this.carried = undefined;
    this.rebuildEntries();
    this.changed();
    return older.length;
  }

  /** A server's session ended (crash, stop): its calls in flight will never be answered. */
  abortPending(server: string, session?: string): number {
    let n = 0;
    for (const row of this.links.inFlightTo(server, session)) {
      if (row.status !== 'pending') continue;
      n++;
      this.setStatus(row, 'aborted');
      if (row.root !== row && row.root.status === 'pending') this.setStatus(row.root, 'aborted');
    }
    if (n > 0) this.changed();
    return n;
  }

  setCapacity(capacity: number): void {
    const next = Math.max(1, Math.floor(capacity));
    if (next === this.capacity && this.ringSize === next) return;
    const keep = [...this.all()].slice(Math.max(0, this.count - next));
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
      held: this.count - this.syntheticHeld,
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
    return this.entries.at(index);
  }

  indexOf(row: TrafficRow): number {
    return this.entries.indexOf(row);
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

  private oldestRemoteTs(): number | undefined {
    for (const row of this.all()) if (row.remote) return row.ev.ts;
    return undefined;
  }

  /** Seq of the oldest event held (for `traffic:history` `beforeSeq`). */
  oldestSeq(): number | undefined {
    // A synthetic row's fractional seq is not a tap seq: page back from the oldest real one.
    for (const row of this.all()) if (!row.synthetic) return row.seq;
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
      const key = exchangeKey(info.session, info.id);
      this.exchangeInfo.delete(key);
      this.exchangeInfo.set(key, info);
      if (this.exchangeInfo.size > this.capacity) {
        const oldest = this.exchangeInfo.keys().next();
        if (!oldest.done) this.exchangeInfo.delete(oldest.value);
      }
      const row = this.links.exchanges.get(key);
      if (row && !row.evicted) applyExchangeInfo(this, row, info);
      else if (needsOwnRow(info)) {
        // Between the last tap seq seen and the next one, unique.
        this.ingest(exchangeRowEvent(info, this.maxSeq + (++this.synthetic % 1_000_000) / 1_000_001));
      }
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

  /** The rows the filter index says can match, or one pass when no facet narrows it (text, latency, a broad facet). */
  setFilter(filter: TrafficFilter): void {
    this.filter = filter;
    this.compiled = compileFilter(filter);
    this.bodySearch.reset(this.compiled.text, this.oldestRemoteTs(), () => this.setFilter(this.filter));
    this.generation.next();
    for (const r of this.pinnedKept.values()) this.generation.fresh(r);
    const candidates = this.fullPassOnly ? undefined : this.index.candidates(this.compiled);
    const matched = candidates?.filter(this.judge);
    // One pass: a root is older than its children (a call's messages follow its request), so it
    // is made fresh when it is reached, before any child of it adds to its count.
    if (!candidates) for (let i = 0; i < this.count; i++) this.judge(this.rowAt(i)!);
    for (const r of this.pinnedKept.values()) r._match = this.matches(r);
    this.rebuildEntries(matched);
    this.changed();
  }

  /** How a text query reaches the bodies held in the host (`traffic:search`). */
  setBodySearch(search: BodySearchFn): void {
    this.bodySearch.search = search;
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
    if (row.evicted && !this.pins.has(row.seq)) this.entries.remove(row);
    else this.refreshVisibility(row);
    this.changed();
  }

  pinnedRows(): TrafficRow[] {
    return [...this.pins].flatMap((seq) => this.get(seq) ?? []).sort((a, b) => a.seq - b.seq);
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
        if (open && this.generation.matches(c) && !c.evicted) this.entries.insert(c);
        else if (!open) this.entries.remove(c);
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
    return callRows(row);
  }

  /** The root call of an exchange (`<agentSession>#<id>`) in a launch, when held. */
  exchangeRoot(session: string, exchange: string): TrafficRow | undefined {
    return this.links.exchanges.get(exchangeKey(session, exchange))?.root;
  }

  /** The filtered set (what the timeline shows, with the responses merged into it), oldest first. */
  filteredRows(): TrafficRow[] {
    return withMergedPairs(this.entries);
  }

  /** Link a replay's exchange to the call it re-sent; the replay's row gets `replayOf`. */
  linkReplay(original: TrafficRow, session: string, exchange: string): void {
    this.links.linkReplay(original, exchangeKey(session, exchange));
    this.changed();
  }

  /** Calls that replayed this one (seq order). */
  replaysOf(row: TrafficRow): TrafficRow[] {
    return this.links.replaysOf(row.seq);
  }

  // ---- ingest -----------------------------------------------------------------------------------

  private ingest(ev: TrafficEvent): void {
    if (this.count === this.ringSize) this.evictOldest();
    // A live row's message goes once it has been read (body-shed.ts); history keeps its own.
    const kept = this.carried?.get(ev.seq);
    const shed = !kept && !this.links.ingestingHistory && shedsBody(ev);
    if (shed) {
      this.interner.event(ev);
      this.bodySearch.arrived(ev);
    }
    if (Number.isInteger(ev.seq) && ev.seq > this.maxSeq) this.maxSeq = ev.seq;
    const synthetic = !Number.isInteger(ev.seq);
    const row: TrafficRow = {
      ev,
      seq: ev.seq,
      conn: this.interner.get(connectionOf(ev)),
      root: undefined as unknown as TrafficRow,
      depth: 0,
      merged: false,
      evicted: false,
      _match: false,
      _childMatches: 0,
      _fgen: this.generation.gen,
      _shown: false,
      _rev: 0,
    };
    row.root = row;
    if (kept) Object.assign(row, kept);
    if (synthetic) {
      row.synthetic = true;
      this.syntheticHeld++;
    }
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
        // The call's own agent-side leg replaces the row that stood in for it (a Tool console call whose exchange came first).
        if (ev.exchange && ev.direction === 'agent_to_gateway') this.retire(this.links.exchanges.get(exchangeKey(ev.session, ev.exchange)));
        this.links.request(row);
        break;
      case 'notification':
        this.links.notification(row);
        break;
      case 'response':
      case 'error':
        this.links.response(row);
        break;
      case 'fault':
        row.status = 'fault';
        break;
    }
    if (shed) shedBody(row, this.interner);
    if (row.merged) return;
    this.index.add(row);
    row._match = this.matches(row);
    this.insertRow(row);
    // The call's own record, when the host sent it before this row arrived.
    if (ev.exchange && ev.kind === 'request') {
      const key = exchangeKey(ev.session, ev.exchange);
      const info = this.exchangeInfo.get(key);
      if (info && this.links.exchanges.get(key) === row) applyExchangeInfo(this, row, info);
    }
  }

  private insertRow(row: TrafficRow): void {
    if (row.root === row) {
      if (row._match || this.pins.has(row.seq)) this.entries.insert(row);
    } else {
      const root = row.root;
      (root.children ??= []).push(row);
      if (row._match) {
        this.generation.fresh(root);
        root._childMatches++;
        this.refreshVisibility(root);
        if (this.flat() || (root._shown && this.isExpanded(root))) this.entries.insert(row);
      }
    }
  }

  private retire(standIn: TrafficRow | undefined): void {
    if (!standIn?.synthetic || standIn.merged) return;
    standIn.merged = true;
    this.index.remove(standIn);
    this.entries.remove(standIn);
    this.links.forget(standIn);
  }

  /** Called by the exchange records as a call's upstream server becomes known. */
  noteServer(server: string): void {
    this.serversSeen.add(server);
  }

  /** Called by the call links and exchange records as a call's status changes. */
  setStatus(row: TrafficRow, status: RowStatus): void {
    row.status = status;
    invalidateSummary(row);
    // A changed status or pair may change whether the row (and its root) passes the filter.
    if (row.merged) return;
    this.index.update(row);
    const was = this.generation.matches(row);
    this.generation.fresh(row);
    row._match = this.matches(row);
    if (row.root !== row) {
      if (was !== row._match) {
        this.generation.fresh(row.root);
        row.root._childMatches += row._match ? 1 : -1;
        if (this.flat() || (row.root._shown && this.isExpanded(row.root))) {
          if (row._match) this.entries.insert(row);
          else this.entries.remove(row);
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
    if (row.synthetic) this.syntheticHeld--;
    this.bySeq.delete(row.seq);
    this.index.remove(row);
    this.links.forget(row);
    const root = row.root;
    if (root !== row && root.children?.[0] === row) root.children.shift();
    if (this.pins.has(row.seq)) {
      this.pinnedKept.set(row.seq, row);
      return;
    }
    if (this.expanded.has(row.seq)) this.expanded.delete(row.seq);
    if (row._shown) this.entries.dropEvictedHead((r) => this.pins.has(r.seq));
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
    if (this.flat()) return this.generation.matches(row) && !row.merged;
    if (row.root === row) return this.generation.matches(row) || this.generation.childMatches(row) > 0;
    return this.generation.matches(row) && !row.root.evicted && row.root._shown && this.isExpanded(row.root);
  }

  private refreshVisibility(row: TrafficRow): void {
    if (row.merged) return;
    const show = this.shouldShow(row);
    if (show === row._shown) return;
    if (show) {
      this.entries.insert(row);
      if (row.root === row && this.isExpanded(row) && row.children) for (const c of row.children) if (this.generation.matches(c) && !c.evicted) this.entries.insert(c);
    } else {
      this.entries.remove(row);
      if (row.root === row && row.children) for (const c of row.children) if (!this.pins.has(c.seq)) this.entries.remove(c);
    }
  }

  /** The visible list anew: from one pass over the held rows, or from the rows that match. */
  private rebuildEntries(matched?: readonly TrafficRow[]): void {
    this.entries.unmarkAll();
    if (matched) return this.entries.replace(buildFromMatches(this.buildHost(), matched), true);
    const built = buildFromHeld(this.buildHost());
    this.entries.replace(built.rows, built.needsSort);
  }

  private buildHost(): BuildHost {
    return {
      held: () => this.all(),
      pinnedKept: () => this.pinnedKept.values(),
      pinnedHeld: () => [...this.pins].flatMap((seq) => this.bySeq.get(seq) ?? []),
      flat: this.flat(),
      matches: (r) => this.generation.matches(r),
      shouldShow: (r) => this.shouldShow(r),
      isExpanded: (r) => this.isExpanded(r),
      isPinned: (r) => this.pins.has(r.seq),
    };
  }

  private matches(row: TrafficRow): boolean {
    return rowMatches(this.compiled, row, this.bodySearch.hit);
  }

  // ---- ring ---------------------------------------------------------------------------------------

  private rowAt(i: number): TrafficRow | undefined {
    return this.ring[(this.head + i) % this.ringSize];
  }

  private reset(ringSize: number): void {
    for (const r of this.all()) r._shown = false;
    this.index.clear(this.all());
    this.ringSize = ringSize;
    this.ring = new Array<TrafficRow | undefined>(ringSize);
    this.head = 0;
    this.count = 0;
    this.syntheticHeld = 0;
    this.bySeq.clear();
    this.links.clear();
    this.pinnedKept.clear();
    this.entries.replace([]);
  }

  private changed(): void {
    this.version++;
    for (const l of [...this.listeners]) l();
  }
}
