// How much of each frame a view's refreshes may take. A list under a flood of new rows costs
// about the same to refresh whatever arrived (every row in view is new): its render, the DOM
// writes and the layout they force. The view measures that cost (VirtualList times its own
// render through its layout effect) and the frame scheduler (useFrameVersion) leaves frames to
// the browser so that the refreshes take at most BUDGET_MS a frame on average: a 12 ms refresh
// runs every other frame, an 18 ms one every third. Input, scrolling and the host's batches keep
// the rest of the main thread; a cheap refresh still runs every frame.
//
// A refresh whose frame came late (its render, layout and paint overran the frame) cost the page
// a frame: the next one waits until the frames lost stay under LATE_SHARE of the time
// (lateHoldMs). Following a flood (bench:ui, ~1,500 events/s: every row in view is new on every
// refresh) most refreshes drop a frame, and at ~10 refreshes a second the page ran at 0.84× the
// control; held this way it keeps ≥ 0.9× and refreshes ~5 times a second, while a refresh that
// fits in its frame still runs at the rate the budget gives.

/** Main-thread time a view's refreshes may use per 60 Hz frame, on average. */
export const BUDGET_MS = 6;
/** At most this many frames are skipped after a refresh (at least 15 refreshes a second). */
export const MAX_REST_FRAMES = 3;
/** The share of the time refreshes that made their frame late may cost the page. */
export const LATE_SHARE = 0.08;
/** A 60 Hz frame, ms. */
export const FRAME_MS = 1000 / 60;
/** The longest a late refresh holds the next one back (the list still moves twice a second). */
export const MAX_HOLD_MS = 500;

export class FrameBudget {
  private started = 0;
  /** The cost of the last refresh, ms (render start → its layout effect, forced layout included). */
  lastCostMs = 0;

  /** Called when a refresh starts rendering. */
  begin(): void {
    this.started = performance.now();
  }

  /** Called when the refresh's DOM and layout are done. */
  end(): void {
    if (this.started > 0) this.lastCostMs = performance.now() - this.started;
    this.started = 0;
  }

  /**
   * Called after every render of the view (its own layout effect, which runs after the list's):
   * a render that did not reach the list's layout effect (a selection, a pane resize, paused)
   * must not leave its start behind for a later, unrelated end() to measure from.
   */
  discard(): void {
    this.started = 0;
  }

  /**
   * How long after a refresh the next one waits, ms, given the gap between the frame the refresh
   * was scheduled in and the next frame that came (`gapMs`): nothing when that frame was on time,
   * else the time lost (the gap less a frame) ÷ LATE_SHARE, at most MAX_HOLD_MS.
   */
  lateHoldMs(gapMs: number): number {
    const lost = gapMs - FRAME_MS;
    if (lost < FRAME_MS / 2) return 0;
    return Math.min(MAX_HOLD_MS, lost / LATE_SHARE);
  }

  /** Frames to leave to the browser after the last refresh. */
  restFrames(): number {
    return Math.min(MAX_REST_FRAMES, Math.max(0, Math.ceil(this.lastCostMs / BUDGET_MS) - 1));
  }
}
