/**
 * The items of a picker list whose named fields contain the query, case-insensitively; an empty
 * (or blank) query keeps them all. Fields are matched one by one (joined with NUL), so a query
 * never matches across two of them.
 */
export function filterByText<T>(list: readonly T[], query: string, fields: (item: T) => ReadonlyArray<string | undefined>): T[] {
  const q = query.trim().toLowerCase();
  return q ? list.filter((item) => fields(item).map((f) => f ?? '').join('\u0000').toLowerCase().includes(q)) : [...list];
}
