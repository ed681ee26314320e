// Which parts of a scrolling box have been on screen: the union of every [scrollTop, scrollTop +
// clientHeight] the box has shown. A row counts as seen when one stretch of that union covers it
// whole, so a jump to the end (End, a dragged scrollbar) does not count the rows it skipped.
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';

export type Interval = [number, number];

/** Adds [a, b] to sorted, disjoint intervals (touching or overlapping ones merge). */
export function addInterval(list: Interval[], next: Interval): Interval[] {
  const out: Interval[] = [];
  let [a, b] = next;
  for (const [x, y] of list) {
    if (y < a - 1 || x > b + 1) out.push([x, y]);
    else {
      a = Math.min(a, x);
      b = Math.max(b, y);
    }
  }
  out.push([a, b]);
  return out.sort((p, q) => p[0] - q[0]);
}

/** True when one interval holds [top, bottom] (1 px of slack for fractional layout). */
export function covered(list: Interval[], top: number, bottom: number): boolean {
  return list.some(([x, y]) => x <= top + 1 && y >= bottom - 1);
}

/**
 * Rows (children matching `rowSelector`) of the box not yet on screen; recomputed on scroll and
 * resize. `resetKey` starts over (another request on the same card).
 */
export function useUnseenRows(box: RefObject<HTMLElement | null>, rowSelector: string, resetKey: string): { unseen: number; total: number } {
  const seen = useRef<Interval[]>([]);
  const [state, setState] = useState({ unseen: 0, total: 0 });
  const measure = useCallback(() => {
    const el = box.current;
    if (!el) return;
    seen.current = addInterval(seen.current, [el.scrollTop, el.scrollTop + el.clientHeight]);
    const top = el.getBoundingClientRect().top - el.scrollTop;
    const rows = [...el.querySelectorAll<HTMLElement>(rowSelector)];
    let unseen = 0;
    for (const r of rows) {
      const rect = r.getBoundingClientRect();
      if (!covered(seen.current, rect.top - top, rect.bottom - top)) unseen++;
    }
    setState((s) => (s.unseen === unseen && s.total === rows.length ? s : { unseen, total: rows.length }));
  }, [box, rowSelector]);
  useLayoutEffect(() => {
    seen.current = [];
    const el = box.current;
    if (!el) return;
    // Measured in the next frame, once per frame: read right after each card mounts, layout is
    // forced once per card (a relay flood mounts 48, tests/e2e/relay-flood.spec.ts); in one
    // frame they share a layout, and a burst of scroll events is one measurement.
    let frame = 0;
    const schedule = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        measure();
      });
    };
    schedule();
    el.addEventListener('scroll', schedule, { passive: true });
    const ro = new ResizeObserver(schedule);
    ro.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      el.removeEventListener('scroll', schedule);
      ro.disconnect();
    };
  }, [box, measure, resetKey]);
  return state;
}
