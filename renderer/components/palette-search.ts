// The command palette's matching: MiniSearch (prefix and typo-tolerant, every word must match),
// so "trafic", "lau dem" and "deny" find "Open Traffic", "Launch demo" and "Deny the oldest…".
import MiniSearch from 'minisearch';

export interface PaletteCommand {
  id: string;
  title: string;
  /** What kind of command it is ("View", "Launch", "Approvals"…), shown and searched too. */
  group: string;
  /** A key that does the same, shown beside it. */
  keys?: string;
  run: () => void;
}

/** The commands that match `query`, best first; all of them, in order, for an empty query. */
export function rankCommands(commands: readonly PaletteCommand[], query: string): PaletteCommand[] {
  const q = query.trim();
  if (!q) return [...commands];
  const index = new MiniSearch<PaletteCommand>({ fields: ['title', 'group'], idField: 'id', storeFields: [] });
  index.addAll(commands as PaletteCommand[]);
  const byId = new Map(commands.map((c) => [c.id, c]));
  return index
    .search(q, { prefix: true, fuzzy: 0.2, combineWith: 'AND', boost: { title: 2 } })
    .map((r) => byId.get(String(r.id)))
    .filter((c): c is PaletteCommand => c !== undefined);
}
