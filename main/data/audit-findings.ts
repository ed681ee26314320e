// Reading the audit store's data_findings rows (migrations 9 and 10, main/audit/migrations.ts): what the
// data scanner found, per call. Written by the audit writer with each exchange row.
import type Database from 'better-sqlite3';
import type { DataFinding } from './scanner';

export interface DataFindingRow extends DataFinding {
  seq: number;
  ts: number;
  session: string;
  exchange: string;
  tool?: string;
}

export interface DataFindingFilter {
  session?: string;
  exchange?: string;
  limit?: number;
}

export function selectDataFindings(db: Database.Database, f: DataFindingFilter = {}): DataFindingRow[] {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: Math.max(1, Math.min(f.limit ?? 1000, 10_000)) };
  for (const key of ['session', 'exchange'] as const) {
    if (f[key] === undefined) continue;
    where.push(`${key} = @${key}`);
    params[key] = f[key];
  }
  const rows = db
    .prepare(`SELECT * FROM data_findings ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq LIMIT @limit`)
    .all(params) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    seq: r.seq as number,
    ts: r.ts as number,
    session: r.session as string,
    exchange: r.exchange as string,
    ...(r.tool !== null ? { tool: r.tool as string } : {}),
    direction: r.direction as DataFinding['direction'],
    kind: r.kind as DataFinding['kind'],
    rule: r.rule as string,
    ...(r.detail !== null ? { detail: r.detail as string } : {}),
    path: r.path as string,
    start: r.start as number,
    end: r.end as number,
  }));
}
