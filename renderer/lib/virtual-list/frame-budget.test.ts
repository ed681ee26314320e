import { describe, expect, it } from 'vitest';
import { BUDGET_MS, FRAME_MS, FrameBudget, LATE_SHARE, MAX_HOLD_MS, MAX_REST_FRAMES } from './frame-budget';

describe('FrameBudget', () => {
  it('leaves frames to the browser in proportion to what the last refresh cost', () => {
    const b = new FrameBudget();
    expect(b.restFrames()).toBe(0); // nothing measured yet
    for (const [cost, rest] of [
      [BUDGET_MS * 0.5, 0],
      [BUDGET_MS, 0],
      [BUDGET_MS * 1.5, 1],
      [BUDGET_MS * 2.5, 2],
      [BUDGET_MS * 40, MAX_REST_FRAMES],
    ] as const) {
      b.lastCostMs = cost;
      expect(b.restFrames(), `cost ${cost} ms`).toBe(rest);
    }
  });

  it('measures from begin to end, and ignores an end without a begin', () => {
    const b = new FrameBudget();
    b.begin();
    const until = performance.now() + 3;
    while (performance.now() < until) {
      // spin: a refresh that costs about 3 ms
    }
    b.end();
    expect(b.lastCostMs).toBeGreaterThanOrEqual(3);
    const measured = b.lastCostMs;
    b.end(); // a list that re-rendered on its own (a scroll): no refresh was started
    expect(b.lastCostMs).toBe(measured);
    // A view render that never reached the list's layout effect (a selection, paused): discarded,
    // so a later end() does not count the time since it.
    b.begin();
    b.discard();
    b.end();
    expect(b.lastCostMs).toBe(measured);
  });

  it('holds the next refresh back after a late frame, so late frames stay under their share of the time', () => {
    const b = new FrameBudget();
    expect(b.lateHoldMs(FRAME_MS)).toBe(0); // on time
    expect(b.lateHoldMs(FRAME_MS * 1.3)).toBe(0); // jitter, not a lost frame
    // One frame lost: the next refresh waits until that frame is LATE_SHARE of the time.
    const one = b.lateHoldMs(FRAME_MS * 2);
    expect(one).toBeCloseTo(FRAME_MS / LATE_SHARE, 5);
    expect(FRAME_MS / (one + FRAME_MS)).toBeLessThanOrEqual(LATE_SHARE);
    expect(b.lateHoldMs(FRAME_MS * 3)).toBeGreaterThan(one);
    expect(b.lateHoldMs(5000)).toBe(MAX_HOLD_MS); // a stall does not freeze the list
  });
});
