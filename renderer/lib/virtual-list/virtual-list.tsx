// A small virtualized grid (no dependency): only the rows in view (plus overscan) are in the
// DOM. Row content comes from a callback that reads the caller's store, so thousands of rows per
// second cost one render per animation frame, never one React state update per row.
//
// Accessibility: `role="grid"` with `aria-rowcount`, each row `role="row"` with `aria-rowindex`
// (1-based, the header row is 1 when there is one); the grid is one tab stop and the active row
// is announced through `aria-activedescendant`. Keys: ↑ ↓ PgUp PgDn Home End, Enter activates.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent, type ReactNode } from 'react';
import { firstVisible, offsetsFor, pageSize } from './layout';
import './virtual-list.css';

export interface VirtualListProps {
  /** Accessible name of the grid ("Traffic", "Logs"). */
  ariaLabel: string;
  /** Prefix for row element ids (aria-activedescendant). */
  idPrefix: string;
  count: number;
  /** Fixed row height in px (≤ 24 for dense views); the estimate when rows are variable. */
  rowHeight: number;
  /** Variable heights (wrapped log lines): a stable key per row so measured heights follow the row. */
  variable?: { key: (index: number) => string | number; estimate: (index: number) => number };
  renderRow: (index: number) => ReactNode;
  /** Extra attributes per row (class, aria-selected…). */
  rowClassName?: (index: number) => string | undefined;
  /** A header row (its cells should use role="columnheader"). */
  header?: ReactNode;
  colCount?: number;
  activeIndex: number;
  onActiveIndexChange: (index: number) => void;
  onActivate?: (index: number) => void;
  /** Keys the list does not handle itself (← → for expand/collapse, Space to pin…). */
  onRowKeyDown?: (event: KeyboardEvent<HTMLDivElement>, index: number) => void;
  /** Keep the last row in view as rows are appended. */
  follow: boolean;
  onAtBottomChange?: (atBottom: boolean) => void;
  /** Called when the user scrolls to the very top (e.g. to load older history). */
  onReachTop?: () => void;
  /** Rows removed from the top so far (a counter): the view is shifted so what is on screen stays put. */
  headRemovals: number;
  /** Changes whenever row contents may have changed (the store's version). */
  version: number;
  overscan?: number;
  /** Bring a row into view (centred) whenever `nonce` changes: search hits, "jump to". */
  reveal?: { index: number; nonce: number };
  /** Rows as wide as their content (horizontal scroll) instead of the viewport. */
  noWrap?: boolean;
  className?: string;
}

export function VirtualList(props: VirtualListProps) {
  const { count, rowHeight, variable, overscan = 8, header, activeIndex, follow, headRemovals, version } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [measureTick, setMeasureTick] = useState(0);
  const heights = useRef(new Map<string | number, number>());
  const headerH = header ? rowHeight : 0;

  // Offsets: fixed rows need none; variable rows use measured heights where known.
  const offsets = useMemo(
    () => (variable ? offsetsFor(count, (i) => heights.current.get(variable.key(i)) ?? variable.estimate(i)) : undefined),
    // version and measureTick are the inputs the callbacks read: new rows, new measurements.
    [count, variable, version, measureTick],
  );
  const top = useCallback((i: number) => (offsets ? offsets[i]! : i * rowHeight), [offsets, rowHeight]);
  const total = offsets ? offsets[count]! : count * rowHeight;

  // Anchor: rows evicted at the top move everything up by their height; shift the scroll back.
  const prev = useRef({ headRemovals, offsets, count });
  useLayoutEffect(() => {
    const el = ref.current;
    const p = prev.current;
    prev.current = { headRemovals, offsets, count };
    if (!el) return;
    if (follow) {
      el.scrollTop = el.scrollHeight;
      return;
    }
    const removed = headRemovals - p.headRemovals;
    if (removed > 0) {
      const h = p.offsets ? (p.offsets[Math.min(removed, p.count)] ?? 0) : removed * rowHeight;
      el.scrollTop = Math.max(0, el.scrollTop - h);
    }
  }, [headRemovals, offsets, count, follow, rowHeight, version]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setViewport(el.clientHeight));
    ro.observe(el);
    setViewport(el.clientHeight);
    return () => ro.disconnect();
  }, []);

  const atBottomRef = useRef(true);
  const onScroll = () => {
    const el = ref.current;
    if (!el) return;
    setScrollTop(el.scrollTop);
    const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight / 2;
    if (atBottom !== atBottomRef.current) {
      atBottomRef.current = atBottom;
      props.onAtBottomChange?.(atBottom);
    }
    if (el.scrollTop <= 0) props.onReachTop?.();
  };

  const bodyTop = Math.max(0, scrollTop - headerH);
  const first = offsets ? firstVisible(offsets, bodyTop) : Math.floor(bodyTop / rowHeight);
  const start = Math.max(0, first - overscan);
  let end = start;
  const limit = bodyTop + viewport + overscan * rowHeight;
  while (end < count && top(end) < limit) end++;
  end = Math.min(count, end + overscan);

  // Measure rendered variable rows; a changed height re-lays out once.
  useLayoutEffect(() => {
    if (!variable || !ref.current) return;
    let changed = false;
    for (const el of ref.current.querySelectorAll<HTMLElement>('[data-vkey]')) {
      const key = el.dataset.vkey!;
      const h = el.offsetHeight;
      const k = /^\d+$/.test(key) ? Number(key) : key;
      if (h > 0 && heights.current.get(k) !== h) {
        heights.current.set(k, h);
        changed = true;
      }
    }
    if (heights.current.size > 4 * count + 1000) heights.current.clear();
    if (changed) setMeasureTick((t) => t + 1);
  });

  const scrollIntoView = (i: number) => {
    const el = ref.current;
    if (!el) return;
    const y = top(i) + headerH;
    const h = (offsets ? offsets[i + 1]! - offsets[i]! : rowHeight) || rowHeight;
    if (y - headerH < el.scrollTop) el.scrollTop = y - headerH;
    else if (y + h > el.scrollTop + el.clientHeight) el.scrollTop = y + h - el.clientHeight;
  };

  const revealNonce = props.reveal?.nonce;
  useLayoutEffect(() => {
    const el = ref.current;
    const r = props.reveal;
    if (!el || !r || r.index < 0 || r.index >= count) return;
    el.scrollTop = Math.max(0, top(r.index) + headerH - el.clientHeight / 2);
    // Only a new nonce reveals; later renders must not pull the view back.
  }, [revealNonce]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (count === 0) return;
    const page = pageSize(viewport - headerH, rowHeight);
    const cur = Math.min(Math.max(activeIndex, 0), count - 1);
    let next: number | undefined;
    switch (e.key) {
      case 'ArrowDown':
        next = activeIndex < 0 ? 0 : Math.min(count - 1, cur + 1);
        break;
      case 'ArrowUp':
        next = Math.max(0, cur - 1);
        break;
      case 'PageDown':
        next = Math.min(count - 1, cur + page);
        break;
      case 'PageUp':
        next = Math.max(0, cur - page);
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = count - 1;
        break;
      case 'Enter':
        if (activeIndex >= 0) props.onActivate?.(cur);
        e.preventDefault();
        return;
      default:
        if (activeIndex >= 0) props.onRowKeyDown?.(e, cur);
        return;
    }
    e.preventDefault();
    props.onActiveIndexChange(next);
    scrollIntoView(next);
  };

  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const style: CSSProperties = variable ? { top: top(i) + headerH, minHeight: rowHeight } : { top: top(i) + headerH, height: rowHeight };
    const cls = ['vl-row', props.rowClassName?.(i), i === activeIndex ? 'is-active' : ''].filter(Boolean).join(' ');
    rows.push(
      <div
        key={variable ? variable.key(i) : i}
        id={`${props.idPrefix}-r${i}`}
        role="row"
        aria-rowindex={i + 1 + (header ? 1 : 0)}
        aria-selected={i === activeIndex}
        className={cls}
        style={style}
        data-vkey={variable ? String(variable.key(i)) : undefined}
        onMouseDown={() => props.onActiveIndexChange(i)}
        onDoubleClick={() => props.onActivate?.(i)}
      >
        {props.renderRow(i)}
      </div>,
    );
  }

  return (
    <div
      ref={ref}
      role="grid"
      aria-label={props.ariaLabel}
      aria-rowcount={count + (header ? 1 : 0)}
      aria-colcount={props.colCount}
      aria-activedescendant={activeIndex >= start && activeIndex < end ? `${props.idPrefix}-r${activeIndex}` : undefined}
      tabIndex={0}
      className={['vl', props.noWrap ? 'vl-nowrap' : '', props.className ?? ''].filter(Boolean).join(' ')}
      onScroll={onScroll}
      onKeyDown={onKeyDown}
    >
      <div className="vl-spacer" style={{ height: total + headerH }} role="presentation">
        {header ? (
          <div role="row" aria-rowindex={1} className="vl-row vl-header" style={{ height: rowHeight }}>
            {header}
          </div>
        ) : null}
        {rows}
      </div>
    </div>
  );
}
