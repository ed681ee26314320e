// Which parts of a scrolling box have been on screen: the union of every stretch of its content
// that was visible (its scrolled window, clipped by scrolling ancestors and the viewport). A row
// counts as seen when one stretch of that union covers it whole, so a jump to the end (End, a
// dragged scrollbar) does not count the rows it skipped, and a card below the tray's fold or in
// a hidden container counts nothing.
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
 * Rows (children matching `rowSelector`) of the box not yet on screen, null until first measured;
 * recomputed on scroll and resize. `resetKey` starts over (another request on the same card).
 */
export function useUnseenRows(box: RefObject<HTMLElement | null>, rowSelector: string, resetKey: string): { unseen: number; total: number } | null {
  const seen = useRef<Interval[]>([]);
  const clips = useRef<HTMLElement[] | null>(null);
  // null until first measured: a card must not count as seen in the frame before it is measured.
  const [state, setState] = useState<{ unseen: number; total: number } | null>(null);
  const measure = useCallback(() => {
    const el = box.current;
    if (!el) return;
    // What of the box is on screen: its own scrolled window, clipped by every scrolling ancestor
    // (the tray's list) and the viewport. A box hidden or scrolled out of view shows nothing.
    const rect = el.getBoundingClientRect();
    let clipTop = Math.max(rect.top, 0);
    let clipBottom = Math.min(rect.bottom, globalThis.innerHeight);
    // The clipping ancestors are looked up once per mount (getComputedStyle on every scroll of
    // every locked card would be hundreds of style reads a frame in a flood).
    clips.current ??= ancestorsThatClip(el);
    for (const a of clips.current) {
      const r = a.getBoundingClientRect();
      clipTop = Math.max(clipTop, r.top);
      clipBottom = Math.min(clipBottom, r.bottom);
    }
    const top = rect.top - el.scrollTop;
    if (clipBottom > clipTop && el.clientHeight > 0) seen.current = addInterval(seen.current, [clipTop - top, clipBottom - top]);
    const rows = [...el.querySelectorAll<HTMLElement>(rowSelector)];
    let unseen = 0;
    for (const r of rows) {
      const rr = r.getBoundingClientRect();
      if (seen.current.length === 0 || !covered(seen.current, rr.top - top, rr.bottom - top)) unseen++;
    }
    setState((s) => (s && s.unseen === unseen && s.total === rows.length ? s : { unseen, total: rows.length }));
  }, [box, rowSelector]);
  useLayoutEffect(() => {
    seen.current = [];
    clips.current = null;
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
    // Any scroll can bring the box into view (its own, the tray's, the view's): scroll events do
    // not bubble, so they are caught on the way down.
    globalThis.addEventListener('scroll', schedule, { capture: true, passive: true });
    globalThis.addEventListener('resize', schedule);
    const ro = new ResizeObserver(schedule);
    ro.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      globalThis.removeEventListener('scroll', schedule, { capture: true });
      globalThis.removeEventListener('resize', schedule);
      ro.disconnect();
    };
  }, [box, measure, resetKey]);
  return state;
}

function ancestorsThatClip(el: HTMLElement): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (let a = el.parentElement; a; a = a.parentElement) if (getComputedStyle(a).overflowY !== 'visible') out.push(a);
  return out;
}
