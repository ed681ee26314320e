// What the bench measures inside the page: frame pacing (requestAnimationFrame timestamps), the
// JS heap after a forced GC, and how long a filter chip's click takes to reach the screen.
import type { Page } from '@playwright/test';

export interface FrameStats {
  seconds: number;
  frames: number;
  meanFps: number;
  /** The worst one-second window. */
  minFps: number;
  longestGapMs: number;
  /** Frames that took longer than 50 ms (three missed vsyncs). */
  gapsOver50: number;
  /** Commits that changed the watched element's subtree, per second (how often the list moved). */
  refreshesPerSec?: number;
}

/** Frame timestamps for `ms`, summarised. */
export async function measureFrames(page: Page, ms: number, watch?: string): Promise<FrameStats> {
  const { stamps, refreshes } = await page.evaluate(
    ([duration, selector]) =>
      new Promise<{ stamps: number[]; refreshes: number }>((resolve) => {
        const g = globalThis as any;
        const out: number[] = [];
        // One MutationObserver callback per batch of DOM changes: React commits in one batch.
        let refreshes = 0;
        const target = selector ? g.document.querySelector(selector) : null;
        const observer = target ? new g.MutationObserver(() => refreshes++) : null;
        observer?.observe(target, { subtree: true, childList: true, characterData: true, attributes: true });
        const t0 = g.performance.now();
        const tick = (t: number) => {
          out.push(t);
          if (t - t0 < duration) g.requestAnimationFrame(tick);
          else {
            observer?.disconnect();
            resolve({ stamps: out, refreshes });
          }
        };
        g.requestAnimationFrame(tick);
      }),
    [ms, watch] as const,
  );
  const seconds = (stamps.at(-1)! - stamps[0]!) / 1000;
  let longest = 0;
  let over50 = 0;
  for (let i = 1; i < stamps.length; i++) {
    const gap = stamps[i]! - stamps[i - 1]!;
    longest = Math.max(longest, gap);
    if (gap > 50) over50++;
  }
  let minFps = Infinity;
  for (let s = stamps[0]!; s + 1000 <= stamps.at(-1)!; s += 1000) minFps = Math.min(minFps, stamps.filter((t) => t >= s && t < s + 1000).length);
  return {
    seconds,
    frames: stamps.length - 1,
    meanFps: (stamps.length - 1) / seconds,
    minFps: Number.isFinite(minFps) ? minFps : 0,
    longestGapMs: longest,
    gapsOver50: over50,
    ...(watch ? { refreshesPerSec: refreshes / seconds } : {}),
  };
}

/** usedJSHeapSize after two forced collections (Chromium runs with --js-flags=--expose-gc). */
export async function heapAfterGc(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const g = globalThis as any;
    for (let i = 0; i < 2; i++) {
      g.gc?.();
      await new Promise((r) => setTimeout(r, 50));
    }
    return g.performance.memory.usedJSHeapSize as number;
  });
}

/**
 * Click → the next frame after the click's work: the click runs the filter and React's commit
 * synchronously (a discrete event); the frame after it is when a person sees the new list.
 */
export async function clickLatency(page: Page, selector: string): Promise<number> {
  return page.evaluate(
    (sel) =>
      new Promise<number>((resolve, reject) => {
        const g = globalThis as any;
        const el = g.document.querySelector(sel);
        if (!el) return reject(new Error(`no element ${sel}`));
        const t0 = g.performance.now();
        el.click();
        g.requestAnimationFrame(() => g.setTimeout(() => resolve(g.performance.now() - t0), 0));
      }),
    selector,
  );
}
