// A host killed without warning (SIGKILL, power loss, an OOM kill) leaves its session, its
// server runs and its agent sessions open in the store: "running" for ever. At the next start
// they are closed as `crashed`, at the last moment the store saw anything of them, unless the
// host that owns them is still alive (another Gatehouse on the same data directory).
import type Database from 'better-sqlite3';
import { Chainer } from './chain';
import type { AuditSigner } from './audit-key';

export const CRASHED = 'crashed';

function alive(pid: number, selfAlive: boolean): boolean {
  // At open, a session with our pid is a previous host whose pid was reused by us; once this
  // process has sessions of its own (a read while it runs), it is us.
  if (pid === process.pid) return selfAlive;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Closes sessions whose host is gone; returns their ids. `selfAlive`: this process's own sessions are live. */
export function closeCrashedSessions(db: Database.Database, selfAlive = false, signer?: AuditSigner): string[] {
  const open = db.prepare(`SELECT id, host_pid AS pid FROM sessions WHERE ended_at IS NULL`).all() as Array<{ id: string; pid: number | null }>;
  const dead = open.filter((s) => (s.pid === null ? !selfAlive : !alive(s.pid, selfAlive)));
  if (dead.length === 0) return [];
  const lastSeen = db.prepare(
    `SELECT max(coalesce((SELECT max(ts) FROM messages WHERE session = @id), 0),
                coalesce((SELECT max(ts) FROM stderr_lines WHERE session = @id), 0),
                coalesce((SELECT max(ts) FROM decisions WHERE session = @id), 0),
                (SELECT started_at FROM sessions WHERE id = @id)) AS at`,
  );
  const end = db.prepare(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL`);
  const runs = db.prepare(`UPDATE server_runs SET ended_at = ?, end_reason = coalesce(end_reason, ?) WHERE session = ? AND ended_at IS NULL`);
  const agents = db.prepare(`UPDATE agent_sessions SET ended_at = ?, end_reason = coalesce(end_reason, ?) WHERE session = ? AND ended_at IS NULL`);
  const chain = new Chainer(db, signer);
  db.transaction(() => {
    chain.begin();
    for (const s of dead) {
      chain.ended(s.id); // what the dead host chained gets its end checkpoint
      const at = (lastSeen.get({ id: s.id }) as { at: number }).at;
      const reason = `${CRASHED}: the host${s.pid !== null ? ` (pid ${s.pid})` : ''} ended without closing this session`;
      end.run(at, reason, s.id);
      runs.run(at, CRASHED, s.id);
      agents.run(at, CRASHED, s.id);
    }
    chain.commit();
  }).immediate();
  return dead.map((s) => s.id);
}
