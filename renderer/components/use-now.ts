// A ticking clock for uptimes and countdowns. One shared interval per period, so fifty
// countdowns cost one timer, and nothing ticks while nobody is looking.
//
// The subscribe function is one per period, not one per render: React re-subscribes whenever
// it changes, and a re-subscription that restarted the clock changed the snapshot, which made
// React re-render synchronously, which re-subscribed... With ~24 approval cards (tray + view)
// that chain crossed React's nested-update limit (error #185) and blanked the window
// (tests/e2e/relay-flood.spec.ts).
import { useSyncExternalStore } from 'react';

interface Ticker {
  now: number;
  listeners: Set<() => void>;
  timer: ReturnType<typeof setInterval> | null;
  subscribe: (listener: () => void) => () => void;
  snapshot: () => number;
}

const tickers = new Map<number, Ticker>();

function ticker(periodMs: number): Ticker {
  let t = tickers.get(periodMs);
  if (!t) {
    const created: Ticker = {
      now: Date.now(),
      listeners: new Set(),
      timer: null,
      subscribe: (listener) => {
        created.listeners.add(listener);
        if (!created.timer) {
          created.now = Date.now(); // the clock stood still while nobody looked
          created.timer = setInterval(() => {
            created.now = Date.now();
            for (const l of [...created.listeners]) l();
          }, periodMs);
        }
        return () => {
          created.listeners.delete(listener);
          if (created.listeners.size === 0 && created.timer) {
            clearInterval(created.timer);
            created.timer = null;
          }
        };
      },
      snapshot: () => created.now,
    };
    tickers.set(periodMs, created);
    t = created;
  }
  return t;
}

export function useNow(periodMs = 1000): number {
  const t = ticker(periodMs);
  return useSyncExternalStore(t.subscribe, t.snapshot);
}
