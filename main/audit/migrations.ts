// Numbered schema migrations, tracked with PRAGMA user_version. A migration is only ever
// appended, never edited once released: a user's database may be at any earlier version.
import type Database from 'better-sqlite3';
import { JOURNAL_TABLE_SQL } from './journal';
import { TRUST_DECISIONS_SQL } from '../trust/audit-trust';
import { chainMigration, joinChain } from './chain';

export interface Migration {
  /** 1, 2, 3, … in order, without gaps. */
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/** Thrown when the file was written by a newer Gatehouse; we refuse rather than guess. */
export class AuditSchemaTooNewError extends Error {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `audit database ${file} has schema version ${found}, newer than this Gatehouse understands ` +
        `(up to ${supported}); use a newer Gatehouse or another data directory (GATEHOUSE_DATA_DIR or --data-dir)`,
    );
    this.name = 'AuditSchemaTooNewError';
  }
}

// Timestamps are epoch milliseconds as REAL: the tap records fractions (performance.now),
// and the fraction keeps events within one millisecond in order when printed.
const V1 = `
CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('launch', 'gateway', 'serve')),
  profile      TEXT,
  profile_file TEXT,
  workspace    TEXT,
  host_pid     INTEGER,
  started_at   REAL NOT NULL,
  ended_at     REAL,
  end_reason   TEXT
);
CREATE INDEX sessions_started ON sessions (started_at);
CREATE INDEX sessions_profile ON sessions (profile, started_at);

CREATE TABLE agent_sessions (
  id             TEXT PRIMARY KEY,
  session        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  client_name    TEXT,
  client_version TEXT,
  transport      TEXT,
  started_at     REAL NOT NULL,
  ended_at       REAL,
  end_reason     TEXT
);
CREATE INDEX agent_sessions_session ON agent_sessions (session);

CREATE TABLE server_runs (
  session    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  server     TEXT NOT NULL,
  run        INTEGER NOT NULL,
  pid        INTEGER,
  command    TEXT,
  cwd        TEXT,
  started_at REAL NOT NULL,
  ended_at   REAL,
  exit_code  INTEGER,
  signal     TEXT,
  end_reason TEXT,
  PRIMARY KEY (session, server, run)
);

CREATE TABLE server_states (
  id      INTEGER PRIMARY KEY,
  session TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  server  TEXT NOT NULL,
  run     INTEGER,
  ts      REAL NOT NULL,
  state   TEXT NOT NULL,
  reason  TEXT
);
CREATE INDEX server_states_run ON server_states (session, server, run, id);
CREATE INDEX server_states_ts ON server_states (ts);

-- The high-volume tables carry no foreign key: a traffic row must never be lost (or slow
-- the batch) because its session row is late or was pruned. AUTOINCREMENT so a seq is
-- never reused after a prune: it is the cursor 'tail --follow' and paging rely on.
CREATE TABLE messages (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  tap_seq       INTEGER,
  ts            REAL NOT NULL,
  session       TEXT NOT NULL,
  agent_session TEXT,
  server        TEXT,
  direction     TEXT NOT NULL,
  kind          TEXT NOT NULL,
  method        TEXT,
  rpc_id        TEXT,
  bytes         INTEGER NOT NULL,
  message       TEXT,
  fault         TEXT,
  exchange      TEXT,
  decision      TEXT,
  tool          TEXT,
  latency_ms    REAL
);
CREATE INDEX messages_session ON messages (session, seq);
CREATE INDEX messages_session_server ON messages (session, server, seq);
CREATE INDEX messages_ts ON messages (ts);
CREATE INDEX messages_exchange ON messages (exchange) WHERE exchange IS NOT NULL;

CREATE TABLE stderr_lines (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  tap_seq INTEGER,
  ts      REAL NOT NULL,
  session TEXT NOT NULL,
  server  TEXT NOT NULL,
  run     INTEGER NOT NULL,
  line    TEXT NOT NULL
);
CREATE INDEX stderr_session_server ON stderr_lines (session, server, seq);
CREATE INDEX stderr_ts ON stderr_lines (ts);

CREATE TABLE decisions (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  ts            REAL NOT NULL,
  session       TEXT NOT NULL,
  agent_session TEXT,
  exchange      TEXT,
  tool          TEXT NOT NULL,
  server        TEXT,
  decision      TEXT NOT NULL CHECK (decision IN ('ALLOW', 'APPROVAL', 'DENY')),
  outcome       TEXT NOT NULL,
  reason        TEXT,
  rule          TEXT,
  fingerprint   TEXT,
  answered_by   TEXT,
  scope         TEXT,
  waited_ms     REAL,
  args          TEXT
);
CREATE INDEX decisions_session ON decisions (session, seq);
CREATE INDEX decisions_ts ON decisions (ts);
CREATE INDEX decisions_tool ON decisions (tool, seq);
CREATE INDEX decisions_exchange ON decisions (exchange) WHERE exchange IS NOT NULL;

-- Rows the writer had to drop because its queue was full: the audit trail says where it
-- has holes instead of pretending to be complete.
CREATE TABLE audit_gaps (
  id       INTEGER PRIMARY KEY,
  ts       REAL NOT NULL,
  session  TEXT NOT NULL,
  stream   TEXT NOT NULL,
  dropped  INTEGER NOT NULL,
  first_ts REAL,
  last_ts  REAL
);
CREATE INDEX audit_gaps_session ON audit_gaps (session);
`;

const V3_EXCHANGES = `
CREATE TABLE exchanges (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  id             TEXT NOT NULL,
  ts             REAL NOT NULL,
  session        TEXT NOT NULL,
  agent_session  TEXT,
  kind           TEXT NOT NULL,
  method         TEXT NOT NULL,
  server         TEXT,
  tool           TEXT,
  advertised     TEXT,
  parent         TEXT,
  downstream_id  TEXT,
  upstream_id    TEXT,
  decision       TEXT,
  decided_by     TEXT,
  rule           TEXT,
  answered_by    TEXT,
  reason         TEXT,
  outcome        TEXT NOT NULL,
  error          TEXT,
  decided_at     REAL,
  sent_at        REAL,
  answered_at    REAL,
  latency_ms     REAL,
  request_bytes  INTEGER,
  response_bytes INTEGER,
  UNIQUE (session, id)
);
CREATE INDEX exchanges_session ON exchanges (session, seq);
CREATE INDEX exchanges_ts ON exchanges (ts);
CREATE INDEX exchanges_outcome ON exchanges (outcome, seq);
`;

const DATA_FINDINGS_SQL = `
CREATE TABLE data_findings (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  ts         REAL NOT NULL,
  session    TEXT NOT NULL,
  exchange   TEXT NOT NULL,
  tool       TEXT,
  direction  TEXT NOT NULL,
  kind       TEXT NOT NULL,
  rule       TEXT NOT NULL,
  detail     TEXT,
  path       TEXT NOT NULL,
  start      INTEGER NOT NULL,
  "end"      INTEGER NOT NULL,
  UNIQUE (session, exchange, direction, path, start, rule)
);
CREATE INDEX data_findings_exchange ON data_findings (session, exchange);
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', up: (db) => db.exec(V1) },
  // Agents started in a Gatehouse terminal connect with a per-terminal token: keep which one.
  { version: 2, name: 'agent session terminal', up: (db) => db.exec('ALTER TABLE agent_sessions ADD COLUMN terminal TEXT') },
  // One row per call (main/gateway/exchanges.ts): written when it arrives (outcome 'pending')
  // and again when it ends, so a call that never reached a server is on record too. Message
  // rows reference it through messages.exchange.
  { version: 3, name: 'exchanges', up: (db) => db.exec(V3_EXCHANGES) },
  // Launch consent and tool pinning decisions (main/trust/, docs/trust.md).
  { version: 4, name: 'trust decisions', up: (db) => db.exec(TRUST_DECISIONS_SQL) },
  // The threaded writer's crash journal (journal.ts): the last chunk of each host run on disk.
  { version: 5, name: 'audit journal', up: (db) => db.exec(JOURNAL_TABLE_SQL) },
  // MCP 2026-07-28 (docs/gateway.md "Two eras downstream"): the protocol version a call's agent spoke, and the input_required rounds of a held call.
  { version: 6, name: 'exchange era', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN agent_era TEXT; ALTER TABLE exchanges ADD COLUMN round INTEGER') },
  // The tamper-evident audit (chain.ts, docs/audit.md "Tamper-evident audit"): chain columns, heads, signed checkpoints.
  { version: 7, name: 'audit chain', up: (db) => chainMigration(db) },
  // Agents with names (docs/agents.md "Agents with names"): the calling agent's name and version on each call.
  { version: 8, name: 'exchange agent name', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN agent_name TEXT; ALTER TABLE exchanges ADD COLUMN agent_version TEXT') },
  // What the data scanner found in a call's arguments and result (main/data/, docs/data.md):
  // kind, rule and position, never the value. An exchange row is written more than once (opened,
  // closed): the unique key keeps one row per finding.
  { version: 9, name: 'data findings', up: (db) => db.exec(DATA_FINDINGS_SQL) },
  // Data findings join the tamper-evident audit (chain.ts CHAINED_TABLES); findings stored before are legacy.
  { version: 10, name: 'chained data findings', up: (db) => joinChain(db, 'data_findings') },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Brings `db` up to the last migration of `migrations`, each step in its own transaction
 * (a failed step leaves the database at the previous version, never half-way).
 * Returns the versions applied.
 */
export function migrate(db: Database.Database, file: string, migrations: readonly Migration[] = MIGRATIONS): number[] {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`audit migrations: expected version ${i + 1} at index ${i}, found ${m.version}`);
  });
  const target = migrations.length;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > target) throw new AuditSchemaTooNewError(file, current, target);
  const applied: number[] = [];
  for (const m of migrations.slice(current)) {
    // IMMEDIATE takes the write lock up front, so two processes opening a fresh file at
    // once serialize here (busy_timeout) instead of one failing half-way with SQLITE_BUSY.
    db.transaction(() => {
      // Another process may have migrated while we waited for the lock.
      const now = db.pragma('user_version', { simple: true }) as number;
      if (now >= m.version) return;
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
      applied.push(m.version);
    }).immediate();
  }
  return applied;
}
