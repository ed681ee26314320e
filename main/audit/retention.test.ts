import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prune } from './retention';
import { auditDbFile } from './store';
import { event, openTestStore, removeDir, stderrLine, tempDir } from './test-support';

const DAY = 86_400_000;
let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeDir(dir));

/** An old, ended session (40 days ago) and a current one. */
function fill(now: number): void {
  const { store } = openTestStore(dir, { flushIntervalMs: 60_000 });
  const w = store.writer;
  w.beginSession({ id: 'old', kind: 'launch', startedAt: now - 41 * DAY });
  w.serverRunStarted({ session: 'old', server: 'files', run: 1, startedAt: now - 41 * DAY });
  w.serverState({ session: 'old', server: 'files', run: 1, state: 'ready', ts: now - 41 * DAY });
  for (let i = 0; i < 10; i++) w.traffic(event({ session: 'old', ts: now - 40 * DAY + i }));
  for (let i = 0; i < 4; i++) w.stderr(stderrLine({ session: 'old', ts: now - 40 * DAY + i }));
  w.decision({ session: 'old', ts: now - 40 * DAY, tool: 'files.read_file', decision: 'ALLOW', outcome: 'allowed' });
  w.endSession('old', { endedAt: now - 40 * DAY + 100 });
  // Started long ago but still recording: must survive an age prune.
  w.beginSession({ id: 'long-running', kind: 'serve', startedAt: now - 60 * DAY });
  for (let i = 0; i < 5; i++) w.traffic(event({ session: 'long-running', ts: now - 1000 + i }));
  w.beginSession({ id: 'new', kind: 'launch', startedAt: now - DAY });
  for (let i = 0; i < 20; i++) w.traffic(event({ session: 'new', ts: now - DAY + i }));
  for (let i = 0; i < 6; i++) w.stderr(stderrLine({ session: 'new', ts: now - DAY + i }));
  store.close();
}

describe('prune', () => {
  it('by age removes old rows and sessions with nothing left, keeps sessions that still record', () => {
    const now = Date.now();
    fill(now);
    const { store } = openTestStore(dir);
    expect(store.prune({ maxAgeDays: 30 })).toEqual({ messages: 10, stderrLines: 4, decisions: 1, serverStates: 1, sessions: 1 });
    expect(store.listSessions().map((s) => s.id).sort()).toEqual(['long-running', 'new']);
    expect(store.serverRuns('old')).toEqual([]); // cascaded
    expect(store.queryMessages({ limit: 1000 })).toHaveLength(25);
    expect(store.prune({ maxAgeDays: 30 })).toEqual({ messages: 0, stderrLines: 0, decisions: 0, serverStates: 0, sessions: 0 });
    store.close();
  });

  it('by count keeps the newest messages and stderr lines', () => {
    const now = Date.now();
    fill(now);
    const { store } = openTestStore(dir);
    const newest = store.queryMessages({ latest: true, limit: 7 }).map((m) => m.seq);
    expect(store.prune({ maxMessages: 7, maxStderrLines: 2 })).toMatchObject({ messages: 28, stderrLines: 8, sessions: 0 });
    expect(store.queryMessages({ limit: 1000 }).map((m) => m.seq)).toEqual(newest);
    expect(store.queryStderr({ limit: 1000 }).map((l) => l.session)).toEqual(['new', 'new']);
    expect(store.prune({ maxMessages: 0 })).toMatchObject({ messages: 7 });
    // seq is never reused once pruned: followers and pagers rely on it only growing.
    store.writer.traffic(event({ session: 'new' }));
    expect(store.queryMessages()[0]!.seq).toBeGreaterThan(newest[6]!);
    store.close();
  });

  it('runs at open with the configured retention (default 30 days, 1 000 000 messages)', () => {
    const now = Date.now();
    fill(now);
    const { store } = openTestStore(dir, { retention: { maxAgeDays: 30, maxMessages: 20 } });
    expect(store.listSessions().map((s) => s.id).sort()).toEqual(['long-running', 'new']);
    expect(store.queryMessages({ limit: 1000 })).toHaveLength(20);
    store.close();

    fill(now); // the default applies when retention is not given
    const { store: again } = openTestStore(dir, { retention: undefined });
    expect(again.listSessions().map((s) => s.id)).not.toContain('old');
    again.close();
  });

  it('refuses nonsense bounds', () => {
    const { store } = openTestStore(dir);
    expect(() => store.prune({ maxAgeDays: -1 })).toThrow(/maxAgeDays must be a number >= 0, got -1/);
    expect(() => store.prune({ maxMessages: Number.NaN })).toThrow(RangeError);
    store.close();
    const db = new Database(auditDbFile(dir));
    expect(prune(db, {})).toEqual({ messages: 0, stderrLines: 0, decisions: 0, serverStates: 0, sessions: 0 });
    db.close();
  });
});
