// A ticking clock for uptimes and countdowns. One shared interval per period, so fifty
// countdowns cost one timer, and nothing ticks while nobody is looking.
import { useSyncExternalStore } from 'react';

interface Ticker {
  now: number;
  listeners: Set<() => void>;
  timer: ReturnType<typeof setInterval> | null;
}

const tickers = new Map<number, Ticker>();

function ticker(periodMs: number): Ticker {
  let t = tickers.get(periodMs);
  if (!t) {
    t = { now: Date.now(), listeners: new Set(), timer: null };
    tickers.set(periodMs, t);
  }
  return t;
}

export function useNow(periodMs = 1000): number {
  const t = ticker(periodMs);
  return useSyncExternalStore(
    (listener) => {
      t.listeners.add(listener);
      if (!t.timer) {
        t.now = Date.now();
        t.timer = setInterval(() => {
          t.now = Date.now();
          for (const l of [...t.listeners]) l();
        }, periodMs);
      }
      return () => {
        t.listeners.delete(listener);
        if (t.listeners.size === 0 && t.timer) {
          clearInterval(t.timer);
          t.timer = null;
        }
      };
    },
    () => t.now,
  );
}
