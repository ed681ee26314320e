// Retention: by age and by row count. Runs at open, periodically while the host runs,
// and on demand (`gatehouse audit prune`).
import type Database from 'better-sqlite3';
import type { PruneOptions, PruneResult } from './types';
import { PruneSummary, type Chainer } from './chain';

export const DEFAULT_RETENTION: Readonly<PruneOptions> = { maxAgeDays: 30, maxMessages: 1_000_000 };
const DAY_MS = 86_400_000;

function check(name: string, v: number | undefined): void {
  if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new RangeError(`prune: ${name} must be a number >= 0, got ${v}`);
}

/** With `chain`, what goes from the hash chains leaves a signed summary (chain.ts PruneSummary). */
export function prune(db: Database.Database, opts: PruneOptions, now: number = Date.now(), chain?: Chainer): PruneResult {
  check('maxAgeDays', opts.maxAgeDays);
  check('maxMessages', opts.maxMessages);
  check('maxStderrLines', opts.maxStderrLines);
  const result: PruneResult = { messages: 0, stderrLines: 0, decisions: 0, serverStates: 0, sessions: 0 };

  const summary = new PruneSummary(db);
  db.transaction(() => {
    if (opts.maxAgeDays !== undefined) {
      const cutoff = now - opts.maxAgeDays * DAY_MS;
      for (const t of ['messages', 'decisions', 'exchanges', 'data_findings']) summary.note(t, 'ts < ?', [cutoff]);
      result.messages += db.prepare(`DELETE FROM messages WHERE ts < ?`).run(cutoff).changes;
      result.stderrLines += db.prepare(`DELETE FROM stderr_lines WHERE ts < ?`).run(cutoff).changes;
      result.decisions += db.prepare(`DELETE FROM decisions WHERE ts < ?`).run(cutoff).changes;
      // Calls go with their decisions (counted with them: one call, one decision).
      db.prepare(`DELETE FROM exchanges WHERE ts < ?`).run(cutoff);
      db.prepare(`DELETE FROM data_findings WHERE ts < ?`).run(cutoff);
      result.serverStates += db.prepare(`DELETE FROM server_states WHERE ts < ?`).run(cutoff).changes;
      db.prepare(`DELETE FROM audit_gaps WHERE ts < ?`).run(cutoff);
      // A session goes once it is old *and* nothing of it is left: a host that has run
      // for longer than the window keeps its session row while it still records.
      result.sessions += db
        .prepare(
          `DELETE FROM sessions WHERE coalesce(ended_at, started_at) < ?
             AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session = sessions.id)
             AND NOT EXISTS (SELECT 1 FROM stderr_lines l WHERE l.session = sessions.id)
             AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.session = sessions.id)
             AND NOT EXISTS (SELECT 1 FROM exchanges x WHERE x.session = sessions.id)
             AND NOT EXISTS (SELECT 1 FROM server_states t WHERE t.session = sessions.id)`,
        )
        .run(cutoff).changes;
    }
    // "Keep the newest N": find the seq of the (N+1)-th newest and delete it and older.
    if (opts.maxMessages !== undefined) {
      summary.note('messages', 'seq <= (SELECT seq FROM messages ORDER BY seq DESC LIMIT 1 OFFSET ?)', [Math.floor(opts.maxMessages)]);
      result.messages += db
        .prepare(`DELETE FROM messages WHERE seq <= (SELECT seq FROM messages ORDER BY seq DESC LIMIT 1 OFFSET ?)`)
        .run(Math.floor(opts.maxMessages)).changes;
    }
    if (opts.maxStderrLines !== undefined) {
      result.stderrLines += db
        .prepare(`DELETE FROM stderr_lines WHERE seq <= (SELECT seq FROM stderr_lines ORDER BY seq DESC LIMIT 1 OFFSET ?)`)
        .run(Math.floor(opts.maxStderrLines)).changes;
    }
    if (chain) summary.commit(chain, now);
  })();

  const removed = result.messages + result.stderrLines + result.decisions + result.serverStates + result.sessions;
  // The file is created with auto_vacuum=INCREMENTAL, so freed pages can go back to the
  // disk without a full VACUUM (which would rewrite the whole file and block writers).
  if (removed > 0) db.pragma('incremental_vacuum');
  return result;
}
