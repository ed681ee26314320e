// The virtualized grid every dense view uses (Traffic, Logs): windowing and measurement come
// from @tanstack/react-virtual (STYLE.md: the maintained library for the job); this file adds what
// the views need on top of it: the accessible grid, keyboard moves, following the tail, and
// keeping what is on screen in place when rows are evicted from the head of the list.
//
// Per-frame cost: the virtualizer lays rows out from a Float64Array it rebuilds only when `count`
// or a measured size changes; everything else here touches the rows in view. Scroll events
// re-render synchronously (the library's flushSync), so the jump to the bottom while following
// paints the bottom rows in the same frame: no empty band (the old list kept the scroll offset in
// React state, a frame behind). A custom rangeExtractor that pinned the window to the tail while
// following made a filter click cost seconds at 25k rows (measured with bench:ui and a CPU
// profile: the extractor ran in a loop); the library's own range is used.
//
// Accessibility: `role="grid"` with `aria-rowcount`, each row `role="row"` with `aria-rowindex`
// (1-based, the header row is 1 when there is one); the grid is one tab stop and the active row
// is announced through `aria-activedescendant`. Keys: ↑ ↓ PgUp PgDn Home End, Enter activates.
import { useCallback, useEffect, useLayoutEffect, useRef, type CSSProperties, type KeyboardEvent, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { FrameBudget } from './frame-budget';
import { pageSize } from './layout';
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
  /** A click on a row (after it became the active one); buttons inside a row stop their own clicks. */
  onRowClick?: (index: number) => void;
  /** Keys the list does not handle itself (← → for expand/collapse, Space to pin…). */
  onRowKeyDown?: (event: KeyboardEvent<HTMLDivElement>, index: number) => void;
  /** Keep the last row in view as rows are appended. */
  follow: boolean;
  onAtBottomChange?: (atBottom: boolean) => void;
  /** Called when the user scrolls up to the very top (e.g. to load older history); not when the list moves under the view. */
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
  /** Told when a refresh's DOM and layout are done (the view starts it): see frame-budget.ts. */
  budget?: FrameBudget;
}

/** A scroll this soon after the user's wheel, key, pointer or touch is theirs. */
const USER_SCROLL_MS = 1000;

/** Padding left by evicted fixed rows before the list rebases (far below Chromium's ~16.7M px). */
const REBASE_PX = 4_000_000;

export function VirtualList(props: VirtualListProps) {
  const { count, rowHeight, variable, overscan = 8, header, activeIndex, follow, headRemovals, version } = props;
  const ref = useRef<HTMLDivElement>(null);
  const headerH = header ? rowHeight : 0;
  const followRef = useRef(follow);
  followRef.current = follow;

  // Fixed rows keep their place while rows are evicted at the head: a row sits at its absolute
  // index (rows ever removed + its index) from a base, the removed rows' height becomes padding
  // above the list, and its key follows that absolute index (below). So eviction moves no row and needs no
  // scroll correction: a scrolled list re-renders nothing, a following one only its edges (the
  // CPU profile of bench:ui showed two forced layouts per frame in that correction, and every
  // visible row re-rendered as indices shifted under it). Scrolled, the base moves only now and
  // then, so the padding never nears the browser's limit on an element's height.
  const fixed = !variable;
  const base = useRef(headRemovals);
  const rebased = useRef(0);
  // Following, the view is put at the bottom on every render anyway, so no padding is kept: the
  // scrollbar spans the rows held, and a drag to its middle lands on the middle row (with the
  // padding of a long follow, half the scrollbar was rows long gone).
  if (!fixed || follow || headRemovals < base.current) base.current = headRemovals;
  else if ((headRemovals - base.current) * rowHeight > REBASE_PX) {
    rebased.current += (headRemovals - base.current) * rowHeight;
    base.current = headRemovals;
  }
  const gone = (headRemovals - base.current) * rowHeight;
  const goneRef = useRef(gone);
  goneRef.current = gone;

  // Keys: a fixed row's element is keyed by its slot, its absolute index modulo a ring as large
  // as the rows rendered (plus one). Eviction at the head changes no key (the absolute index
  // stays), so a scrolled list moves no row; and when the whole view changes at once (following a
  // flood, a filter click, a jump) the new rows take the keys of the old ones, so React refills
  // the same elements instead of removing and creating every row. In a Chromium micro-benchmark
  // of 46 Traffic rows: 8 ms of DOM and layout per render with new elements, 3.5 ms reusing them
  // (in the same order or moved). The ring is resized only when the rendered count leaves it.
  const following = fixed && follow;
  // Following, nothing lies below the last row and the rows above the view are not seen until
  // the user scrolls (which re-renders in the same frame): one row of overscan is enough.
  const over = following ? 1 : overscan;
  const slots = useRef(0);
  const keyOf = variable?.key;
  const estimateOf = variable?.estimate;
  // Fixed rows' element keys are slots (rowKey below) and their sizes are never measured, so the
  // virtualizer's key is the index: a key that changed with every eviction made it walk every row.
  const getItemKey = useCallback((i: number) => (keyOf ? keyOf(i) : i), [keyOf]);
  const estimateSize = useCallback((i: number) => (estimateOf ? estimateOf(i) : rowHeight), [estimateOf, rowHeight]);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => ref.current,
    estimateSize,
    getItemKey,
    overscan: over,
    paddingStart: headerH + gone,
    scrollPaddingStart: headerH,
    initialRect: { width: 800, height: 600 },
    // Fixed rows are never measured: their height is the contract (≤ 24 px dense rows).
    measureElement: variable ? (el) => (el as HTMLElement).offsetHeight || rowHeight : undefined,
  });
  // Following: the layout effect below scrolls to the bottom before this frame is painted, so the
  // range is taken at the bottom now, not at the offset of the last scroll event (a frame behind
  // as the list grows: an empty band below the last row). Rows keep their places and keys, so the
  // browser scrolls what it painted and paints only the rows that came in.
  if (fixed && follow && virtualizer.scrollRect) {
    virtualizer.scrollOffset = Math.max(0, virtualizer.getTotalSize() - virtualizer.scrollRect.height);
  }
  const items = virtualizer.getVirtualItems();
  // Starting or stopping to follow changes the overscan (1 or 8 rows each side), so the ring is
  // resized and every row remounts once then (one frame of new elements). A ring sized for the
  // larger overscan would spare that but reuse only part of the keys on every refresh while
  // following, where the flood is (a full refresh then creates as many rows as the ring exceeds
  // what is rendered).
  if (fixed && (items.length > slots.current || items.length + 3 < slots.current)) slots.current = items.length + 1;
  const rowKey = (index: number, key: string | number | bigint) => (fixed ? (index + headRemovals) % slots.current : key);

  // Anchor: rows evicted at the head move everything up; put the first row in view back where it
  // was (found by its new index: removals only happen at the head, appends at the tail).
  const anchor = useRef<{ headRemovals: number; index: number; start: number } | undefined>(undefined);
  // Where the list last put the view while following (the scrollTop it read back).
  const followTop = useRef<number | undefined>(undefined);
  const atBottomRef = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    const a = anchor.current;
    if (el && !followRef.current) followTop.current = undefined;
    if (el) {
      if (followRef.current) {
        // A scroll the list did not make since it last put the view at the bottom is the user's,
        // and its scroll event may not have come yet (under a flood a render can come first): it
        // stops following instead of being undone. A list that only grew or shrank is not that.
        const put = followTop.current;
        if (put !== undefined && el.scrollTop < put - rowHeight / 2 && el.scrollTop + el.clientHeight < el.scrollHeight - rowHeight / 2) {
          followTop.current = undefined;
          atBottomRef.current = false;
          props.onAtBottomChange?.(false);
        } else {
          el.scrollTop = el.scrollHeight;
          followTop.current = el.scrollTop;
        }
      } else if (fixed) {
        if (rebased.current) el.scrollTop = Math.max(0, el.scrollTop - rebased.current);
        // The rows in view were all evicted: show the oldest row left (the scroll offset the
        // virtualizer keeps from scroll events: no layout read).
        else if ((virtualizer.scrollOffset ?? 0) < gone) el.scrollTop = gone;
      } else if (a && headRemovals > a.headRemovals) {
        const removed = headRemovals - a.headRemovals;
        const now = a.index - removed;
        const start = now >= 0 && now < count ? (virtualizer.measurementsCache[now]?.start ?? headerH) : headerH;
        el.scrollTop = Math.max(0, el.scrollTop + (start - a.start));
      }
    }
    rebased.current = 0;
    props.budget?.end();
    if (fixed) return;
    const first = items.find((it) => it.end > (el?.scrollTop ?? 0) + headerH) ?? items[0];
    anchor.current = first ? { headRemovals, index: first.index, start: first.start } : { headRemovals, index: 0, start: headerH };
  }, [headRemovals, count, follow, version, items, headerH, virtualizer, fixed, gone]);

  const onScroll = () => {
    const el = ref.current;
    if (!el) return;
    const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight / 2;
    if (atBottom !== atBottomRef.current) {
      atBottomRef.current = atBottom;
      props.onAtBottomChange?.(atBottom);
    }
    // The top is reached by the user scrolling up to it (wheel, keys, the scrollbar, touch), not
    // by the list moving under a still view: a filter that leaves a few rows clamps the offset to
    // the top, and eviction can push the view onto the oldest row left. Those used to load a page
    // of older history each time (bench:ui: the buffer grew past its size, 500 ms frames).
    const top = el.scrollTop;
    const movedUp = top < lastTop.current;
    lastTop.current = top;
    if (movedUp && top <= goneRef.current && performance.now() - userInput.current < USER_SCROLL_MS) props.onReachTop?.();
  };
  const lastTop = useRef(0);
  const userInput = useRef(-Infinity);
  const markUserInput = () => {
    userInput.current = performance.now();
  };

  // Re-measure when the wrap width changes (variable rows only).
  useEffect(() => {
    if (!variable) return;
    virtualizer.measure();
  }, [variable, virtualizer]);

  const revealNonce = props.reveal?.nonce;
  useLayoutEffect(() => {
    const r = props.reveal;
    if (!r || r.index < 0 || r.index >= count) return;
    virtualizer.scrollToIndex(r.index, { align: 'center' });
    // Only a new nonce reveals; later renders must not pull the view back.
  }, [revealNonce]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    // Keys on a header control (a sort button) are its own: Enter and Space press it.
    if (e.target instanceof Element && e.target !== e.currentTarget && e.target.closest('.vl-header')) return;
    if (count === 0) return;
    const viewport = ref.current?.clientHeight ?? 600;
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
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  const rows: ReactNode[] = [];
  let rendered = false;
  for (const item of items) {
    const i = item.index;
    if (i === activeIndex) rendered = true;
    const style: CSSProperties = variable ? { top: item.start, minHeight: rowHeight } : { top: item.start, height: rowHeight };
    const cls = ['vl-row', props.rowClassName?.(i), i === activeIndex ? 'is-active' : ''].filter(Boolean).join(' ');
    rows.push(
      <div
        key={String(rowKey(i, item.key))}
        id={`${props.idPrefix}-r${i}`}
        role="row"
        aria-rowindex={i + 1 + (header ? 1 : 0)}
        aria-selected={i === activeIndex}
        className={cls}
        style={style}
        data-index={i}
        ref={variable ? virtualizer.measureElement : undefined}
        onMouseDown={() => props.onActiveIndexChange(i)}
        onClick={props.onRowClick ? () => props.onRowClick?.(i) : undefined}
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
      aria-activedescendant={rendered ? `${props.idPrefix}-r${activeIndex}` : undefined}
      tabIndex={0}
      className={['vl', props.noWrap ? 'vl-nowrap' : '', props.className ?? ''].filter(Boolean).join(' ')}
      onScroll={onScroll}
      onWheel={markUserInput}
      onPointerDown={markUserInput}
      onTouchMove={markUserInput}
      onKeyDown={(e) => {
        markUserInput();
        onKeyDown(e);
      }}
    >
      <div className="vl-spacer" style={{ height: Math.max(virtualizer.getTotalSize(), headerH) }} role="presentation">
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
