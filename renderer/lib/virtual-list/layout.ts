// The arithmetic of the virtual list that is ours (windowing itself is @tanstack/react-virtual's),
// kept apart so it can be tested without a DOM.

/** Rows a PgUp/PgDn moves: one screen less one row of context. */
export function pageSize(viewport: number, rowHeight: number): number {
  return Math.max(1, Math.floor(viewport / rowHeight) - 1);
}
