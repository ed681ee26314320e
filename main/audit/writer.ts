// The audit writer: the protocol path only pushes onto bounded in-memory queues; a
// timer drains them into SQLite in one transaction per tick (ARCHITECTURE.md: "The
// protocol path never waits for the UI or the disk"). Nothing here throws into a caller.
import type Database from 'better-sqlite3';
import { messageJsonText } from '../protocol/json-text';
import { Fifo } from './fifo';
import { DEFAULT_AUDIT_LIMITS, FaultRate, storedMessageText, type AuditLimits } from './budget';
import { Chainer, NO_STAMP, type Stamp } from './chain';
import { prepareStatements } from './writer-statements';
import type { AuditSigner } from './audit-key';
import type { StderrLine, TrafficEvent } from '../protocol/types';
import type {
  AgentSessionStart,
  DecisionRecord,
  Ending,
  ExchangeRecord,
  ServerRunEnd,
  ServerRunStart,
  ServerStateChange,
  SessionStart,
  WriterStats,
} from './types';

/** What the host (supervisor, tap, gateway, approvals) calls. Every method returns at once. */
export interface AuditWriter {
  beginSession(s: SessionStart): void;
  endSession(id: string, end?: Ending): void;
  agentSessionStarted(a: AgentSessionStart): void;
  agentSessionEnded(id: string, end?: Ending): void;
  serverRunStarted(r: ServerRunStart): void;
  serverRunEnded(r: ServerRunEnd): void;
  serverState(s: ServerStateChange): void;
  traffic(ev: TrafficEvent): void;
  trafficBatch(evs: readonly TrafficEvent[]): void;
  stderr(line: StderrLine): void;
  stderrBatch(lines: readonly StderrLine[]): void;
  decision(d: DecisionRecord): void;
  /** A call as it arrived (outcome `pending`) and again as it ended: one row, upserted. */
  exchange(e: ExchangeRecord): void;
  stats(): WriterStats;
  /**
   * The moment an agent's answer must be on record (audit/durable.ts): everything queued so far
   * is made crash-safe before this returns (here: committed; the threaded writer: journaled).
   */
  commitPoint(): void;
}

export interface WriterOptions {
  /** Rows held in memory before the oldest traffic (then stderr) rows are dropped. */
  maxQueuedRows?: number;
  flushIntervalMs?: number;
  /** Most rows one timer flush writes; the rest follow on the next turn of the event loop. */
  maxRowsPerTick?: number;
  onError?: (err: Error) => void;
  /** Byte budgets (budget.ts): per-message size stored, fault rate, bytes held in memory. */
  limits?: Partial<AuditLimits>;
  /**
   * Runs inside each batch's transaction, after its rows, with whether the queue is now empty:
   * the writer thread records there which journal chunks are on disk (writer-thread.ts).
   */
  commitHook?: (drained: boolean) => void;
  /** Signs the chain's checkpoints (chain.ts); without it rows are still chained, not signed. */
  signer?: AuditSigner;
  /** Rows between two signed checkpoints of a chain (default chain.ts DEFAULT_CHECKPOINT_EVERY). */
  checkpointEvery?: number;
}

export const DEFAULT_MAX_QUEUED_ROWS = 200_000;
export const DEFAULT_FLUSH_INTERVAL_MS = 25;
// Measured here: 50 000 traffic rows take ~250 ms in one transaction (JSON included), so
// 10 000 keeps one slice near 50 ms. A steady 25 ms batch is far below this.
export const DEFAULT_MAX_ROWS_PER_TICK = 10_000;
// After a whole batch fails (disk full, lock held past busy_timeout) retry slower, so a
// broken disk costs one attempt a second, not forty.
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

// Rare, low-volume rows that define what the traffic belongs to. They are never dropped.
type ControlOp =
  | { t: 'session'; v: SessionStart; at: number }
  | { t: 'sessionEnd'; id: string; at: number; reason?: string }
  | { t: 'agent'; v: AgentSessionStart; at: number }
  | { t: 'agentEnd'; id: string; at: number; reason?: string }
  | { t: 'runStart'; v: ServerRunStart; at: number }
  | { t: 'runEnd'; v: ServerRunEnd; at: number }
  | { t: 'state'; v: ServerStateChange; at: number }
  | { t: 'decision'; v: DecisionRecord; at: number }
  | { t: 'exchange'; v: ExchangeRecord; at: number };

interface Gap {
  session: string;
  /** `faults`: protocol faults over the rate limit, counted instead of stored. */
  stream: 'messages' | 'stderr_lines' | 'faults';
  dropped: number;
  firstTs: number;
  lastTs: number;
}

// Constraint and binding errors belong to one row; anything else (I/O, full disk, busy)
// belongs to the whole batch, which is retried.
function isRowError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string') return true; // TypeError from binding, JSON.stringify of a cycle, …
  return /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/.test(code);
}

const n = (v: number | null | undefined): number | null => (v === undefined || v === null || !Number.isFinite(v) ? null : v);
const s = (v: string | null | undefined): string | null => (v === undefined ? null : v);
const json = (v: unknown): string | null => (v === undefined ? null : (JSON.stringify(v) ?? null));
// A message's text is usually serialised already (by the transport that wrote it, or the tap
// that measured it) and kept on the event: the row reuses it (protocol/json-text.ts).
const messageJson = (ev: TrafficEvent): string | null => (ev.message === undefined ? null : (messageJsonText(ev) ?? null));

export class QueuedWriter implements AuditWriter {
  private control: ControlOp[] = [];
  /** Exchange rows still in `control`, by session and id (see exchange()). */
  private readonly queuedExchanges = new Map<string, { t: 'exchange'; v: ExchangeRecord; at: number }>();
  private readonly trafficQ = new Fifo<TrafficEvent>();
  private readonly stderrQ = new Fifo<StderrLine>();
  private gaps = new Map<string, Gap>();
  private timer: NodeJS.Timeout | undefined;
  private retryMs = 0;
  private failingSince: number | undefined;
  private closed = false;
  private warnedClosed = false;
  private flushing = false;
  private readonly counters = { written: 0, batches: 0, dropped: 0, failed: 0 };
  private readonly maxQueued: number;
  private readonly intervalMs: number;
  private readonly rowsPerTick: number;
  private readonly onError: (err: Error) => void;
  private readonly limits: AuditLimits;
  private readonly faultRate: FaultRate;
  /** Wire bytes of the traffic rows queued (bounded by limits.maxQueuedBytes). */
  private trafficBytes = 0;
  private readonly writeBatch: (control: ControlOp[], stderr: StderrLine[], traffic: TrafficEvent[], gaps: Gap[]) => number;
  private readonly commitHook: ((drained: boolean) => void) | undefined;
  private readonly chainSigner: AuditSigner | undefined;
  private readonly checkpointEvery: number | undefined;

  constructor(
    private readonly db: Database.Database,
    opts: WriterOptions = {},
  ) {
    this.maxQueued = Math.max(1, opts.maxQueuedRows ?? DEFAULT_MAX_QUEUED_ROWS);
    this.intervalMs = opts.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.rowsPerTick = Math.max(1, opts.maxRowsPerTick ?? DEFAULT_MAX_ROWS_PER_TICK);
    this.onError = opts.onError ?? ((err) => process.stderr.write(`gatehouse audit: ${err.message}\n`));
    this.limits = { ...DEFAULT_AUDIT_LIMITS, ...opts.limits };
    this.faultRate = new FaultRate(this.limits.faultsPerSecond);
    this.commitHook = opts.commitHook;
    this.chainSigner = opts.signer;
    this.checkpointEvery = opts.checkpointEvery;
    this.writeBatch = this.prepare();
  }

  // ------------------------------------------------------------ public (protocol path)

  beginSession(v: SessionStart): void {
    this.pushControl({ t: 'session', v, at: v.startedAt ?? Date.now() });
  }

  endSession(id: string, end: Ending = {}): void {
    this.pushControl({ t: 'sessionEnd', id, at: end.endedAt ?? Date.now(), reason: end.reason });
  }

  agentSessionStarted(v: AgentSessionStart): void {
    this.pushControl({ t: 'agent', v, at: v.startedAt ?? Date.now() });
  }

  agentSessionEnded(id: string, end: Ending = {}): void {
    this.pushControl({ t: 'agentEnd', id, at: end.endedAt ?? Date.now(), reason: end.reason });
  }

  serverRunStarted(v: ServerRunStart): void {
    this.pushControl({ t: 'runStart', v, at: v.startedAt ?? Date.now() });
  }

  serverRunEnded(v: ServerRunEnd): void {
    this.pushControl({ t: 'runEnd', v, at: v.endedAt ?? Date.now() });
  }

  serverState(v: ServerStateChange): void {
    this.pushControl({ t: 'state', v, at: v.ts ?? Date.now() });
  }

  decision(v: DecisionRecord): void {
    this.pushControl({ t: 'decision', v, at: v.ts ?? Date.now() });
  }

  exchange(v: ExchangeRecord): void {
    // A call that opens and ends between two flushes is one row write, not two: the queued
    // op takes the newer state (the row is an upsert either way).
    const key = `${v.session}\u0000${v.id}`;
    const queued = this.queuedExchanges.get(key);
    if (queued) {
      queued.v = v;
      return;
    }
    const op = { t: 'exchange' as const, v, at: v.ts };
    this.queuedExchanges.set(key, op);
    this.pushControl(op);
  }

  traffic(ev: TrafficEvent): void {
    if (!this.accepting()) return;
    this.enqueueTraffic(ev);
    this.schedule();
  }

  trafficBatch(evs: readonly TrafficEvent[]): void {
    if (!this.accepting()) return;
    for (const ev of evs) this.enqueueTraffic(ev);
    this.schedule();
  }

  /** Queues one row within the row and byte budgets; faults over their rate are only counted. */
  private enqueueTraffic(ev: TrafficEvent): void {
    if (ev.kind === 'fault' && !this.faultRate.admit(ev.session, ev.server, ev.ts)) return;
    this.makeRoom();
    this.trafficQ.push(ev);
    this.trafficBytes += ev.bytes;
    while (this.trafficBytes > this.limits.maxQueuedBytes && this.trafficQ.length > 1 && this.dropOldest());
  }

  stderr(line: StderrLine): void {
    if (!this.accepting()) return;
    this.makeRoom();
    this.stderrQ.push(line);
    this.schedule();
  }

  stderrBatch(lines: readonly StderrLine[]): void {
    if (!this.accepting()) return;
    for (const line of lines) {
      this.makeRoom();
      this.stderrQ.push(line);
    }
    this.schedule();
  }

  stats(): WriterStats {
    return { queued: this.queued(), ...this.counters };
  }

  commitPoint(): void {
    this.flush();
  }

  /** Rows dropped before they reached this writer (the threaded writer's own bound): a gap record. */
  noteDropped(session: string, stream: 'messages' | 'stderr_lines', dropped: number, firstTs: number, lastTs: number): void {
    this.counters.dropped += dropped;
    this.mergeGap({ session, stream, dropped, firstTs, lastTs });
    this.schedule();
  }

  // ------------------------------------------------------------ store-facing

  /**
   * Writes what is queued in one transaction: everything by default; the timer passes a
   * cap so that a backlog (after a stall) is worked off in slices that leave the event
   * loop to the protocol path in between. Never throws.
   */
  flush(maxRows: number = Infinity): void {
    if (this.flushing) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queued() === 0 && this.gaps.size === 0) return;
    this.flushing = true;
    const control = this.control;
    this.control = [];
    this.queuedExchanges.clear();
    const stderr = this.stderrQ.take(Math.max(0, maxRows - control.length));
    const traffic = this.trafficQ.take(Math.max(0, maxRows - control.length - stderr.length));
    for (const f of this.faultRate.takeCounted()) this.mergeGap({ session: f.session, stream: 'faults', dropped: f.dropped, firstTs: f.firstTs, lastTs: f.lastTs });
    const gaps = [...this.gaps.values()];
    this.gaps = new Map();
    const trafficBytes = traffic.reduce((sum, ev) => sum + ev.bytes, 0);
    this.trafficBytes -= trafficBytes;
    try {
      const failed = this.writeBatch(control, stderr, traffic, gaps);
      this.counters.batches++;
      this.counters.written += control.length + stderr.length + traffic.length - failed;
      if (this.failingSince !== undefined) {
        this.report(new Error(`audit writes resumed (failing since ${new Date(this.failingSince).toISOString()})`));
        this.failingSince = undefined;
      }
      this.retryMs = 0;
    } catch (err) {
      // The transaction rolled back as a whole: put everything back, in order, and retry
      // later. The queue bound still applies, so a dead disk cannot grow memory forever.
      this.control = control.concat(this.control);
      this.stderrQ.prepend(stderr);
      this.trafficQ.prepend(traffic);
      this.trafficBytes += trafficBytes;
      for (const g of gaps) this.mergeGap(g);
      while (this.queued() > this.maxQueued && this.dropOldest());
      if (this.failingSince === undefined) {
        this.failingSince = Date.now();
        this.report(new Error(`audit write failed, will retry: ${(err as Error)?.message ?? String(err)}`, { cause: err }));
      }
      this.retryMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, this.retryMs * 2));
    } finally {
      this.flushing = false;
    }
    if (this.queued() > 0 || this.gaps.size > 0) this.schedule(this.retryMs ? undefined : 0);
  }

  /** Flushes what is queued and stops accepting rows. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const left = this.queued();
    if (left > 0) this.report(new Error(`audit store closed with ${left} rows unwritten (the last write failed)`));
  }

  // ------------------------------------------------------------ internals

  private queued(): number {
    return this.control.length + this.trafficQ.length + this.stderrQ.length;
  }

  private accepting(): boolean {
    if (!this.closed) return true;
    if (!this.warnedClosed) {
      this.warnedClosed = true;
      this.report(new Error('audit row written after the store was closed; ignored'));
    }
    return false;
  }

  private pushControl(op: ControlOp): void {
    if (!this.accepting()) return;
    // Control rows are never dropped (they are few and the rest of the trail hangs off
    // them), but they still make room by pushing out traffic.
    this.makeRoom();
    this.control.push(op);
    this.schedule();
  }

  private makeRoom(): void {
    if (this.queued() >= this.maxQueued) this.dropOldest();
  }

  /** Drops the oldest traffic row, else the oldest stderr line; false when neither is left. */
  private dropOldest(): boolean {
    const ev = this.trafficQ.shift();
    if (ev) {
      this.trafficBytes -= ev.bytes;
      this.addGap(ev.session, 'messages', ev.ts);
      return true;
    }
    const line = this.stderrQ.shift();
    if (line) {
      this.addGap(line.session, 'stderr_lines', line.ts);
      return true;
    }
    return false;
  }

  private addGap(session: string, stream: Gap['stream'], ts: number): void {
    this.counters.dropped++;
    this.mergeGap({ session, stream, dropped: 1, firstTs: ts, lastTs: ts });
  }

  /** Merges into the pending gap record of that session and stream (not counted again). */
  private mergeGap(add: Gap): void {
    const key = `${add.stream}\u0000${add.session}`;
    const g = this.gaps.get(key);
    if (g) {
      g.dropped += add.dropped;
      g.firstTs = Math.min(g.firstTs, add.firstTs);
      g.lastTs = Math.max(g.lastTs, add.lastTs);
    } else {
      this.gaps.set(key, { ...add });
    }
  }

  private schedule(delayMs?: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush(this.rowsPerTick);
    }, delayMs ?? (this.retryMs || this.intervalMs));
    // The writer must never keep the host alive on its own; close() flushes on the way out.
    this.timer.unref();
  }

  private report(err: Error): void {
    try {
      this.onError(err);
    } catch {
      // An onError that throws must not take the flush (or the protocol path) with it.
    }
  }

  private prepare(): QueuedWriter['writeBatch'] {
    const db = this.db;
    const chain = new Chainer(db, this.chainSigner, this.checkpointEvery);
    const st = prepareStatements(db);

    const writeControl = (op: ControlOp): void => {
      switch (op.t) {
        case 'session': {
          const v = op.v;
          st.session.run(v.id, v.kind, s(v.profile), s(v.profileFile), s(v.workspace), n(v.hostPid), op.at);
          return;
        }
        case 'sessionEnd':
          chain.ended(op.id);
          st.sessionEnd.run(op.at, s(op.reason), op.id);
          st.sessionEndRuns.run(op.at, op.id);
          st.sessionEndAgents.run(op.at, op.id);
          return;
        case 'agent': {
          const v = op.v;
          st.agent.run(v.id, v.session, s(v.clientName), s(v.clientVersion), s(v.transport), op.at, s(v.terminal));
          return;
        }
        case 'agentEnd':
          st.agentEnd.run(op.at, s(op.reason), op.id);
          return;
        case 'runStart': {
          const v = op.v;
          st.runStart.run(v.session, v.server, v.run, n(v.pid), s(v.command), s(v.cwd), op.at);
          return;
        }
        case 'runEnd': {
          const v = op.v;
          st.runEnd.run(op.at, n(v.exitCode), v.signal ?? null, s(v.reason), v.session, v.server, v.run);
          return;
        }
        case 'state': {
          const v = op.v;
          st.state.run(v.session, v.server, n(v.run), op.at, v.state, s(v.reason));
          return;
        }
        case 'exchange': {
          const v = op.v;
          const id = (x: string | number | undefined) => (x === undefined ? null : String(x));
          const vals = [v.id, v.ts, v.session, s(v.agentSession), v.kind, v.method, s(v.server), s(v.tool), s(v.advertised),
            s(v.parent), id(v.downstreamId), id(v.upstreamId), s(v.decision), s(v.decidedBy), s(v.rule), s(v.answeredBy),
            s(v.reason), v.outcome, s(v.error), n(v.decidedAt), n(v.sentAt), n(v.answeredAt), n(v.latencyMs),
            n(v.requestBytes), n(v.responseBytes), s(v.agentEra), n(v.round), s(v.agentName), s(v.agentVersion)];
          // A call is chained once, when it ends; a chained row is never rewritten (the upsert's WHERE).
          const write = (stamp: Stamp): boolean => st.exchange.run(...vals, ...stamp).changes > 0;
          if (v.outcome === 'pending') write(NO_STAMP);
          else chain.stamp('exchanges', v.session, vals, write);
          // A finding is chained when its row is first written; the same finding again (the call's next row) is ignored.
          for (const f of v.findings ?? []) {
            const fv = [op.at, v.session, v.id, s(v.tool), f.direction, f.kind, f.rule, s(f.detail), f.path, f.start, f.end];
            chain.stamp('data_findings', v.session, fv, (stamp) => st.finding.run(...fv, ...stamp).changes > 0);
          }
          return;
        }
        case 'decision': {
          const v = op.v;
          const vals = [op.at, v.session, s(v.agentSession), s(v.exchange), v.tool, s(v.server), v.decision, v.outcome,
            s(v.reason), s(v.rule), s(v.fingerprint), s(v.answeredBy), s(v.scope), n(v.waitedMs), json(v.args)];
          chain.stamp('decisions', v.session, vals, (stamp) => st.decision.run(...vals, ...stamp).changes > 0);
          return;
        }
      }
    };

    const maxMessageBytes = this.limits.maxMessageBytes;
    const writeMessage = (ev: TrafficEvent): void => {
      const vals = [n(ev.seq), ev.ts, ev.session, s(ev.agentSession), s(ev.server), ev.direction, ev.kind, s(ev.method),
        ev.id === undefined || ev.id === null ? null : String(ev.id), ev.bytes, storedMessageText(messageJson(ev), maxMessageBytes), s(ev.fault),
        s(ev.exchange), s(ev.decision), s(ev.tool), n(ev.latencyMs)];
      chain.stamp('messages', ev.session, vals, (stamp) => st.message.run(...vals, ...stamp).changes > 0);
    };

    const tx = db.transaction((control: ControlOp[], stderr: StderrLine[], traffic: TrafficEvent[], gaps: Gap[]): number => {
      chain.begin();
      let failed = 0;
      // A row-level error skips the row; anything else, or an error after which SQLite has
      // already rolled the transaction back, fails (and requeues) the batch. The row's
      // description is only built when it failed (these loops run for every row).
      const rowFailed = (err: unknown, what: () => string): void => {
        if (!isRowError(err) || !db.inTransaction) throw err;
        failed++;
        this.counters.failed++;
        this.report(new Error(`audit: could not store ${what()}: ${(err as Error)?.message ?? String(err)}`, { cause: err }));
      };
      for (const op of control) {
        try {
          writeControl(op);
        } catch (err) {
          rowFailed(err, () => describe(op));
        }
      }
      for (const line of stderr) {
        try {
          st.stderr.run(n(line.seq), line.ts, line.session, line.server, line.run, line.line);
        } catch (err) {
          rowFailed(err, () => `stderr line of ${line.server}`);
        }
      }
      for (const ev of traffic) {
        try {
          writeMessage(ev);
        } catch (err) {
          rowFailed(err, () => `${ev.kind} ${ev.method ?? ''} (${ev.direction})`);
        }
      }
      const now = Date.now();
      for (const g of gaps) {
        try {
          st.gap.run(now, g.session, g.stream, g.dropped, g.firstTs, g.lastTs);
        } catch (err) {
          rowFailed(err, () => 'a queue-overflow record');
        }
      }
      chain.commit();
      this.commitHook?.(this.queued() === 0);
      return failed;
    });
    // IMMEDIATE: the chain heads are read inside the batch, so the write lock is taken first
    // (the host's trust decisions append to the same chains from another connection).
    return (control, stderr, traffic, gaps) => tx.immediate(control, stderr, traffic, gaps);
  }
}

function describe(op: ControlOp): string {
  switch (op.t) {
    case 'session':
      return `session ${op.v.id}`;
    case 'sessionEnd':
      return `the end of session ${op.id}`;
    case 'agent':
      return `agent session ${op.v.id}`;
    case 'agentEnd':
      return `the end of agent session ${op.id}`;
    case 'runStart':
      return `run ${op.v.run} of ${op.v.server} in session ${op.v.session}`;
    case 'runEnd':
      return `the end of run ${op.v.run} of ${op.v.server} in session ${op.v.session}`;
    case 'state':
      return `state ${op.v.state} of ${op.v.server} in session ${op.v.session}`;
    case 'decision':
      return `decision ${op.v.decision} for ${op.v.tool} in session ${op.v.session}`;
    case 'exchange':
      return `exchange ${op.v.id} (${op.v.outcome}) in session ${op.v.session}`;
  }
}
