// Byte budgets of the audit store (docs/audit.md "Audit store"): a flooding server must not grow the trail by
// hundreds of MB in seconds, nor the writer's queue by gigabytes.
//  - A message larger than the per-message limit is stored truncated, as a JSON object that
//    keeps its head, its full size and the SHA-256 of its full text (so it can still be matched).
//  - Protocol faults beyond a rate are counted (an audit_gaps row, stream `faults`), not stored
//    one row each: garbage lines carry no information past the first few.
//  - The store as a whole has a size cap; past it, the oldest messages and stderr lines go first.
// All limits are configurable with GATEHOUSE_AUDIT_* (auditLimitsFromEnv).
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { PruneSummary, type Chainer } from './chain';

export interface AuditLimits {
  /** Largest message text stored whole, in bytes; larger ones are stored truncated with their hash. */
  maxMessageBytes: number;
  /** Faults stored per second per (session, server); the rest are counted. */
  faultsPerSecond: number;
  /** Size cap of the database file, in bytes; past it the oldest rows are pruned. */
  maxStoreBytes: number;
  /** Bytes of traffic the writer may hold in memory before it drops the oldest (counted as a gap). */
  maxQueuedBytes: number;
}

export const DEFAULT_AUDIT_LIMITS: Readonly<AuditLimits> = {
  maxMessageBytes: 256 * 1024,
  faultsPerSecond: 20,
  maxStoreBytes: 1024 * 1024 * 1024,
  maxQueuedBytes: 64 * 1024 * 1024,
};

/**
 * GATEHOUSE_AUDIT_MAX_MESSAGE_BYTES, GATEHOUSE_AUDIT_FAULTS_PER_SECOND, GATEHOUSE_AUDIT_MAX_STORE_MB
 * and GATEHOUSE_AUDIT_MAX_QUEUED_MB override the defaults; a bad value is reported and ignored.
 */
export function auditLimitsFromEnv(env: NodeJS.ProcessEnv, report: (msg: string) => void = (m) => process.stderr.write(`gatehouse audit: ${m}\n`)): AuditLimits {
  const num = (name: string, scale: number): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const v = Number(raw);
    if (!Number.isFinite(v) || v <= 0) {
      report(`${name}: expected a positive number, got ${JSON.stringify(raw)}; using the default`);
      return undefined;
    }
    return Math.floor(v * scale);
  };
  const MB = 1024 * 1024;
  return {
    maxMessageBytes: num('GATEHOUSE_AUDIT_MAX_MESSAGE_BYTES', 1) ?? DEFAULT_AUDIT_LIMITS.maxMessageBytes,
    faultsPerSecond: num('GATEHOUSE_AUDIT_FAULTS_PER_SECOND', 1) ?? DEFAULT_AUDIT_LIMITS.faultsPerSecond,
    maxStoreBytes: num('GATEHOUSE_AUDIT_MAX_STORE_MB', MB) ?? DEFAULT_AUDIT_LIMITS.maxStoreBytes,
    maxQueuedBytes: num('GATEHOUSE_AUDIT_MAX_QUEUED_MB', MB) ?? DEFAULT_AUDIT_LIMITS.maxQueuedBytes,
  };
}

/** The text stored for a message: whole when within the limit, else a truncation record. */
export function storedMessageText(text: string | null, maxBytes: number): string | null {
  if (text === null || text.length <= maxBytes / 3) return text; // ≤ 3 bytes per UTF-16 unit: surely within
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const sha256 = createHash('sha256').update(text).digest('hex');
  // The head keeps at most a quarter of the limit: enough to see what it was.
  let head = text.slice(0, Math.floor(maxBytes / 4));
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  return JSON.stringify({ truncated: true, bytes, sha256, head });
}

/** Per (session, server) fault counter over one-second windows. */
export class FaultRate {
  private readonly windows = new Map<string, { start: number; stored: number; over: number; firstTs: number; lastTs: number; session: string }>();

  constructor(private readonly perSecond: number) {}

  /** True when this fault is stored; false when it is only counted. */
  admit(session: string, server: string | undefined, ts: number): boolean {
    const key = `${session}\u0000${server ?? ''}`;
    let w = this.windows.get(key);
    if (!w || ts - w.start >= 1000) {
      if (this.windows.size > 10_000) this.windows.clear();
      w = { start: ts, stored: 0, over: w?.over ?? 0, firstTs: w?.firstTs ?? ts, lastTs: w?.lastTs ?? ts, session };
      this.windows.set(key, w);
    }
    if (w.stored < this.perSecond) {
      w.stored++;
      return true;
    }
    if (w.over === 0) w.firstTs = ts;
    w.over++;
    w.lastTs = ts;
    return false;
  }

  /** Counted faults since the last call, per session (and resets them). */
  takeCounted(): Array<{ session: string; dropped: number; firstTs: number; lastTs: number }> {
    const out: Array<{ session: string; dropped: number; firstTs: number; lastTs: number }> = [];
    for (const w of this.windows.values()) {
      if (w.over === 0) continue;
      out.push({ session: w.session, dropped: w.over, firstTs: w.firstTs, lastTs: w.lastTs });
      w.over = 0;
    }
    return out;
  }
}

/** Bytes the database holds (pages in use; free pages are not counted). */
export function storeBytes(db: Database.Database): number {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  return (pages - free) * pageSize;
}

/**
 * Prunes the oldest messages and stderr lines (in slices) until the store is under `maxBytes`,
 * or until there is nothing left to prune. Returns the rows deleted.
 */
export function pruneToSize(db: Database.Database, maxBytes: number, sliceRows = 5_000, chain?: Chainer): number {
  let deleted = 0;
  for (let guard = 0; guard < 10_000 && storeBytes(db) > maxBytes; guard++) {
    const n = db.transaction(() => {
      const summary = new PruneSummary(db);
      summary.note('messages', 'seq IN (SELECT seq FROM messages ORDER BY seq LIMIT ?)', [sliceRows]);
      if (chain) summary.commit(chain);
      const m = db.prepare(`DELETE FROM messages WHERE seq IN (SELECT seq FROM messages ORDER BY seq LIMIT ?)`).run(sliceRows).changes;
      const l = db.prepare(`DELETE FROM stderr_lines WHERE seq IN (SELECT seq FROM stderr_lines ORDER BY seq LIMIT ?)`).run(Math.ceil(sliceRows / 5)).changes;
      return m + l;
    })();
    if (n === 0) break;
    deleted += n;
  }
  if (deleted > 0) db.pragma('incremental_vacuum');
  return deleted;
}
