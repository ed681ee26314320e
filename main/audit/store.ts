// The audit store: one SQLite file per data directory (ARCHITECTURE.md, "Where state
// lives"), a queued writer for the host and keyset-paged queries for the UI and CLI.
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { MIGRATIONS, migrate, type Migration } from './migrations';
import { AuditQueries } from './queries';
import { DEFAULT_RETENTION, prune } from './retention';
import type {
  AuditStream,
  CallFilter,
  CallRow,
  DecisionFilter,
  DecisionRow,
  GapRow,
  MessageFilter,
  MessageRow,
  PruneOptions,
  PruneResult,
  ServerRunRow,
  SessionDetail,
  SessionRow,
  StderrFilter,
  StderrRow,
} from './types';
import { QueuedWriter, type AuditWriter, type WriterOptions } from './writer';
import { ThreadedWriter } from './threaded-writer';
import { journalDir, recoverJournals } from './journal';
import { DEFAULT_AUDIT_LIMITS, pruneToSize, storeBytes, type AuditLimits } from './budget';
import { closeCrashedSessions } from './crash-recovery';
import { selectDataFindings, type DataFindingFilter, type DataFindingRow } from '../data/audit-findings';
import { insertTrustDecision, selectTrustDecisions, type TrustDecisionFilter, type TrustDecisionRow } from '../trust/audit-trust';
import type { TrustDecision } from '../trust/pin-store';
import { Chainer, INSTALL_CHAIN } from './chain';
import { verifyChains, type VerifyReport } from './verify';
import { loadStoreChains, writeBundle } from './bundle';
import type { AuditSigner, AuditVerifier } from './audit-key';

export const DB_FILE_NAME = 'gatehouse.db';

export interface AuditStoreCommonOptions extends WriterOptions {
  /** Pruned at open and every `pruneIntervalMs`; `false` turns retention off (the CLI's readers). */
  retention?: PruneOptions | false;
  /** Default one hour; 0 prunes at open only. */
  pruneIntervalMs?: number;
  /** How long a statement waits for another process's write lock. Default 5000. */
  busyTimeoutMs?: number;
  /** For tests of the migration machinery; the real list is MIGRATIONS. */
  migrations?: readonly Migration[];
  /**
   * Close sessions left open by a host that died as `crashed` at open (default: when retention
   * is on, i.e. for a host). Every read does the same for hosts that died since (replayDeadHosts),
   * so a CLI reader sees a dead host's journaled calls too.
   */
  recoverCrashed?: boolean;
  /** Byte budgets (budget.ts); defaults DEFAULT_AUDIT_LIMITS, or GATEHOUSE_AUDIT_* via auditLimitsFromEnv. */
  limits?: Partial<AuditLimits>;
  /** How often the store's size is checked against its cap (default 30 s; 0 = at open only). */
  sizeCheckIntervalMs?: number;
  /**
   * SQLite writes on a writer thread (threaded-writer.ts), with a crash journal beside the
   * file: the host's mode. `entry` is out/audit-writer.mjs; when it is missing (sources
   * without a build) the writer stays in this thread, with one warning.
   */
  thread?: { entry: string; journalRotateBytes?: number };
}


export type OpenAuditStoreOptions = ({ dataDir: string } | { file: string }) & AuditStoreCommonOptions;

export interface AuditStore {
  readonly file: string;
  /** The protocol path's side: every method returns at once and never throws. */
  readonly writer: AuditWriter;
  /** Writes everything queued now (one transaction). */
  flush(): void;
  /** Flushes, then closes the database. Idempotent. */
  close(): void;
  /** Replays dead hosts' crash journals and closes their sessions (reads do this themselves). */
  replayDeadHosts(): number;

  listSessions(opts?: { limit?: number; profile?: string }): SessionRow[];
  getSession(id: string): SessionDetail | undefined;
  resolveSession(ref: string): { id: string } | { error: string };
  serverRuns(session: string): ServerRunRow[];
  queryMessages(filter?: MessageFilter): MessageRow[];
  queryStderr(filter?: StderrFilter): StderrRow[];
  queryDecisions(filter?: DecisionFilter): DecisionRow[];
  queryCalls(filter?: CallFilter): CallRow[];
  countCalls(filter?: CallFilter): number;
  queryGaps(session?: string): GapRow[];
  exportJsonl(filter: MessageFilter & StderrFilter & DecisionFilter & CallFilter, out: Writable, stream?: AuditStream): Promise<number>;
  prune(opts?: PruneOptions): PruneResult;
  /** Trust decisions (main/trust/): written at once, not batched. */
  recordTrustDecision(d: TrustDecision): void;
  queryTrustDecisions(filter?: TrustDecisionFilter): TrustDecisionRow[];
  /** Checks the hash chains (chain.ts) of one session or all against this install's key. */
  verify(verifier: AuditVerifier | undefined, session?: string): VerifyReport;
  /** Writes a bundle (bundle.ts) that verifies without the store; returns the rows written. */
  exportBundle(file: string, session?: string): Promise<number>;
  /** What the data scanner found (main/data/): kind, rule, where; never the value. */
  queryDataFindings(filter?: DataFindingFilter): DataFindingRow[];
}

export function auditDbFile(dataDir: string): string {
  return path.join(dataDir, DB_FILE_NAME);
}

/**
 * Opens (creating and migrating as needed) the audit database. Throws when the file
 * cannot be opened or was written by a newer Gatehouse (AuditSchemaTooNewError); after
 * that, nothing the writer does throws.
 */
export function openAuditStore(opts: OpenAuditStoreOptions): AuditStore {
  const file = 'file' in opts ? opts.file : auditDbFile(opts.dataDir);
  const inMemory = file === ':memory:';
  let created = false;
  if (!inMemory) {
    // The trail holds tool arguments and results: private to the user, like ~/.ssh.
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    created = !fs.existsSync(file);
  }
  const db = new Database(file, { timeout: opts.busyTimeoutMs ?? 5_000 });
  try {
    if (created) fs.chmodSync(file, 0o600); // SQLite gives -wal and -shm the same mode
    if (!hasTables(db)) {
      // Only takes effect before the first table exists; lets prune give pages back.
      db.pragma('auto_vacuum = INCREMENTAL');
    }
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a power cut may lose the last commits, never corrupt the file;
    // FULL would fsync every 25 ms batch for little gain in an audit trail.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${Math.floor(opts.busyTimeoutMs ?? 5_000)}`);
    migrate(db, file, opts.migrations ?? MIGRATIONS);
  } catch (err) {
    db.close();
    throw err;
  }
  return new SqliteAuditStore(db, file, opts);
}

function hasTables(db: Database.Database): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1`).get() !== undefined;
}

/** The writer a store holds: in this thread (QueuedWriter) or on a writer thread (ThreadedWriter). */
type StoreWriter = AuditWriter & { flush(): void; close(): void };

class SqliteAuditStore implements AuditStore {
  readonly writer: StoreWriter;
  private readonly queries: AuditQueries;
  private readonly pruneTimer: NodeJS.Timeout | undefined;
  private readonly sizeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly recoverJournal: () => number;
  private readonly report: (err: Error) => void;
  private lastDeadHostCheck = 0;
  private readonly signer: AuditSigner | undefined;
  private readonly checkpointEvery: number | undefined;
  /** Trust decisions are rare and each is signed at once (every = 1). */
  private trustChain: Chainer | undefined;

  constructor(
    private readonly db: Database.Database,
    readonly file: string,
    opts: AuditStoreCommonOptions,
  ) {
    const limits: AuditLimits = { ...DEFAULT_AUDIT_LIMITS, ...opts.limits };
    this.signer = opts.signer;
    this.checkpointEvery = opts.checkpointEvery;
    const retention = opts.retention === undefined ? DEFAULT_RETENTION : opts.retention;
    const report = opts.onError ?? ((err: Error) => process.stderr.write(`gatehouse audit: ${err.message}\n`));
    this.report = report;
    const recover = opts.recoverCrashed ?? retention !== false;
    const inMemory = file === ':memory:';
    // Readers replay too (replayDeadHosts before every read): a CLI read right after a SIGKILL
    // must not miss the calls that only the dead host's journal holds.
    this.recoverJournal = inMemory ? () => 0 : () => this.replayJournals(limits, report);
    if (recover) this.recoverJournal();
    this.writer = this.makeWriter(db, file, opts, limits, report, inMemory);
    this.queries = new AuditQueries(db);
    if (recover) this.closeCrashed(report, false);
    if (retention !== false) {
      // The size cap: checked often (a flood fills a disk in minutes, not hours), pruned oldest first.
      const check = (): void => {
        try {
          if (storeBytes(db) <= limits.maxStoreBytes) return;
          this.writer.flush();
          pruneToSize(db, limits.maxStoreBytes, undefined, this.pruneChain());
        } catch (err) {
          report(new Error(`audit size cap failed: ${(err as Error)?.message ?? String(err)}`, { cause: err }));
        }
      };
      check();
      const every = opts.sizeCheckIntervalMs ?? 30_000;
      if (every > 0) {
        this.sizeTimer = setInterval(check, every);
        this.sizeTimer.unref();
      }
    }
    if (retention) {
      const run = (): void => {
        try {
          this.writer.flush();
          prune(db, retention, undefined, this.pruneChain());
        } catch (err) {
          report(new Error(`audit retention failed: ${(err as Error)?.message ?? String(err)}`, { cause: err }));
        }
      };
      run();
      const every = opts.pruneIntervalMs ?? 3_600_000;
      if (every > 0) {
        this.pruneTimer = setInterval(run, every);
        this.pruneTimer.unref();
      }
    }
  }

  private makeWriter(db: Database.Database, file: string, opts: AuditStoreCommonOptions, limits: AuditLimits, report: (err: Error) => void, inMemory: boolean): StoreWriter {
    const thread = opts.thread;
    if (thread && !inMemory) {
      if (fs.existsSync(thread.entry)) {
        return new ThreadedWriter({
          file: path.resolve(file),
          entry: thread.entry,
          limits,
          busyTimeoutMs: opts.busyTimeoutMs ?? 5_000,
          maxQueuedRows: opts.maxQueuedRows,
          journalDir: journalDir(file),
          journalRotateBytes: thread.journalRotateBytes,
          onError: report,
          signingKeyPem: opts.signer?.privateKeyPem,
          checkpointEvery: opts.checkpointEvery,
        });
      }
      report(new Error(`the audit writer thread's entry ${thread.entry} is missing (run npm run build); writing in the host's thread`));
    }
    return new QueuedWriter(db, { ...opts, limits });
  }

  flush(): void {
    if (!this.closed) this.writer.flush();
  }

  /**
   * Before a read: replays the crash journal of any host that died since (another Gatehouse on
   * this data directory, killed: its last answered calls are only in its journal) and closes its
   * sessions as crashed, so a read right after a SIGKILL misses nothing. A readdir when there is
   * nothing to do; at most every 250 ms, since the Audit view may ask several times a second.
   */
  replayDeadHosts(): number {
    if (this.closed) return 0;
    const now = Date.now();
    if (now - this.lastDeadHostCheck < 250) return 0;
    this.lastDeadHostCheck = now;
    const n = this.recoverJournal();
    this.closeCrashed(this.report, true);
    return n;
  }

  private replayJournals(limits: AuditLimits, report: (err: Error) => void): number {
    try {
      const n = recoverJournals(this.db, this.file, (commitHook) => new QueuedWriter(this.db, { limits, onError: report, commitHook, signer: this.signer, checkpointEvery: this.checkpointEvery }));
      if (n > 0) report(new Error(`recovered ${n} audit rows from the crash journal of a host that died`));
      return n;
    } catch (err) {
      report(new Error(`audit crash journal recovery failed: ${(err as Error)?.message ?? String(err)}`, { cause: err }));
      return 0;
    }
  }

  private closeCrashed(report: (err: Error) => void, selfAlive: boolean): void {
    try {
      closeCrashedSessions(this.db, selfAlive, this.signer);
    } catch (err) {
      report(new Error(`closing crashed sessions failed: ${(err as Error)?.message ?? String(err)}`, { cause: err }));
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    if (this.sizeTimer) clearInterval(this.sizeTimer);
    this.writer.close();
    this.db.close();
  }

  // Reads see this process's own writes (whatever is queued is flushed first) and what a dead
  // host journaled (replayDeadHosts).
  private read(): AuditQueries {
    if (this.closed) throw new Error(`audit store ${this.file} is closed`);
    this.replayDeadHosts();
    this.writer.flush();
    return this.queries;
  }

  listSessions(opts?: { limit?: number; profile?: string }): SessionRow[] {
    return this.read().listSessions(opts);
  }

  getSession(id: string): SessionDetail | undefined {
    return this.read().getSession(id);
  }

  resolveSession(ref: string): { id: string } | { error: string } {
    return this.read().resolveSession(ref);
  }

  serverRuns(session: string): ServerRunRow[] {
    return this.read().serverRuns(session);
  }

  queryMessages(filter?: MessageFilter): MessageRow[] {
    return this.read().queryMessages(filter);
  }

  queryStderr(filter?: StderrFilter): StderrRow[] {
    return this.read().queryStderr(filter);
  }

  queryDecisions(filter?: DecisionFilter): DecisionRow[] {
    return this.read().queryDecisions(filter);
  }

  queryCalls(filter?: CallFilter): CallRow[] {
    return this.read().queryCalls(filter);
  }

  countCalls(filter?: CallFilter): number {
    return this.read().countCalls(filter);
  }

  queryGaps(session?: string): GapRow[] {
    return this.read().queryGaps(session);
  }

  exportJsonl(filter: MessageFilter & StderrFilter & DecisionFilter & CallFilter, out: Writable, stream?: AuditStream): Promise<number> {
    return this.read().exportJsonl(filter, out, stream);
  }

  prune(opts: PruneOptions = DEFAULT_RETENTION): PruneResult {
    this.read();
    return prune(this.db, opts, undefined, this.pruneChain());
  }

  /** The chainer that signs prune summaries (chain.ts PruneSummary). */
  private pruneChain(): Chainer {
    return new Chainer(this.db, this.signer);
  }

  recordTrustDecision(d: TrustDecision): void {
    if (this.closed) throw new Error(`audit store ${this.file} is closed`);
    const chain = (this.trustChain ??= new Chainer(this.db, this.signer, 1));
    this.db.transaction(() => {
      chain.begin();
      insertTrustDecision(this.db, d, (table, session, vals, write) => chain.stamp(table, session ?? INSTALL_CHAIN, vals, write));
      chain.commit();
    }).immediate();
  }

  queryTrustDecisions(filter?: TrustDecisionFilter): TrustDecisionRow[] {
    this.read();
    return selectTrustDecisions(this.db, filter);
  }

  verify(verifier: AuditVerifier | undefined, session?: string): VerifyReport {
    this.read();
    return verifyChains(loadStoreChains(this.db, session), verifier);
  }

  async exportBundle(file: string, session?: string): Promise<number> {
    this.read();
    return writeBundle(this.db, file, this.signer, session);
  }

  queryDataFindings(filter?: DataFindingFilter): DataFindingRow[] {
    this.read();
    return selectDataFindings(this.db, filter);
  }
}
