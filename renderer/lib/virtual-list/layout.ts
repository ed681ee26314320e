// The arithmetic of the virtual list, kept apart so it can be tested without a DOM.

/** Prefix sums: offsets[i] is the top of row i, offsets[count] the total height. */
export function offsetsFor(count: number, height: (index: number) => number): Float64Array {
  const out = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) out[i + 1] = out[i]! + height(i);
  return out;
}

/** The first row whose bottom is below `y` (binary search over prefix sums). */
export function firstVisible(offsets: Float64Array, y: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid + 1]! <= y) lo = mid + 1;
    else hi = mid;
  }
  return Math.min(lo, Math.max(0, offsets.length - 2));
}

/** Rows a PgUp/PgDn moves: one screen less one row of context. */
export function pageSize(viewport: number, rowHeight: number): number {
  return Math.max(1, Math.floor(viewport / rowHeight) - 1);
}
