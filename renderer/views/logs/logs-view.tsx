// Logs: each server's stderr, one line per row: line number, time, text with ANSI
// colours (or the raw escapes), wrap or horizontal scroll, search that steps through hits,
// follow/pause and visible limits. Lines live in the LogStore; the list is virtualized and read
// once per animation frame. A crashed server's lines stay; a new run starts after a separator.
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { formatTime } from '../../components/format-time';
import { useHostApi } from '../../api/context';
import { showEscapes } from '../../lib/ansi/ansi';
import { ALL_SERVERS, type LogEntry, type LogHit, type LogStore, plainText } from '../../lib/log-store';
import { findMatches } from '../../lib/traffic-store';
import { VirtualList, useFrameVersion } from '../../lib/virtual-list';
import { AnsiLine, type Range } from '../../components/ansi-line';
import './logs.css';

export interface LogsServer {
  launchId: string;
  serverId: string;
  /** Server state, shown next to its name (`failed`, `restarting`…). */
  state?: string;
}

export interface LogsViewProps {
  /** The one LogStore, created at bootstrap and fed by the shell (snapshot + `stderr:batch`). */
  store: LogStore;
  /** Servers of the running launches, in display order. */
  servers: readonly LogsServer[];
  /** Server to show first (`launchId` + `serverId`), e.g. when opened from a server's card. */
  initial?: { launchId: string; serverId: string };
}

const LINE_H = 20;
const CHAR_W = 7.2; // JetBrains Mono at 12px; only an estimate for wrapped rows, which are measured
const CAPACITIES = [1_000, 5_000, 20_000, 50_000];

export function LogsView({ store, servers, initial }: LogsViewProps) {
  const api = useHostApi();
  const version = useFrameVersion(store);
  const options = useMemo(() => {
    const seen = new Map<string, LogsServer>();
    for (const s of servers) seen.set(`${s.launchId}\u0000${s.serverId}`, s);
    for (const src of store.list()) {
      const key = `${src.session}\u0000${src.server}`;
      if (!seen.has(key)) seen.set(key, { launchId: src.session, serverId: src.server, state: 'stopped' });
    }
    return [...seen.values()];
  }, [servers, store, version]);
  const [pick, setPick] = useState<string | undefined>(initial ? `${initial.launchId}\u0000${initial.serverId}` : undefined);
  // "All servers": every server's lines in one list, with a server column.
  const isAll = pick === ALL_SERVERS && options.length > 0;
  const current = isAll ? undefined : (options.find((o) => `${o.launchId}\u0000${o.serverId}` === pick) ?? options[0]);
  const source = isAll ? store.all : current ? store.source(current.launchId, current.serverId) : undefined;

  const [raw, setRaw] = useState(false);
  const [wrap, setWrap] = useState(true);
  const [query, setQuery] = useState('');
  const [hitIndex, setHitIndex] = useState(-1);
  const [reveal, setReveal] = useState<{ index: number; nonce: number } | undefined>();
  const [paused, setPaused] = useState(false);
  const [atBottom, setAtBottom] = useState(true);
  const [active, setActive] = useState(-1);
  const [width, setWidth] = useState(900);
  const wrapRef = useRef<HTMLDivElement>(null);

  // A server picked for the first time with nothing held: fetch its tail from the host.
  const fetched = useRef(new Set<string>());
  useEffect(() => {
    if (!current || !source || source.size() > 0) return;
    const key = `${current.launchId}\u0000${current.serverId}`;
    if (fetched.current.has(key)) return;
    fetched.current.add(key);
    api
      .call('logs:tail', { launchId: current.launchId, serverId: current.serverId, limit: 2000 })
      .then((lines) => store.append(lines))
      .catch(() => {});
  }, [api, current, source, store]);

  useEffect(() => {
    const el = wrapRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const hits = source ? source.search(query) : [];
  const hit = hitIndex >= 0 ? hits[Math.min(hitIndex, hits.length - 1)] : undefined;
  const count = source?.size() ?? 0;
  const stats = isAll ? store.allStats() : current ? store.stats(current.launchId, current.serverId) : undefined;
  const manyLaunches = new Set(options.map((x) => x.launchId)).size > 1;
  const follow = atBottom && !paused && hitIndex < 0;

  const step = (dir: 1 | -1) => {
    if (hits.length === 0 || !source) return;
    const next = hitIndex < 0 ? (dir === 1 ? 0 : hits.length - 1) : (hitIndex + dir + hits.length) % hits.length;
    setHitIndex(next);
    const idx = source.indexOfAbs(hits[next]!.abs);
    setActive(idx);
    setReveal({ index: idx, nonce: Date.now() });
  };

  const cols = Math.max(20, Math.floor((width - 150) / CHAR_W));
  const variable = useMemo(
    () =>
      wrap && source
        ? {
            key: (i: number) => source.at(i)?.abs ?? -i,
            estimate: (i: number) => {
              const e = source.at(i);
              return e?.kind === 'line' ? Math.max(1, Math.ceil(plainText(e).length / cols)) * LINE_H : LINE_H;
            },
          }
        : undefined,
    [wrap, source, cols],
  );

  const renderRow = (i: number) => {
    const e: LogEntry | undefined = source?.at(i);
    if (!e) return null;
    if (e.kind === 'run') {
      return (
        <div role="gridcell" aria-colspan={3} className="logs-run">
          — run {e.run} started at {formatTime(e.ts)} —
        </div>
      );
    }
    const lineHits = query ? hitsOf(hits, e.abs) : [];
    const cur: Range | undefined = hit && hit.abs === e.abs ? [hit.start, hit.end] : undefined;
    const visible = raw ? showEscapes(e.line.line) : undefined;
    return (
      <>
        <div role="gridcell" className="logs-n">
          {e.n}
        </div>
        <div role="gridcell" className="logs-time">
          {formatTime(e.line.ts)}
        </div>
        {isAll ? (
          <div role="gridcell" className="logs-server" title={`${e.line.server} · launch ${e.line.session.slice(0, 8)}`}>
            {e.line.server}
            {manyLaunches ? <span className="logs-launch"> · {e.line.session.slice(0, 6)}</span> : null}
          </div>
        ) : null}
        <div role="gridcell" className="logs-text">
          {visible !== undefined ? <RawText text={visible} query={query} /> : <AnsiLine text={e.line.line} ranges={lineHits} current={cur} />}
        </div>
      </>
    );
  };

  return (
    <section className="logs-view" aria-label="Logs view">
      <div className="logs-toolbar" role="toolbar" aria-label="Logs controls">
        <select
          className="tb-input"
          aria-label="Server"
          value={isAll ? ALL_SERVERS : current ? `${current.launchId}\u0000${current.serverId}` : ''}
          onChange={(e) => {
            setPick(e.target.value);
            setHitIndex(-1);
            setActive(-1);
            setAtBottom(true);
          }}
        >
          {options.length === 0 ? <option value="">No servers</option> : <option value={ALL_SERVERS}>All servers</option>}
          {options.map((o) => (
            <option key={`${o.launchId}\u0000${o.serverId}`} value={`${o.launchId}\u0000${o.serverId}`}>
              {o.serverId}
              {o.state && o.state !== 'ready' ? ` (${o.state})` : ''}
              {manyLaunches ? ` · ${o.launchId.slice(0, 6)}` : ''}
            </option>
          ))}
        </select>
        <span className="logs-search">
          <input
            className="tb-input"
            type="search"
            placeholder="Search lines"
            aria-label="Search logs"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setHitIndex(-1);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                step(e.shiftKey ? -1 : 1);
              } else if (e.key === 'Escape') {
                setQuery('');
                setHitIndex(-1);
              }
            }}
          />
          <span className="logs-hits" role="status" aria-live="polite">
            {query ? (hits.length === 0 ? 'no hits' : `${hitIndex >= 0 ? Math.min(hitIndex, hits.length - 1) + 1 : 0} of ${hits.length}`) : ''}
          </span>
          <button type="button" className="tb-btn" aria-label="Previous hit (Shift+Enter)" disabled={hits.length === 0} onClick={() => step(-1)}>
            ↑
          </button>
          <button type="button" className="tb-btn" aria-label="Next hit (Enter)" disabled={hits.length === 0} onClick={() => step(1)}>
            ↓
          </button>
        </span>
        <button type="button" className={`tb-btn${raw ? ' is-on' : ''}`} aria-pressed={raw} onClick={() => setRaw(!raw)} title="Show escape sequences as they came">
          Raw
        </button>
        <button type="button" className={`tb-btn${wrap ? ' is-on' : ''}`} aria-pressed={wrap} onClick={() => setWrap(!wrap)} title="Wrap long lines at word boundaries, or scroll horizontally">
          Wrap
        </button>
        <button
          type="button"
          className={`tb-btn${paused ? ' is-on' : ''}`}
          aria-pressed={paused}
          onClick={() => {
            setPaused(!paused);
            if (paused) {
              setAtBottom(true);
              setHitIndex(-1);
            }
          }}
        >
          {paused ? '▶ Resume' : '❚❚ Pause'}
        </button>
        {!follow && !paused ? (
          <button
            type="button"
            className="tb-btn"
            onClick={() => {
              setAtBottom(true);
              setHitIndex(-1);
            }}
          >
            Follow ↓
          </button>
        ) : null}
        <span className="logs-spacer" />
        {stats ? (
          <span className="logs-limits">
            last {stats.held.toLocaleString()} of {stats.total.toLocaleString()} lines
            {stats.dropped > 0 ? <span className="logs-dropped">, {stats.dropped.toLocaleString()} dropped</span> : ''}
          </span>
        ) : null}
        <select className="tb-input" aria-label="Lines kept per server" value={store.getCapacity()} onChange={(e) => store.setCapacity(Number(e.target.value))}>
          {[...new Set([...CAPACITIES, store.getCapacity()])].sort((a, b) => a - b).map((c) => (
            <option key={c} value={c}>
              {c.toLocaleString()} lines
            </option>
          ))}
        </select>
      </div>
      <div className="logs-list-wrap" ref={wrapRef}>
        <VirtualList
          key={`${isAll ? ALL_SERVERS : `${current?.launchId}\u0000${current?.serverId}`}\u0000${wrap}`}
          ariaLabel="Logs"
          idPrefix="logs"
          className={`logs-list${wrap ? ' is-wrap' : ''}${isAll ? ' is-all' : ''}`}
          count={count}
          rowHeight={LINE_H}
          variable={variable}
          noWrap={!wrap}
          colCount={isAll ? 4 : 3}
          version={version}
          headRemovals={source?.headRemovals ?? 0}
          follow={follow}
          reveal={reveal}
          activeIndex={active}
          onActiveIndexChange={setActive}
          onAtBottomChange={setAtBottom}
          rowClassName={(i) => {
            const e = source?.at(i);
            return e?.kind === 'run' ? 'logs-row-run' : e?.line.line.startsWith('gatehouse: ') ? 'logs-row-note' : undefined;
          }}
          renderRow={renderRow}
        />
        {count === 0 ? (
          <p className="logs-empty" role="status">
            {isAll ? 'No stderr from any server yet.' : current ? `No stderr from ${current.serverId} yet.` : 'No servers running.'}
          </p>
        ) : null}
      </div>
    </section>
  );
}

/** The hits on one line (hits are in line order: binary search, then a short walk). */
function hitsOf(hits: readonly LogHit[], abs: number): Range[] {
  let lo = 0;
  let hi = hits.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hits[mid]!.abs < abs) lo = mid + 1;
    else hi = mid;
  }
  const out: Range[] = [];
  for (let i = lo; i < hits.length && hits[i]!.abs === abs; i++) out.push([hits[i]!.start, hits[i]!.end]);
  return out;
}

function RawText({ text, query }: { text: string; query: string }) {
  const ranges = query ? findMatches(text, query) : [];
  if (ranges.length === 0) return <>{text}</>;
  const out: ReactNode[] = [];
  let last = 0;
  ranges.forEach(([s, e], i) => {
    if (s > last) out.push(text.slice(last, s));
    out.push(
      <mark key={i} className="logs-hit">
        {text.slice(s, e)}
      </mark>,
    );
    last = e;
  });
  out.push(text.slice(last));
  return <>{out}</>;
}
