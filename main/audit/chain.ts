// The tamper-evident audit (docs/audit.md "Tamper-evident audit"): every stored row of the
// tables below is hash-chained per session. A row at position n of its chain carries
//   chain_n   = n (1, 2, 3, … across all chained tables of that session)
//   prev_hash = the row_hash of position n-1 ('' for the first)
//   row_hash  = sha256(prev_hash, table, n, the row's content columns)
// The writer stamps rows inside its batch transaction (off the protocol path); the head of each
// chain is kept in audit_chains, and a signed checkpoint (Ed25519, audit-key.ts) is written every
// `checkpointEvery` rows and when a session ends. Pruning leaves a signed summary of the
// positions it removed (PruneSummary), so what is left still verifies (verify.ts).
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { AuditSigner } from './audit-key';

export interface ChainedTable {
  table: string;
  /** SQL expression naming a row's chain (its session). */
  chain: string;
  /** Content columns, in the order the writer binds them and the hash covers them. */
  columns: readonly string[];
  /** Rows are only ever appended: their seq order must follow their chain order. */
  appendOnly: boolean;
  /** Rows that are not (yet) part of the chain by design, e.g. a call still pending. */
  unchained?: string;
}

/** The chain of rows that belong to no session (trust decisions made outside one). */
export const INSTALL_CHAIN = '-';

// A new table joins the chain with one line here (and joinChain in its migration).
export const CHAINED_TABLES: readonly ChainedTable[] = [
  { table: 'messages', chain: 'session', appendOnly: true, columns: ['tap_seq', 'ts', 'session', 'agent_session', 'server', 'direction', 'kind', 'method', 'rpc_id', 'bytes', 'message', 'fault', 'exchange', 'decision', 'tool', 'latency_ms'] },
  { table: 'decisions', chain: 'session', appendOnly: true, columns: ['ts', 'session', 'agent_session', 'exchange', 'tool', 'server', 'decision', 'outcome', 'reason', 'rule', 'fingerprint', 'answered_by', 'scope', 'waited_ms', 'args'] },
  // A call is stamped once, when it ends: its pending row is rewritten, its final row never is.
  { table: 'exchanges', chain: 'session', appendOnly: false, unchained: `outcome = 'pending'`, columns: ['id', 'ts', 'session', 'agent_session', 'kind', 'method', 'server', 'tool', 'advertised', 'parent', 'downstream_id', 'upstream_id', 'decision', 'decided_by', 'rule', 'answered_by', 'reason', 'outcome', 'error', 'decided_at', 'sent_at', 'answered_at', 'latency_ms', 'request_bytes', 'response_bytes', 'agent_era', 'round', 'agent_name', 'agent_version'] },
  { table: 'trust_decisions', chain: `coalesce(session, '${INSTALL_CHAIN}')`, appendOnly: true, columns: ['ts', 'profile', 'server', 'tool', 'kind', 'action', 'by', 'old_hash', 'new_hash', 'changed', 'flags', 'session'] },
  // A finding is stamped once, when its row is first written (the writer's INSERT OR IGNORE).
  { table: 'data_findings', chain: 'session', appendOnly: true, columns: ['ts', 'session', 'exchange', 'tool', 'direction', 'kind', 'rule', 'detail', 'path', 'start', 'end'] },
];

/** The tables the chain migration (7) added columns to; later ones join with joinChain in their own. */
export const FIRST_CHAINED_TABLES = ['messages', 'decisions', 'exchanges', 'trust_decisions'] as const;

export const CHAIN_COLUMNS = ['chain_n', 'prev_hash', 'row_hash'] as const;
export type Stamp = [n: number | null, prev: string | null, hash: string | null];
export const NO_STAMP: Stamp = [null, null, null];

/** The columns a chained table gets (its migration runs this). */
export function chainColumnsSql(table: string): string {
  return `ALTER TABLE ${table} ADD COLUMN chain_n INTEGER; ALTER TABLE ${table} ADD COLUMN prev_hash TEXT; ALTER TABLE ${table} ADD COLUMN row_hash TEXT;`;
}

export const CHAIN_TABLES_SQL = `
CREATE TABLE audit_chains (
  chain    TEXT PRIMARY KEY,
  n        INTEGER NOT NULL,
  head     TEXT NOT NULL,
  signed_n INTEGER NOT NULL DEFAULT 0
);
-- kind: rows (every N rows), end (the session ended), pruned (body: the positions removed).
CREATE TABLE audit_checkpoints (
  id        INTEGER PRIMARY KEY,
  chain     TEXT NOT NULL,
  n         INTEGER NOT NULL,
  head      TEXT NOT NULL,
  ts        REAL NOT NULL,
  kind      TEXT NOT NULL,
  body      TEXT,
  key_id    TEXT,
  signature TEXT
);
CREATE INDEX audit_checkpoints_chain ON audit_checkpoints (chain, n);
-- Rows stored before the chain existed: seq at most this, per table, are legacy (unchained).
CREATE TABLE audit_chain_legacy (tbl TEXT PRIMARY KEY, max_seq INTEGER NOT NULL);
`;

/** The migration that adds the chain: its tables, columns on the first chained tables, and their legacy marks. */
export function chainMigration(db: Database.Database, tables: readonly string[] = FIRST_CHAINED_TABLES): void {
  db.exec(CHAIN_TABLES_SQL);
  for (const t of tables) joinChain(db, t);
}

/** A table joins the chain (in its migration): the chain columns, and its rows so far marked legacy. */
export function joinChain(db: Database.Database, table: string): void {
  db.exec(chainColumnsSql(table));
  db.prepare(`INSERT INTO audit_chain_legacy (tbl, max_seq) SELECT ?, coalesce(max(seq), 0) FROM ${table}`).run(table);
}

/** sha256(prev, table, n, content) as hex; `values` as SQLite returns them (numbers, strings, null). */
export function rowHash(prev: string, table: string, n: number, values: readonly unknown[]): string {
  return createHash('sha256').update(prev).update('\n').update(JSON.stringify([table, n, ...values])).digest('hex');
}

export interface CheckpointBody {
  chain: string;
  n: number;
  head: string;
  ts: number;
  kind: 'rows' | 'end' | 'pruned';
  body: string | null;
}

/** The exact bytes a checkpoint's signature covers. */
export function checkpointPayload(c: CheckpointBody): string {
  return JSON.stringify({ v: 1, chain: c.chain, n: c.n, head: c.head, ts: c.ts, kind: c.kind, body: c.body });
}

export const DEFAULT_CHECKPOINT_EVERY = 1_000;

interface Head {
  n: number;
  head: string;
  signedN: number;
  dirty: boolean;
  end: boolean;
}

/**
 * The chains as one writer's transaction sees them. begin() at the start of a transaction,
 * stamp() per row, commit() before the transaction commits; a rolled-back transaction just
 * begins again (the heads are re-read from audit_chains, which rolled back with it).
 */
export class Chainer {
  private heads = new Map<string, Head>();
  private readonly getHead;
  private readonly putHead;
  private readonly putCheckpoint;

  constructor(
    private readonly db: Database.Database,
    private readonly signer: AuditSigner | undefined,
    private readonly every: number = DEFAULT_CHECKPOINT_EVERY,
  ) {
    this.getHead = db.prepare<[string], { n: number; head: string; signed_n: number }>('SELECT n, head, signed_n FROM audit_chains WHERE chain = ?');
    this.putHead = db.prepare(
      'INSERT INTO audit_chains (chain, n, head, signed_n) VALUES (?, ?, ?, ?) ON CONFLICT (chain) DO UPDATE SET n = excluded.n, head = excluded.head, signed_n = excluded.signed_n',
    );
    this.putCheckpoint = db.prepare('INSERT INTO audit_checkpoints (chain, n, head, ts, kind, body, key_id, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  }

  begin(): void {
    this.heads.clear();
  }

  private head(chain: string): Head {
    let h = this.heads.get(chain);
    if (!h) {
      const row = this.getHead.get(chain);
      h = { n: row?.n ?? 0, head: row?.head ?? '', signedN: row?.signed_n ?? 0, dirty: false, end: false };
      this.heads.set(chain, h);
    }
    return h;
  }

  /**
   * Stamps one row and writes it with `write(stamp)`; the chain advances only when `write`
   * returns true (a row that failed, or an upsert that changed nothing, leaves no hole).
   */
  stamp(table: string, chain: string, values: readonly unknown[], write: (stamp: Stamp) => boolean): void {
    const h = this.head(chain);
    const n = h.n + 1;
    const hash = rowHash(h.head, table, n, values);
    if (!write([n, h.head, hash])) return;
    h.n = n;
    h.head = hash;
    h.dirty = true;
  }

  /** The session ended: its chain gets an `end` checkpoint at this transaction's commit. */
  ended(chain: string): void {
    this.head(chain).end = true;
  }

  commit(now: number = Date.now()): void {
    for (const [chain, h] of this.heads) {
      const due = h.n > h.signedN && (h.end || h.n - h.signedN >= this.every);
      if (due && this.signer) {
        this.checkpoint({ chain, n: h.n, head: h.head, ts: now, kind: h.end ? 'end' : 'rows', body: null });
        h.signedN = h.n;
        h.dirty = true;
      }
      if (h.dirty) this.putHead.run(chain, h.n, h.head, h.signedN);
    }
    this.heads.clear();
  }

  checkpoint(c: CheckpointBody): void {
    const sig = this.signer ? this.signer.sign(checkpointPayload(c)) : null;
    this.putCheckpoint.run(c.chain, c.n, c.head, c.ts, c.kind, c.body, this.signer?.keyId ?? null, sig);
  }
}

/**
 * What a prune removes from the chains, noted before each DELETE and written as one signed
 * `pruned` checkpoint per chain: the ranges of positions [from, to] and the row_hash at `to`,
 * which the next kept row's prev_hash must still match.
 */
export class PruneSummary {
  private readonly removed = new Map<string, Map<number, string>>();

  constructor(private readonly db: Database.Database) {}

  /** Call with the DELETE's own WHERE clause (on `table`) and parameters, before it runs. */
  note(table: string, where: string, params: readonly unknown[] = []): void {
    const t = CHAINED_TABLES.find((c) => c.table === table);
    if (!t) return;
    const rows = this.db
      .prepare(`SELECT ${t.chain} AS chain, chain_n AS n, row_hash AS hash FROM ${table} WHERE (${where}) AND chain_n IS NOT NULL`)
      .all(...params) as Array<{ chain: string; n: number; hash: string }>;
    for (const r of rows) {
      let m = this.removed.get(r.chain);
      if (!m) this.removed.set(r.chain, (m = new Map()));
      m.set(r.n, r.hash);
    }
  }

  /** Writes the summaries (inside the prune's transaction). */
  commit(chainer: Chainer, now: number = Date.now()): number {
    let written = 0;
    for (const [chain, m] of this.removed) {
      const ns = [...m.keys()].sort((a, b) => a - b);
      const ranges: Array<[number, number, string]> = [];
      for (const n of ns) {
        const last = ranges[ranges.length - 1];
        if (last && last[1] === n - 1) {
          last[1] = n;
          last[2] = m.get(n)!;
        } else ranges.push([n, n, m.get(n)!]);
      }
      const top = ranges[ranges.length - 1]!;
      chainer.checkpoint({ chain, n: top[1], head: top[2], ts: now, kind: 'pruned', body: JSON.stringify(ranges) });
      written++;
    }
    this.removed.clear();
    return written;
  }
}
