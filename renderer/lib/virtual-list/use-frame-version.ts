import { useEffect, useState } from 'react';
import type { FrameBudget } from './frame-budget';

export interface VersionedStore {
  version: number;
  subscribe(listener: () => void): () => void;
}

/** Longer than one 60 Hz frame and a half: the frame before this one was dropped. */
const LATE_FRAME_MS = 25;

/**
 * The store's version, re-read at most once per animation frame (VS Code/Hyper batching):
 * a store that changes a thousand times a second costs one render per frame. While `paused`
 * the version is not re-read, so the view does not move.
 *
 * Frames are left to the browser (scrolling, input, paint) after a frame that came late (the
 * last render and the layout it caused overran the frame), and, with a `budget`, after a refresh
 * that cost more than the view's share of a frame (frame-budget.ts): under a flood the list then
 * refreshes every other or every third frame while the page keeps its frame rate; a refresh whose
 * own frame, or the one after it, came late holds the next one back (FrameBudget.lateHoldMs).
 */
export function useFrameVersion(store: VersionedStore, paused = false, budget?: FrameBudget): number {
  const [version, setVersion] = useState(store.version);
  useEffect(() => {
    if (paused) return;
    let frame = 0;
    let previous = 0;
    let rest = 0;
    // The frames since the last refresh was scheduled (its render runs after that frame, its
    // paint in the next one: either may come late), and until when the next one waits.
    let sinceRefresh = Infinity;
    let refreshedAt = 0;
    let holdUntil = 0;
    const flush = (now: number) => {
      frame = 0;
      sinceRefresh++;
      if (budget && sinceRefresh <= 2 && previous > 0) {
        const hold = budget.lateHoldMs(now - previous);
        if (hold > 0) holdUntil = Math.max(holdUntil, refreshedAt + hold);
      }
      if (rest > 0 || now < holdUntil) {
        if (rest > 0) rest--;
        previous = now;
        frame = requestAnimationFrame(flush);
        return;
      }
      rest = Math.max(previous > 0 && now - previous > LATE_FRAME_MS ? 1 : 0, budget?.restFrames() ?? 0);
      previous = now;
      sinceRefresh = 0;
      refreshedAt = now;
      setVersion(store.version);
    };
    const unsubscribe = store.subscribe(() => {
      if (!frame) frame = requestAnimationFrame(flush);
    });
    setVersion(store.version);
    return () => {
      unsubscribe();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [store, paused, budget]);
  return version;
}
