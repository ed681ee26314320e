// The audit store's public shapes: what the writer accepts, what queries return, and
// the filters they take. Rows come back camelCased with SQL NULLs omitted, so a row
// serializes to the same JSON whether it came from a query or an export.
import type { z } from 'zod';
import type { ExchangeSchema, Verdict } from '../../common/host-api-shapes';
import type { TrafficDirection, TrafficKind } from '../protocol/types';

export type SessionKind = 'launch' | 'gateway' | 'serve';
/** The verdict (common/host-api-shapes.ts's DecisionSchema). */
export type PolicyDecision = Verdict;
/**
 * What finally happened to a governed call. The known values are listed so editors
 * complete them; the approvals broker may add more (a string is stored as-is).
 */
export type DecisionOutcome = 'allowed' | 'denied' | 'timeout' | 'no_approver' | 'error' | 'cancelled' | (string & {});

// ---------------------------------------------------------------- writer input

export interface SessionStart {
  id: string;
  kind: SessionKind;
  profile?: string;
  profileFile?: string;
  workspace?: string;
  hostPid?: number;
  /** Epoch ms; defaults to the moment the call was made (not when it is flushed). */
  startedAt?: number;
}

export interface Ending {
  endedAt?: number;
  reason?: string;
}

export interface AgentSessionStart {
  id: string;
  session: string;
  clientName?: string;
  clientVersion?: string;
  /** `stdio`, `streamable-http`, `sse`, … */
  transport?: string;
  /** The Gatehouse terminal whose agent opened the session. */
  terminal?: string;
  startedAt?: number;
}

export interface ServerRunStart {
  session: string;
  server: string;
  /** 1 for the first start, +1 on each restart (matches StderrLine.run). */
  run: number;
  pid?: number;
  /** Already redacted by the caller: the store never sees a secret in clear. */
  command?: string;
  cwd?: string;
  startedAt?: number;
}

export interface ServerRunEnd {
  session: string;
  server: string;
  run: number;
  endedAt?: number;
  exitCode?: number | null;
  signal?: string | null;
  reason?: string;
}

export interface ServerStateChange {
  session: string;
  server: string;
  run?: number;
  ts?: number;
  /** starting | ready | restarting | failed | stopped (the supervisor's states). */
  state: string;
  reason?: string;
}

/** One call as the audit store keeps it (an Exchange of main/gateway/exchanges.ts, flattened). */
/**
 * One exchange as a flat row (main/gateway/exchanges.ts exchangeRecord): the host API's shape,
 * common/host-api-shapes.ts ExchangeSchema. `ts` is arrival; `outcome` is `pending` until it ends.
 */
export type ExchangeRecord = z.infer<typeof ExchangeSchema>;

export interface CallRow extends ExchangeRecord {
  seq: number;
}

export interface CallFilter extends BaseFilter {
  /** Exact canonical tool name, or a glob with `*`. */
  tool?: string;
  outcome?: string;
  decision?: PolicyDecision;
  decidedBy?: string;
  kind?: string;
  /** A named group of outcomes (CALL_GROUPS in queries.ts): `denied` includes the timeout's denial. */
  group?: CallGroup;
}

/** The Audit view's outcome filter; the same names as common/host-api-views.ts CallGroupSchema. */
export type CallGroup = 'allowed' | 'approved' | 'denied' | 'timeout_denied' | 'error' | 'ok' | 'pending' | 'cancelled';

export interface DecisionRecord {
  ts?: number;
  session: string;
  agentSession?: string;
  /** Correlates with messages.exchange. */
  exchange?: string;
  /** Canonical tool name (`files.read_file`); policy and audit speak canonical names only. */
  tool: string;
  server?: string;
  decision: PolicyDecision;
  outcome: DecisionOutcome;
  reason?: string;
  /** The rule that matched (its index or glob), for "why was this allowed". */
  rule?: string;
  /** SHA-256 of canonical tool name + canonical JSON args (docs/gateway.md "Governance"). */
  fingerprint?: string;
  /** `policy`, `user`, `remembered`, `tty`, `timeout`, … */
  answeredBy?: string;
  /** For an APPROVAL answer: `once`, `session` (fingerprint) or `tool`. */
  scope?: string;
  /** How long the call waited for a person, in ms. */
  waitedMs?: number;
  /** Arguments, already redacted by the caller. */
  args?: unknown;
}

// ---------------------------------------------------------------- query output

export interface SessionRow {
  id: string;
  kind: SessionKind;
  profile?: string;
  profileFile?: string;
  workspace?: string;
  hostPid?: number;
  startedAt: number;
  endedAt?: number;
  endReason?: string;
  messages: number;
  stderrLines: number;
  decisions: number;
  /** Traffic rows dropped because the writer's queue was full (recorded as gaps). */
  dropped: number;
}

export interface AgentSessionRow {
  id: string;
  session: string;
  terminal?: string;
  clientName?: string;
  clientVersion?: string;
  transport?: string;
  startedAt: number;
  endedAt?: number;
  endReason?: string;
}

export interface ServerStateRow {
  ts: number;
  state: string;
  reason?: string;
}

export interface ServerRunRow {
  session: string;
  server: string;
  run: number;
  pid?: number;
  command?: string;
  cwd?: string;
  startedAt: number;
  endedAt?: number;
  exitCode?: number;
  signal?: string;
  endReason?: string;
  states: ServerStateRow[];
}

export interface SessionDetail extends SessionRow {
  agentSessions: AgentSessionRow[];
}

export interface MessageRow {
  /** Store-wide, strictly increasing: the paging and `tail --follow` cursor. */
  seq: number;
  /** The tap's own sequence number (restarts with the host). */
  tapSeq?: number;
  ts: number;
  session: string;
  agentSession?: string;
  server?: string;
  direction: TrafficDirection;
  kind: TrafficKind;
  method?: string;
  /** JSON-RPC id as text (`7` and `"7"` both read `7`; the message keeps the original). */
  id?: string;
  bytes: number;
  message: unknown;
  fault?: string;
  exchange?: string;
  decision?: PolicyDecision;
  tool?: string;
  latencyMs?: number;
}

export interface StderrRow {
  seq: number;
  ts: number;
  session: string;
  server: string;
  run: number;
  line: string;
}

/** A stored decision: the record as written (main/audit/writer.ts), with its seq and a time always set. */
export interface DecisionRow extends Omit<DecisionRecord, 'ts' | 'outcome'> {
  seq: number;
  ts: number;
  /** As stored: the column is free text, read back without narrowing. */
  outcome: string;
}

export interface GapRow {
  ts: number;
  session: string;
  /** Which stream lost rows: `messages` or `stderr_lines`. */
  stream: string;
  dropped: number;
  firstTs?: number;
  lastTs?: number;
}

// ---------------------------------------------------------------- filters

/** A time bound: epoch ms, an ISO 8601 string, or a duration back from now (`90s`, `15m`, `2h`, `7d`). */
export type TimeBound = number | string;

export interface BaseFilter {
  session?: string;
  server?: string;
  /** Inclusive. */
  since?: TimeBound;
  /** Exclusive. */
  until?: TimeBound;
  /** Case-insensitive substring (ASCII case folding, as SQLite's LIKE does). */
  text?: string;
  /** Paging cursors on `seq`, both exclusive. */
  afterSeq?: number;
  beforeSeq?: number;
  /** Default 200, at most 10 000. */
  limit?: number;
  /**
   * Take the newest `limit` rows instead of the oldest (rows still come back oldest
   * first). With `beforeSeq` this pages backwards.
   */
  latest?: boolean;
}

export interface MessageFilter extends BaseFilter {
  /** Exact method, or a glob with `*` (`tools/*`). */
  method?: string;
  direction?: TrafficDirection;
  kind?: TrafficKind;
  exchange?: string;
  tool?: string;
}

export interface StderrFilter extends BaseFilter {
  run?: number;
}

export interface DecisionFilter extends BaseFilter {
  /** Exact canonical tool name, or a glob with `*`. */
  tool?: string;
  decision?: PolicyDecision;
  exchange?: string;
}

export type AuditStream = 'messages' | 'stderr' | 'decisions' | 'calls';

export interface PruneOptions {
  /** Rows (and ended sessions) older than this many days go. */
  maxAgeDays?: number;
  /** Keep at most this many messages (the newest). */
  maxMessages?: number;
  /** Keep at most this many stderr lines (the newest). */
  maxStderrLines?: number;
}

export interface PruneResult {
  messages: number;
  stderrLines: number;
  decisions: number;
  serverStates: number;
  sessions: number;
}

export interface WriterStats {
  /** Rows waiting for the next flush. */
  queued: number;
  /** Rows committed since the store opened. */
  written: number;
  /** Committed transactions (one per non-empty flush). */
  batches: number;
  /** Rows dropped because the queue was full. */
  dropped: number;
  /** Rows that could not be written (each reported to onError). */
  failed: number;
}
