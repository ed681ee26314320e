import { useEffect, useState } from 'react';

export interface VersionedStore {
  version: number;
  subscribe(listener: () => void): () => void;
}

/**
 * The store's version, re-read at most once per animation frame (VS Code/Hyper batching):
 * a store that changes a thousand times a second costs one render per frame. While `paused`
 * the version is not re-read, so the view does not move.
 */
export function useFrameVersion(store: VersionedStore, paused = false): number {
  const [version, setVersion] = useState(store.version);
  useEffect(() => {
    if (paused) return;
    let frame = 0;
    const flush = () => {
      frame = 0;
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
