// Read side of the audit store. Every query is keyset-paged on `seq` (never OFFSET), so a
// page costs the same at the end of a million rows as at the start, and `tail --follow`
// is just "rows after the last seq I printed".
import type { Writable } from 'node:stream';
import type Database from 'better-sqlite3';
import type {
  AgentSessionRow,
  AuditStream,
  BaseFilter,
  CallFilter,
  CallGroup,
  CallRow,
  DecisionFilter,
  DecisionRow,
  GapRow,
  MessageFilter,
  MessageRow,
  ServerRunRow,
  ServerStateRow,
  SessionDetail,
  SessionRow,
  StderrFilter,
  StderrRow,
  TimeBound,
} from './types';

export const DEFAULT_LIMIT = 200;
export const MAX_LIMIT = 10_000;
const EXPORT_PAGE = 1_000;

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Epoch ms from a time bound: a number, a numeric string (epoch ms), a duration back from
 * `now` (`90s`, `15m`, `2h`, `7d`), or anything Date.parse reads (ISO 8601).
 */
export function parseTimeBound(v: TimeBound, now: number = Date.now()): number {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`expected a time, got ${v}`);
    return v;
  }
  const t = v.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const d = DURATION.exec(t);
  if (d) return now - Number(d[1]) * (UNIT_MS[d[2] as string] ?? 0);
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    throw new RangeError(`expected epoch ms, an ISO 8601 time or a duration like 15m, 2h, 7d; got '${v}'`);
  }
  return ms;
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.max(1, Math.min(MAX_LIMIT, Math.floor(limit)));
}

const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
// Only `*` is a wildcard for users; SQLite GLOB's `?` and `[` are taken literally.
const globPattern = (text: string): string => text.replace(/[[?]/g, (c) => `[${c}]`);

type Row = Record<string, unknown>;

/** SQL snake_case row → camelCase object without NULLs. */
function camel(row: Row, rename: Record<string, string> = {}): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (v === null || v === undefined) continue;
    const key = rename[k] ?? k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    out[key] = v;
  }
  return out;
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

class Where {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];

  add(clause: string, ...params: unknown[]): void {
    this.clauses.push(clause);
    this.params.push(...params);
  }

  eqOrGlob(column: string, value: string | undefined): void {
    if (value === undefined) return;
    if (value.includes('*')) this.add(`${column} GLOB ?`, globPattern(value));
    else this.add(`${column} = ?`, value);
  }

  base(f: BaseFilter, now: number): void {
    if (f.session !== undefined) this.add('session = ?', f.session);
    if (f.server !== undefined) this.add('server = ?', f.server);
    if (f.since !== undefined) this.add('ts >= ?', parseTimeBound(f.since, now));
    if (f.until !== undefined) this.add('ts < ?', parseTimeBound(f.until, now));
    if (f.afterSeq !== undefined) this.add('seq > ?', f.afterSeq);
    if (f.beforeSeq !== undefined) this.add('seq < ?', f.beforeSeq);
  }

  text(columns: string[], text: string | undefined): void {
    if (text === undefined || text === '') return;
    const p = likePattern(text);
    this.add(`(${columns.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`, ...columns.map(() => p));
  }

  sql(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }
}

/**
 * The outcome groups of the Audit view's filter. A denial is one outcome whoever made it (a
 * rule, a person, the approval timeout, no approver): `denied` finds them all, `timeout_denied`
 * only the timeout's; `error` is every call that failed without a decision against it.
 */
const CALL_GROUPS: Record<CallGroup, string> = {
  allowed: `decision = 'ALLOW'`,
  approved: `decision = 'APPROVAL' AND decided_by = 'person' AND outcome NOT IN ('denied', 'pending', 'cancelled')`,
  denied: `outcome = 'denied'`,
  timeout_denied: `outcome = 'denied' AND decided_by = 'timeout'`,
  error: `outcome IN ('error', 'unavailable', 'timeout', 'aborted')`,
  ok: `outcome = 'ok'`,
  pending: `outcome = 'pending'`,
  cancelled: `outcome = 'cancelled'`,
};

function callWhere(f: CallFilter, now: number): Where {
  const where = new Where();
  where.base(f, now);
  where.eqOrGlob('tool', f.tool);
  if (f.outcome !== undefined) where.add('outcome = ?', f.outcome);
  if (f.decision !== undefined) where.add('decision = ?', f.decision);
  if (f.decidedBy !== undefined) where.add('decided_by = ?', f.decidedBy);
  if (f.kind !== undefined) where.add('kind = ?', f.kind);
  if (f.group !== undefined) where.add(`(${CALL_GROUPS[f.group]})`);
  where.text(['id', 'tool', 'advertised', 'method', 'reason', 'error', 'answered_by'], f.text);
  return where;
}

const SESSION_COLUMNS = `s.*,
  (SELECT count(*) FROM messages m WHERE m.session = s.id) AS messages,
  (SELECT count(*) FROM stderr_lines l WHERE l.session = s.id) AS stderr_lines,
  (SELECT count(*) FROM decisions d WHERE d.session = s.id) AS decisions,
  (SELECT coalesce(sum(g.dropped), 0) FROM audit_gaps g WHERE g.session = s.id AND g.stream = 'messages') AS dropped`;

export class AuditQueries {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  listSessions(opts: { limit?: number; profile?: string } = {}): SessionRow[] {
    const where = new Where();
    if (opts.profile !== undefined) where.add('s.profile = ?', opts.profile);
    const sql = `SELECT ${SESSION_COLUMNS} FROM sessions s ${where.sql()} ORDER BY s.started_at DESC, s.rowid DESC LIMIT ?`;
    return this.all(sql, [...where.params, clampLimit(opts.limit ?? 20)]).map((r) => camel(r) as unknown as SessionRow);
  }

  getSession(id: string): SessionDetail | undefined {
    const row = this.stmt(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`).get(id) as Row | undefined;
    if (!row) return undefined;
    const agents = this.all(`SELECT * FROM agent_sessions WHERE session = ? ORDER BY started_at, rowid`, [id]);
    return { ...(camel(row) as unknown as SessionRow), agentSessions: agents.map((a) => camel(a) as unknown as AgentSessionRow) };
  }

  /**
   * `latest`, an exact id, or an unambiguous id prefix (as git takes a short hash).
   * Returns the id, or an error that says what was found.
   */
  resolveSession(ref: string): { id: string } | { error: string } {
    if (ref === 'latest') {
      const row = this.stmt(`SELECT id FROM sessions ORDER BY started_at DESC, rowid DESC LIMIT 1`).get() as Row | undefined;
      return row ? { id: String(row.id) } : { error: 'no sessions recorded yet' };
    }
    if (this.stmt(`SELECT 1 FROM sessions WHERE id = ?`).get(ref)) return { id: ref };
    const rows = this.all(`SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 6`, [
      `${ref.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    ]);
    if (rows.length === 1) return { id: String(rows[0]?.id) };
    if (rows.length === 0) return { error: `no such session '${ref}'` };
    return { error: `session '${ref}' is ambiguous: ${rows.map((r) => String(r.id)).join(', ')}${rows.length > 5 ? ', …' : ''}` };
  }

  serverRuns(session: string): ServerRunRow[] {
    const runs = this.all(`SELECT * FROM server_runs WHERE session = ? ORDER BY server, run`, [session]);
    const states = this.all(`SELECT server, run, ts, state, reason FROM server_states WHERE session = ? ORDER BY id`, [session]);
    const byRun = new Map<string, ServerStateRow[]>();
    for (const st of states) {
      const key = `${String(st.server)}\u0000${String(st.run ?? '')}`;
      const list = byRun.get(key) ?? [];
      list.push(camel({ ts: st.ts, state: st.state, reason: st.reason }) as unknown as ServerStateRow);
      byRun.set(key, list);
    }
    return runs.map((r) => ({
      ...(camel(r) as unknown as Omit<ServerRunRow, 'states'>),
      states: byRun.get(`${String(r.server)}\u0000${String(r.run)}`) ?? [],
    }));
  }

  queryMessages(f: MessageFilter = {}, now: number = Date.now()): MessageRow[] {
    const where = new Where();
    where.base(f, now);
    where.eqOrGlob('method', f.method);
    if (f.direction !== undefined) where.add('direction = ?', f.direction);
    if (f.kind !== undefined) where.add('kind = ?', f.kind);
    if (f.exchange !== undefined) where.add('exchange = ?', f.exchange);
    if (f.tool !== undefined) where.add('tool = ?', f.tool);
    where.text(['method', 'message', 'fault'], f.text);
    return this.page('messages', where, f).map(toMessage);
  }

  queryStderr(f: StderrFilter = {}, now: number = Date.now()): StderrRow[] {
    const where = new Where();
    where.base(f, now);
    if (f.run !== undefined) where.add('run = ?', f.run);
    where.text(['line'], f.text);
    return this.page('stderr_lines', where, f, 'seq, ts, session, server, run, line').map((r) => camel(r) as unknown as StderrRow);
  }

  queryDecisions(f: DecisionFilter = {}, now: number = Date.now()): DecisionRow[] {
    const where = new Where();
    where.base(f, now);
    where.eqOrGlob('tool', f.tool);
    if (f.decision !== undefined) where.add('decision = ?', f.decision);
    if (f.exchange !== undefined) where.add('exchange = ?', f.exchange);
    where.text(['tool', 'reason', 'outcome', 'args'], f.text);
    return this.page('decisions', where, f).map(toDecision);
  }

  /** Calls (exchanges), one row each, with decision, who decided, outcome and latency. */
  queryCalls(f: CallFilter = {}, now: number = Date.now()): CallRow[] {
    return this.page('exchanges', callWhere(f, now), f).map((r) => camel(r) as unknown as CallRow);
  }

  /** How many calls match `f` (its limit and cursors aside): the "of N" beside a page of them. */
  countCalls(f: CallFilter = {}, now: number = Date.now()): number {
    const { limit: _l, afterSeq: _a, beforeSeq: _b, ...rest } = f;
    const where = callWhere(rest, now);
    const row = this.stmt(`SELECT count(*) AS n FROM exchanges ${where.sql()}`).get(...where.params) as { n: number };
    return row.n;
  }

  /** Where the writer had to drop rows (queue full), oldest first. */
  queryGaps(session?: string): GapRow[] {
    const where = new Where();
    if (session !== undefined) where.add('session = ?', session);
    return this.all(`SELECT ts, session, stream, dropped, first_ts, last_ts FROM audit_gaps ${where.sql()} ORDER BY id`, where.params).map(
      (r) => camel(r) as unknown as GapRow,
    );
  }

  /**
   * Streams matching rows as JSON Lines, oldest first, a page at a time, waiting for
   * `drain` when `out` pushes back. Pages rather than one open cursor: an iterator held
   * across an await would leave the connection busy for the writer's flush. `limit` caps
   * the total (default: everything); `latest` is ignored. Resolves with the row count.
   */
  async exportJsonl(
    f: MessageFilter & StderrFilter & DecisionFilter & CallFilter,
    out: Writable,
    stream: AuditStream = 'messages',
    pageSize: number = EXPORT_PAGE,
  ): Promise<number> {
    const now = Date.now(); // one `now` for every page, so `--since 1h` does not slide
    const cap = f.limit === undefined ? Infinity : Math.max(0, Math.floor(f.limit));
    let cursor = f.afterSeq;
    let written = 0;
    let failed: Error | undefined;
    const onError = (err: Error): void => {
      failed = err;
    };
    out.on('error', onError);
    try {
      while (written < cap) {
        const page = { ...f, afterSeq: cursor, latest: false, limit: Math.min(pageSize, cap - written) };
        const rows: { seq: number }[] =
          stream === 'stderr'
            ? this.queryStderr(page, now)
            : stream === 'decisions'
              ? this.queryDecisions(page, now)
              : stream === 'calls'
                ? this.queryCalls(page, now)
                : this.queryMessages(page, now);
        if (rows.length === 0) break;
        let chunk = '';
        for (const r of rows) chunk += `${JSON.stringify(r)}\n`;
        written += rows.length;
        cursor = rows[rows.length - 1]?.seq;
        if (failed) throw failed;
        if (!out.write(chunk)) await drained(out);
        if (failed) throw failed;
        if (rows.length < page.limit) break;
      }
    } finally {
      out.off('error', onError);
    }
    return written;
  }

  // ------------------------------------------------------------ helpers

  private page(table: string, where: Where, f: BaseFilter, columns = '*'): Row[] {
    const limit = clampLimit(f.limit);
    const order = f.latest ? 'DESC' : 'ASC';
    const rows = this.all(`SELECT ${columns} FROM ${table} ${where.sql()} ORDER BY seq ${order} LIMIT ?`, [...where.params, limit]);
    return f.latest ? rows.reverse() : rows;
  }

  private all(sql: string, params: unknown[]): Row[] {
    return this.stmt(sql).all(...params) as Row[];
  }

  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      // Filters combine into a bounded set of SQL shapes, so the cache stays small.
      this.statements.set(sql, st);
    }
    return st;
  }
}

/** Resolves on `drain`, or when the stream closes or fails (the caller checks), leaving no listener behind. */
function drained(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

function toMessage(r: Row): MessageRow {
  const { message, ...rest } = r;
  const row = camel(rest, { rpc_id: 'id' }) as unknown as MessageRow;
  const parsed = parseJson(message);
  if (parsed !== undefined) row.message = parsed;
  return row;
}

function toDecision(r: Row): DecisionRow {
  const { args, ...rest } = r;
  const row = camel(rest) as unknown as DecisionRow;
  const parsed = parseJson(args);
  if (parsed !== undefined) row.args = parsed;
  return row;
}
