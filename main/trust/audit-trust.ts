// Trust decisions in the audit store (docs/trust.md): who decided, when, about which hash, and
// what changed. Written synchronously and rarely (a person's click, a first pin, a held tool),
// so they bypass the batched traffic writer; a failed write is reported by the TrustStore and
// never blocks a decision.
import type Database from 'better-sqlite3';
import type { TrustDecision } from './pin-store';

/** [chain_n, prev_hash, row_hash] of the audit's hash chain (main/audit/chain.ts), or nulls. */
type Stamp = [n: number | null, prev: string | null, hash: string | null];
/** The audit store's chain (main/audit/chain.ts Chainer.stamp), handed down: trust sits below audit. */
export type TrustChain = (table: 'trust_decisions', session: string | null, values: unknown[], write: (stamp: Stamp) => boolean) => void;

/** Appended to main/audit/migrations.ts as the next version. */
export const TRUST_DECISIONS_SQL = `
CREATE TABLE trust_decisions (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  ts       REAL NOT NULL,
  profile  TEXT NOT NULL,
  server   TEXT,
  tool     TEXT,
  kind     TEXT NOT NULL,
  action   TEXT NOT NULL,
  by       TEXT NOT NULL,
  old_hash TEXT,
  new_hash TEXT,
  changed  TEXT,
  flags    TEXT,
  session  TEXT
);
CREATE INDEX trust_decisions_profile ON trust_decisions (profile, seq);
CREATE INDEX trust_decisions_ts ON trust_decisions (ts);
`;

export interface TrustDecisionRow extends TrustDecision {
  seq: number;
}

export interface TrustDecisionFilter {
  profile?: string;
  server?: string;
  tool?: string;
  limit?: number;
}

export function insertTrustDecision(db: Database.Database, d: TrustDecision, chain?: TrustChain): void {
  // The order of audit/chain.ts CHAINED_TABLES' trust_decisions columns.
  const vals = [d.ts, d.profile, d.server ?? null, d.tool ?? null, d.kind, d.action, d.by, d.oldHash ?? null, d.newHash ?? null,
    d.changed ?? null, d.flags?.length ? JSON.stringify(d.flags) : null, d.session ?? null];
  const insert = db.prepare(
    `INSERT INTO trust_decisions (ts, profile, server, tool, kind, action, by, old_hash, new_hash, changed, flags, session,
       chain_n, prev_hash, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const write = (stamp: Stamp): boolean => insert.run(...vals, ...stamp).changes > 0;
  if (chain) chain('trust_decisions', d.session ?? null, vals, write);
  else write([null, null, null]);
}

/** Newest `limit` decisions (default 200), oldest first. */
export function selectTrustDecisions(db: Database.Database, f: TrustDecisionFilter = {}): TrustDecisionRow[] {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: Math.max(1, Math.min(f.limit ?? 200, 10_000)) };
  for (const key of ['profile', 'server', 'tool'] as const) {
    if (f[key] !== undefined) {
      where.push(`${key} = @${key}`);
      params[key] = f[key];
    }
  }
  const rows = db
    .prepare(`SELECT * FROM trust_decisions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT @limit`)
    .all(params) as Array<Record<string, unknown>>;
  return rows.reverse().map((r) => {
    const row: TrustDecisionRow = {
      seq: r.seq as number,
      ts: r.ts as number,
      profile: r.profile as string,
      kind: r.kind as TrustDecision['kind'],
      action: r.action as TrustDecision['action'],
      by: r.by as string,
    };
    if (r.server !== null) row.server = r.server as string;
    if (r.tool !== null) row.tool = r.tool as string;
    if (r.old_hash !== null) row.oldHash = r.old_hash as string;
    if (r.new_hash !== null) row.newHash = r.new_hash as string;
    if (r.changed !== null) row.changed = r.changed as string;
    if (r.flags !== null) row.flags = JSON.parse(r.flags as string) as TrustDecision['flags'];
    if (r.session !== null) row.session = r.session as string;
    return row;
  });
}
