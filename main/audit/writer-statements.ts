// The audit writer's prepared statements (writer.ts), one per row kind. Chained tables
// (chain.ts CHAINED_TABLES) take their content columns in the chain's order, then the stamp
// (chain_n, prev_hash, row_hash).
import type Database from 'better-sqlite3';

export function prepareStatements(db: Database.Database) {
  return {
    session: db.prepare(
      `INSERT INTO sessions (id, kind, profile, profile_file, workspace, host_pid, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    sessionEnd: db.prepare(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?`),
    // A session that ends takes its open runs and agent sessions with it: a crashed
    // supervisor may never report their end, and "still running" would be a lie.
    sessionEndRuns: db.prepare(
      `UPDATE server_runs SET ended_at = ?, end_reason = coalesce(end_reason, 'session ended') WHERE session = ? AND ended_at IS NULL`,
    ),
    sessionEndAgents: db.prepare(
      `UPDATE agent_sessions SET ended_at = ?, end_reason = coalesce(end_reason, 'session ended') WHERE session = ? AND ended_at IS NULL`,
    ),
    agent: db.prepare(
      `INSERT INTO agent_sessions (id, session, client_name, client_version, transport, started_at, terminal) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    agentEnd: db.prepare(`UPDATE agent_sessions SET ended_at = ?, end_reason = ? WHERE id = ?`),
    runStart: db.prepare(
      `INSERT INTO server_runs (session, server, run, pid, command, cwd, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session, server, run) DO UPDATE SET pid = excluded.pid, command = excluded.command,
         cwd = excluded.cwd, started_at = excluded.started_at`,
    ),
    runEnd: db.prepare(
      `UPDATE server_runs SET ended_at = ?, exit_code = ?, signal = ?, end_reason = ? WHERE session = ? AND server = ? AND run = ?`,
    ),
    state: db.prepare(`INSERT INTO server_states (session, server, run, ts, state, reason) VALUES (?, ?, ?, ?, ?, ?)`),
    decision: db.prepare(
      `INSERT INTO decisions (ts, session, agent_session, exchange, tool, server, decision, outcome, reason, rule,
         fingerprint, answered_by, scope, waited_ms, args, chain_n, prev_hash, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    message: db.prepare(
      `INSERT INTO messages (tap_seq, ts, session, agent_session, server, direction, kind, method, rpc_id, bytes,
         message, fault, exchange, decision, tool, latency_ms, chain_n, prev_hash, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    exchange: db.prepare(
      `INSERT INTO exchanges (id, ts, session, agent_session, kind, method, server, tool, advertised, parent, downstream_id,
         upstream_id, decision, decided_by, rule, answered_by, reason, outcome, error, decided_at, sent_at, answered_at,
         latency_ms, request_bytes, response_bytes, agent_era, round, agent_name, agent_version, chain_n, prev_hash, row_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session, id) DO UPDATE SET ts = excluded.ts, kind = excluded.kind, method = excluded.method,
         parent = excluded.parent, downstream_id = excluded.downstream_id, agent_session = excluded.agent_session, server = excluded.server,
         tool = excluded.tool, advertised = excluded.advertised, upstream_id = excluded.upstream_id,
         decision = excluded.decision, decided_by = excluded.decided_by, rule = excluded.rule,
         answered_by = excluded.answered_by, reason = excluded.reason, outcome = excluded.outcome, error = excluded.error,
         decided_at = excluded.decided_at, sent_at = excluded.sent_at, answered_at = excluded.answered_at,
         latency_ms = excluded.latency_ms, request_bytes = excluded.request_bytes, response_bytes = excluded.response_bytes,
         agent_era = excluded.agent_era, round = excluded.round, agent_name = excluded.agent_name, agent_version = excluded.agent_version,
         chain_n = excluded.chain_n, prev_hash = excluded.prev_hash, row_hash = excluded.row_hash
       WHERE exchanges.row_hash IS NULL`,
    ),
    finding: db.prepare(
      `INSERT OR IGNORE INTO data_findings (ts, session, exchange, tool, direction, kind, rule, detail, path, start, "end",
         chain_n, prev_hash, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    stderr: db.prepare(`INSERT INTO stderr_lines (tap_seq, ts, session, server, run, line) VALUES (?, ?, ?, ?, ?, ?)`),
    gap: db.prepare(`INSERT INTO audit_gaps (ts, session, stream, dropped, first_ts, last_ts) VALUES (?, ?, ?, ?, ?, ?)`),
  };
}
