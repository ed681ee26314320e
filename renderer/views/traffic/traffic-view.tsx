// Traffic (docs/ui-layout.md): one merged, live timeline of every JSON-RPC message across agent sessions
// and servers: dense, paired, causal, persistent. Rows live in the TrafficStore; this view reads
// it once per animation frame (useFrameVersion) and renders only the visible rows.
import { isObject } from '../../../common/is-object';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import type { EventPayload } from '../../../common/host-api';
import { useHostApi } from '../../api/context';
import { toJsonl, type TrafficFilter, type TrafficRow, type TrafficStore } from '../../lib/traffic-store';
import { FrameBudget, VirtualList, useFrameVersion } from '../../lib/virtual-list';
import { DetailPane, type ReplayState } from './detail-pane';
import { downloadText } from '../../lib/download';
import { FilterBar } from './filter-bar';
import { HarExportButton } from './har-export';
import type { TrafficMarksSync } from './traffic-marks';
import { COLUMNS, isPinKey, ROW_HEIGHT, rowCellsProps, TrafficHeader, TrafficRowCells } from './traffic-row';
import { nextSort, sortRows, SORT_REFRESH_MS, type SortColumn, type SortedRows, type TrafficSort } from './sorted-rows';
import './traffic.css';
import './traffic-detail.css';

export type LaunchSummary = EventPayload<'launch:changed'>['launch'];

export interface TrafficViewProps {
  /** The one TrafficStore, created at bootstrap and fed by the shell (snapshot + `traffic:batch`). */
  store: TrafficStore;
  /** Pins and replay links kept by the host (survive reloads); without it they stay per window. */
  marks?: TrafficMarksSync;
  /** Running launches (for the launch filter and server names); optional. */
  launches?: readonly LaunchSummary[];
  /**
   * An exchange id (`<agent session>#<request id>`, as `tools:call` and approvals report it) to
   * reveal: its root row is selected, scrolled into view and opened in the detail pane, as soon
   * as its traffic has arrived.
   */
  focusExchange?: string;
}

const CAPACITIES = [10_000, 25_000, 50_000, 100_000, 250_000];
const HISTORY_PAGE = 2000;


export function TrafficView({ store, marks, launches = [], focusExchange }: TrafficViewProps) {
  const api = useHostApi();
  // What a refresh costs, so that under a flood the list refreshes less often than every frame
  // (frame-budget.ts): measured from here to the list's layout effect.
  const budget = useMemo(() => new FrameBudget(), []);
  budget.begin();
  // After the list's layout effect (children's run first): a render that never reached it is
  // not a refresh to measure.
  useLayoutEffect(() => budget.discard());
  const version = useFrameVersion(store, false, budget);
  const [filter, setFilterState] = useState<TrafficFilter>(() => store.getFilter());
  const [selected, setSelected] = useState<number | undefined>();
  const [paneOpen, setPaneOpen] = useState(false);
  const [paneWidth, setPaneWidth] = useState(520);
  const [paused, setPaused] = useState(false);
  const [atBottom, setAtBottom] = useState(true);
  const [markAt, setMarkAt] = useState(store.tailAppends);
  const [history, setHistory] = useState<'idle' | 'loading' | 'done' | 'error'>('idle');
  const replays = useRef(new Map<number, ReplayState[]>());
  const [reveal, setReveal] = useState<{ index: number; nonce: number } | undefined>();
  const focused = useRef<string | undefined>(undefined);
  const [, setReplayTick] = useState(0);

  const [sort, setSortState] = useState<TrafficSort | undefined>();
  const sortRef = useRef<TrafficSort | undefined>(undefined);
  sortRef.current = sort;
  const pausedRef = useRef(false);
  pausedRef.current = paused;
  /** What the list shows now: the store's order, or sorted by a column. */
  const current = useCallback((by = sortRef.current): SnapshotSource => (by ? sortRows(store, by) : store), [store]);
  const setFilter = useCallback(
    (next: TrafficFilter) => {
      setFilterState(next);
      store.setFilter(next);
      if (pausedRef.current) setFrozen(freeze(current()));
    },
    [store, current],
  );

  // Sorted by a column: a snapshot of the visible list, rebuilt at most once a second while the
  // store changes (sorted-rows.ts), and once more when that second is up.
  const sortedRef = useRef<SortedRows | undefined>(undefined);
  const [, setSortTick] = useState(0);
  let sorted: SortedRows | undefined;
  if (sort) {
    const prev = sortedRef.current;
    const now = performance.now();
    sorted = !prev || prev.sort !== sort || (prev.storeVersion !== store.version && now - prev.builtAt >= SORT_REFRESH_MS) ? sortRows(store, sort, now) : prev;
  }
  sortedRef.current = sorted;
  useEffect(() => {
    const s = sortedRef.current;
    if (!s || s.storeVersion === store.version) return;
    const t = setTimeout(() => setSortTick((n) => n + 1), Math.max(0, SORT_REFRESH_MS - (performance.now() - s.builtAt)));
    return () => clearTimeout(t);
  });

  // A sorted list has no tail to follow.
  const follow = atBottom && !paused && !sort;
  // Paused: the list reads a snapshot of the rows taken when Pause was pressed (or a filter was
  // changed while paused), so eviction and new traffic cannot shift or blank what is on screen.
  const [frozen, setFrozen] = useState<FrozenRows | undefined>();
  const rows: RowSource = frozen ?? sorted ?? store;
  const count = rows.size();
  // The head-eviction counter of the last render: indices in the DOM are relative to it.
  const drawn = useRef({ headRemovals: 0 });
  if (!frozen) drawn.current = { headRemovals: sorted ? 0 : store.headRemovals };
  const row = selected !== undefined ? (store.get(selected) ?? frozen?.bySeq(selected)) : undefined;
  const activeIndex = row ? rows.indexOf(row) : -1;
  const newCount = follow || sort ? 0 : Math.max(0, store.tailAppends - markAt);
  const stats = store.stats();
  const query = store.query();
  // Re-read per frame: new methods and servers appear as traffic arrives.
  const facets = useMemo(() => store.facets(), [store, version]);
  const servers = useMemo(() => [...new Set([...facets.servers, ...launches.flatMap((l) => l.servers.map((s) => s.id))])].sort(), [facets, launches]);

  const select = (r: TrafficRow | undefined) => {
    const target = r?.merged && r.pair ? r.pair : r;
    setSelected(target?.seq);
    if (target && target.root !== target && !target._shown) store.setExpanded(target.root, true);
  };

  // Jump to an exchange (from the tool console or an approval card). Its rows may still be on
  // their way (traffic is batched), so this runs again as the store changes, once per id.
  useEffect(() => {
    if (!focusExchange || focused.current === focusExchange) return;
    const root = findExchangeRoot(store, launches, focusExchange);
    if (!root) return;
    focused.current = focusExchange;
    setSelected(root.seq);
    setPaneOpen(true);
    // Stop following the tail so the revealed row stays where it was put.
    setAtBottom(false);
    setMarkAt(store.tailAppends);
    const index = store.indexOf(root);
    if (index >= 0) setReveal({ index, nonce: Date.now() });
  }, [focusExchange, store, launches, version]);

  const onAtBottomChange = (b: boolean) => {
    setAtBottom(b);
    if (!b) setMarkAt(store.tailAppends);
  };
  const onSort = (column: SortColumn) => {
    const next = nextSort(sort, column);
    setSortState(next);
    if (pausedRef.current) setFrozen(freeze(current(next)));
    // Sorted: the top is where the slowest (largest) is. Unsorted again: back to following the tail.
    if (next) setReveal({ index: 0, nonce: Date.now() });
    else if (!pausedRef.current) setAtBottom(true);
  };
  const jumpToEnd = () => {
    setPaused(false);
    setFrozen(undefined);
    setAtBottom(true);
    setMarkAt(store.tailAppends);
  };
  const togglePause = () => {
    if (paused) jumpToEnd();
    else {
      setPaused(true);
      // Pause freezes exactly what is on screen: up to the last row drawn, not the rows that
      // arrived since that frame (following scrolls a frame behind the store under load).
      const last = lastDrawnIndex('traffic');
      const source = sorted ?? store;
      const evictedSince = sorted ? 0 : store.headRemovals - drawn.current.headRemovals;
      setFrozen(freeze(source, last === undefined ? source.size() : Math.max(0, last + 1 - evictedSince)));
      setMarkAt(store.tailAppends);
    }
  };

  const loadOlder = async () => {
    if (history === 'loading') return;
    setHistory('loading');
    try {
      const before = store.oldestSeq();
      const older = await api.call('traffic:history', {
        ...(before !== undefined ? { beforeSeq: before } : {}),
        ...(filter.sessions?.length === 1 ? { session: filter.sessions[0] } : {}),
        limit: HISTORY_PAGE,
      });
      const added = store.prependHistory([...older].sort((a, b) => a.seq - b.seq));
      setHistory(added === 0 ? 'done' : 'idle');
    } catch {
      setHistory('error');
    }
  };

  const replay = async (original: TrafficRow, edited?: Record<string, unknown>) => {
    // The arguments are in the request's message, which a live row keeps in the host.
    const message = await store.bodies.message(original);
    const params = isObject(message) && isObject(message.params) ? message.params : {};
    const name = original.tool ?? (typeof params.name === 'string' ? params.name : '');
    const args = edited ?? (isObject(params.arguments) ? params.arguments : {});
    const list = replays.current.get(original.seq) ?? [];
    const entry: ReplayState = { at: Date.now(), busy: true, ...(edited ? { edited: true } : {}) };
    replays.current.set(original.seq, [...list, entry]);
    setReplayTick((t) => t + 1);
    const finish = (patch: Partial<ReplayState>) => {
      replays.current.set(
        original.seq,
        (replays.current.get(original.seq) ?? []).map((r) => (r === entry ? { ...r, ...patch, busy: false } : r)),
      );
      setReplayTick((t) => t + 1);
    };
    api
      .call('tools:call', { launchId: original.ev.session, name, arguments: args })
      .then((out) => {
        if (out.exchange) {
          if (marks) marks.linkReplay(original, original.ev.session, out.exchange);
          else store.linkReplay(original, original.ev.session, out.exchange);
        }
        finish({ result: out.result, error: out.error, exchange: out.exchange });
      })
      .catch((err: unknown) => finish({ error: err instanceof Error ? err.message : String(err) }));
  };

  const exportFiltered = async () => {
    const rows = store.filteredRows();
    downloadText(toJsonl(rows, await store.bodies.collect(rows)), `traffic-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
  };

  const togglePin = useCallback((r: TrafficRow) => (marks ? marks.togglePin(r) : store.togglePin(r)), [marks, store]);
  // Stable, so a memoised row does not re-render for a new callback.
  const toggleRow = useCallback(
    (x: TrafficRow) => {
      store.setExpanded(x, !store.isExpanded(x));
      if (pausedRef.current) setFrozen(freeze(current()));
    },
    [store, current],
  );

  const onRowKeyDown = (e: KeyboardEvent<HTMLDivElement>, index: number) => {
    const r = rows.at(index);
    if (!r) return;
    if (e.key === 'ArrowRight' && r.root === r && r.children?.length) {
      store.setExpanded(r, true);
      e.preventDefault();
    } else if (e.key === 'ArrowLeft') {
      if (r.root !== r) select(r.root);
      else store.setExpanded(r, false);
      e.preventDefault();
    } else if (isPinKey(e) || e.key === ' ') {
      togglePin(r);
      e.preventDefault();
    } else if (e.key === 'Escape') setPaneOpen(false);
  };

  const startResize = (e: ReactPointerEvent<HTMLDivElement>) => {
    const startX = e.clientX;
    const startW = paneWidth;
    const el = e.currentTarget;
    el.setPointerCapture(e.pointerId);
    const move = (ev: PointerEvent) => setPaneWidth(clampPane(startW + (startX - ev.clientX)));
    const up = () => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
  };

  const pinned = store.pinnedRows().length;
  const launchOptions = launches.map((l) => ({ id: l.id, label: `${l.profile} · ${l.id.slice(0, 6)}` }));

  return (
    <section className="traffic-view" aria-label="Traffic view">
      <FilterBar filter={filter} onChange={setFilter} methods={facets.methods} servers={servers} launches={launchOptions} />
      <div className="traffic-main">
        <div className="traffic-list-wrap">
          <VirtualList
            ariaLabel="Traffic"
            idPrefix="traffic"
            budget={budget}
            className="traffic-list"
            count={count}
            rowHeight={ROW_HEIGHT}
            colCount={COLUMNS.length}
            header={<TrafficHeader sort={sort} onSort={onSort} />}
            version={frozen ? frozen.version : sorted ? sorted.version : version}
            headRemovals={frozen ? frozen.headRemovals : sorted ? 0 : store.headRemovals}
            follow={follow}
            reveal={reveal}
            activeIndex={activeIndex}
            onActiveIndexChange={(i) => select(rows.at(i))}
            onActivate={(i) => {
              select(rows.at(i));
              setPaneOpen(true);
            }}
            onRowClick={(i) => {
              // One click opens the call (its twisty and pin buttons keep their own clicks).
              select(rows.at(i));
              setPaneOpen(true);
            }}
            onRowKeyDown={onRowKeyDown}
            onAtBottomChange={onAtBottomChange}
            onReachTop={() => {
              if (history === 'idle' && count > 0) void loadOlder();
            }}
            rowClassName={(i) => {
              const r = rows.at(i);
              if (!r) return undefined;
              return [
                r.status === 'fault' ? 'traffic-row-fault' : '',
                r.status === 'error' || r.decision === 'DENY' ? 'traffic-row-error' : '',
                r.status === 'unmatched' ? 'traffic-row-unmatched' : '',
                r.depth > 0 ? 'traffic-row-child' : '',
                store.isPinned(r) ? 'traffic-row-pinned' : '',
              ]
                .filter(Boolean)
                .join(' ');
            }}
            renderRow={(i) => {
              const r = rows.at(i);
              return r ? <TrafficRowCells row={r} store={store} query={query} onToggle={toggleRow} onPin={togglePin} {...rowCellsProps(r, store)} /> : null;
            }}
          />
          {count === 0 ? (
            <p className="traffic-empty" role="status">
              {stats.held === 0 ? 'No traffic yet. Launch a profile and connect an agent, or call a tool from the tool console.' : `No message matches the filters (${stats.held.toLocaleString()} held).`}
            </p>
          ) : null}
          {newCount > 0 ? (
            <button type="button" className="traffic-new" onClick={jumpToEnd}>
              {newCount.toLocaleString()} new ↓
            </button>
          ) : null}
        </div>
        {paneOpen && row ? (
          <>
            <div
              className="traffic-resizer"
              role="separator"
              aria-orientation="vertical"
              aria-label="Resize details"
              aria-valuenow={paneWidth}
              aria-valuemin={280}
              aria-valuemax={1400}
              tabIndex={0}
              onPointerDown={startResize}
              onKeyDown={(e) => {
                if (e.key === 'ArrowLeft') setPaneWidth((w) => clampPane(w + 32));
                if (e.key === 'ArrowRight') setPaneWidth((w) => clampPane(w - 32));
              }}
            />
            <div className="traffic-detail-wrap" style={{ width: paneWidth }}>
              <DetailPane row={row} store={store} query={query} replays={replays.current.get((row.merged && row.pair ? row.pair : row).seq) ?? []} onReplay={(r, args) => void replay(r, args)} onSelect={(r) => select(r)} onClose={() => setPaneOpen(false)} />
            </div>
          </>
        ) : null}
      </div>
      <footer className="traffic-status-bar" aria-label="Traffic status">
        <button type="button" className={`tb-btn${paused ? ' tb-btn-primary' : ''}`} aria-pressed={paused} onClick={togglePause} title="Paused: traffic keeps arriving, the view stays where it is">
          {paused ? '▶ Resume' : '❚❚ Pause'}
        </button>
        <span className="traffic-follow" role="status">
          {follow ? 'Following' : paused ? 'Paused' : 'Scrolled'}
        </span>
        <button type="button" className="tb-btn" aria-pressed={store.expandedAll()} onClick={() => store.setExpandAll(!store.expandedAll())}>
          {store.expandedAll() ? 'Collapse all' : 'Expand all'}
        </button>
        <button type="button" className="tb-btn" onClick={() => void loadOlder()} disabled={history === 'loading' || history === 'done'}>
          {history === 'loading' ? 'Loading…' : history === 'done' ? 'No older history' : history === 'error' ? 'Load older (failed, retry)' : 'Load older'}
        </button>
        <button type="button" className="tb-btn" onClick={() => void exportFiltered()} disabled={count === 0}>
          Export filtered
        </button>
        <HarExportButton launches={launches} sessions={filter.sessions} />
        {paneOpen || !row ? null : (
          <button type="button" className="tb-btn" onClick={() => setPaneOpen(true)}>
            Details
          </button>
        )}
        <span className="traffic-spacer" />
        <span className="traffic-limits" title={`${stats.evicted.toLocaleString()} evicted from this window's buffer`}>
          {count.toLocaleString()} shown · last {stats.held.toLocaleString()} of {stats.total.toLocaleString()}
          {stats.dropped > 0 ? <span className="traffic-dropped">, {stats.dropped.toLocaleString()} dropped</span> : ', 0 dropped'}
          {pinned > 0 ? ` · ${pinned} pinned` : ''}
        </span>
        <label className="traffic-capacity">
          Buffer
          <select className="tb-input" value={stats.capacity} onChange={(e) => store.setCapacity(Number(e.target.value))} aria-label="Buffer size (events held in memory)">
            {[...new Set([...CAPACITIES, stats.capacity])].sort((a, b) => a - b).map((c) => (
              <option key={c} value={c}>
                {c.toLocaleString()}
              </option>
            ))}
          </select>
        </label>
      </footer>
    </section>
  );
}

function findExchangeRoot(store: TrafficStore, launches: readonly LaunchSummary[], exchange: string): TrafficRow | undefined {
  for (const l of launches) {
    const root = store.exchangeRoot(l.id, exchange);
    if (root) return root;
  }
  // A launch that has stopped still has its traffic here: look through the rows shown.
  for (let i = 0; i < store.size(); i++) {
    const r = store.at(i);
    if (r?.root.ev.exchange === exchange) return r.root;
  }
  return undefined;
}

/** What the list reads: the live store, or a frozen copy of its visible rows. */
interface RowSource {
  size(): number;
  at(index: number): TrafficRow | undefined;
  indexOf(row: TrafficRow): number;
}

interface FrozenRows extends RowSource {
  version: number;
  headRemovals: number;
  bySeq(seq: number): TrafficRow | undefined;
}

/** The index of the last row of a VirtualList (by its idPrefix) that is drawn inside its viewport. */
function lastDrawnIndex(idPrefix: string): number | undefined {
  const rows = document.querySelectorAll<HTMLElement>(`[id^="${idPrefix}-r"][data-index]`);
  const viewport = rows[0]?.closest('[role="grid"]')?.getBoundingClientRect();
  if (!viewport) return undefined;
  let last: number | undefined;
  for (const row of rows) {
    const r = row.getBoundingClientRect();
    if (r.top < viewport.bottom && r.bottom > viewport.top) last = Math.max(last ?? -1, Number(row.dataset.index));
  }
  return last;
}

/** What a freeze copies: the store's visible list, or a sorted snapshot of it. */
interface SnapshotSource extends RowSource {
  version: number;
  headRemovals: number;
}

/** A copy of the visible list (one array of references: ~1 ms at 100k rows). */
function freeze(store: SnapshotSource, limit = store.size()): FrozenRows {
  const list: TrafficRow[] = new Array<TrafficRow>(Math.min(limit, store.size()));
  for (let i = 0; i < list.length; i++) list[i] = store.at(i)!;
  let index: Map<TrafficRow, number> | undefined;
  const lookup = () => (index ??= new Map(list.map((r, i) => [r, i])));
  return {
    version: store.version,
    headRemovals: store.headRemovals,
    size: () => list.length,
    at: (i) => list[i],
    indexOf: (r) => lookup().get(r) ?? -1,
    bySeq: (seq) => list.find((r) => r.seq === seq),
  };
}

function clampPane(w: number): number {
  return Math.max(280, Math.min(1400, w));
}
