import { useEffect, useRef, useState } from 'react';

export interface VersionedStore {
  version: number;
  subscribe(listener: () => void): () => void;
}

/**
 * The store's version, re-read at most once per animation frame (VS Code/Hyper batching):
 * a store that changes a thousand times a second costs one render per frame. While `paused`
 * the version is not re-read, so the view does not move.
 */
/** Longer than one 60 Hz frame and a half: the frame before this one was dropped. */
const LATE_FRAME_MS = 25;

/**
 * `flood()` (asked once per render): true when this render is already more than the view can
 * show in a frame (e.g. a full screen of new rows while following the tail). Then the next frame
 * is left to the browser as after a late one: under a flood the list refreshes every other frame
 * (30 a second at 60 Hz), which no one can read faster, and the page keeps its frame rate for
 * scrolling and input.
 */
export function useFrameVersion(store: VersionedStore, paused = false, flood?: () => boolean): number {
  const [version, setVersion] = useState(store.version);
  const floodRef = useRef(flood);
  floodRef.current = flood;
  useEffect(() => {
    if (paused) return;
    let frame = 0;
    let previous = 0;
    let rest = false;
    const flush = (now: number) => {
      frame = 0;
      // A frame that came late means the last render (and the layout it caused) overran the
      // budget: the next frame is left to the browser (scrolling, input, paint), and the list
      // catches up in the one after. Under a flood the rows then move every other frame while
      // the page keeps its frame rate; with room to spare it renders every frame as before.
      if (rest) {
        rest = false;
        previous = now;
        frame = requestAnimationFrame(flush);
        return;
      }
      rest = (previous > 0 && now - previous > LATE_FRAME_MS) || (floodRef.current?.() ?? false);
      previous = now;
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
  }, [store, paused]);
  return version;
}
