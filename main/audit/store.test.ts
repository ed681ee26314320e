import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditSchemaTooNewError, MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from './migrations';
import { auditDbFile, openAuditStore } from './store';
import { T0, event, openTestStore, removeDir, stderrLine, tempDir } from './test-support';

let dir: string;
beforeEach(() => {
  dir = path.join(tempDir(), 'data'); // not created yet: the store must create it
});
afterEach(() => removeDir(path.dirname(dir)));

function fillSession(store: ReturnType<typeof openTestStore>['store'], id = 's-1'): void {
  const w = store.writer;
  w.beginSession({ id, kind: 'launch', profile: 'demo', profileFile: '/p/demo.yaml', workspace: '/w', hostPid: 4242, startedAt: T0 });
  w.serverRunStarted({ session: id, server: 'files', run: 1, pid: 100, command: 'mcp-server-filesystem /w', cwd: '/w', startedAt: T0 + 1 });
  w.serverState({ session: id, server: 'files', run: 1, ts: T0 + 2, state: 'starting' });
  w.serverState({ session: id, server: 'files', run: 1, ts: T0 + 3, state: 'ready' });
  w.agentSessionStarted({ id: `${id}-a1`, session: id, clientName: 'claude-code', clientVersion: '2.0', transport: 'streamable-http', startedAt: T0 + 4 });
  w.traffic(event({ session: id }));
  w.trafficBatch([event({ session: id, direction: 'server_to_gateway', kind: 'response', method: undefined })]);
  w.stderr(stderrLine({ session: id, line: 'listening on stdio' }));
  w.decision({ ts: T0 + 5, session: id, tool: 'files.read_file', server: 'files', decision: 'ALLOW', outcome: 'allowed', answeredBy: 'policy', rule: 'files.read_*', fingerprint: 'ab12', args: { path: 'README.md' } });
  w.serverRunEnded({ session: id, server: 'files', run: 1, endedAt: T0 + 6, exitCode: 0, signal: null, reason: 'stopped' });
  w.endSession(id, { endedAt: T0 + 7, reason: 'user quit' });
}

describe('opening and migrations', () => {
  it('creates a private data dir and a WAL database at the current schema version', () => {
    const { store } = openTestStore(dir);
    store.close();
    const file = auditDbFile(dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2); // incremental
    const tables = (db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['sessions', 'agent_sessions', 'server_runs', 'server_states', 'messages', 'stderr_lines', 'decisions', 'audit_gaps']));
    db.close();
  });

  it('audit rows exist for a session and survive a restart', () => {
    const first = openTestStore(dir);
    fillSession(first.store);
    first.store.close();
    first.store.close(); // idempotent
    expect(first.errors).toEqual([]);

    const { store, errors } = openTestStore(dir);
    const s = store.getSession('s-1');
    expect(s).toMatchObject({
      id: 's-1', kind: 'launch', profile: 'demo', profileFile: '/p/demo.yaml', workspace: '/w', hostPid: 4242,
      startedAt: T0, endedAt: T0 + 7, endReason: 'user quit', messages: 2, stderrLines: 1, decisions: 1, dropped: 0,
    });
    expect(s?.agentSessions).toEqual([
      { id: 's-1-a1', session: 's-1', clientName: 'claude-code', clientVersion: '2.0', transport: 'streamable-http', startedAt: T0 + 4, endedAt: T0 + 7, endReason: 'session ended' },
    ]);
    const runs = store.serverRuns('s-1');
    expect(runs).toEqual([
      {
        session: 's-1', server: 'files', run: 1, pid: 100, command: 'mcp-server-filesystem /w', cwd: '/w', startedAt: T0 + 1,
        endedAt: T0 + 6, exitCode: 0, endReason: 'stopped',
        states: [{ ts: T0 + 2, state: 'starting' }, { ts: T0 + 3, state: 'ready' }],
      },
    ]);
    expect(store.queryMessages({ session: 's-1' })).toHaveLength(2);
    expect(store.queryStderr({ session: 's-1' })[0]).toMatchObject({ server: 'files', run: 1, line: 'listening on stdio' });
    expect(store.queryDecisions({ session: 's-1' })[0]).toMatchObject({ tool: 'files.read_file', decision: 'ALLOW', outcome: 'allowed', args: { path: 'README.md' } });
    store.close();
    expect(errors).toEqual([]);
  });

  it('refuses a database written by a newer Gatehouse, with a message that says so', () => {
    openTestStore(dir).store.close();
    const file = auditDbFile(dir);
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 3}`);
    db.close();
    expect(() => openAuditStore({ dataDir: dir })).toThrow(AuditSchemaTooNewError);
    expect(() => openAuditStore({ dataDir: dir })).toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} has schema version ${SCHEMA_VERSION + 3}, newer than .* \\(up to ${SCHEMA_VERSION}\\)`),
    );
  });

  it('applies later migrations in order, each in its own transaction', () => {
    openTestStore(dir).store.close();
    const file = auditDbFile(dir);
    const next = SCHEMA_VERSION + 1;
    const v2: Migration = { version: next, name: 'notes', up: (db) => db.exec(`ALTER TABLE sessions ADD COLUMN note TEXT`) };
    const broken: Migration = {
      version: next + 1,
      name: 'half-way',
      up: (db) => {
        db.exec(`CREATE TABLE half (x)`);
        throw new Error('boom in migration 3');
      },
    };
    expect(() => openAuditStore({ file, retention: false, migrations: [...MIGRATIONS, v2, broken] })).toThrow('boom in migration 3');
    const db = new Database(file);
    // The first extra migration stuck, the broken one rolled back whole: no table `half`.
    expect(db.pragma('user_version', { simple: true })).toBe(next);
    expect(db.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'half'`).get()).toEqual({ n: 0 });
    expect(db.prepare(`SELECT count(*) AS n FROM pragma_table_info('sessions') WHERE name = 'note'`).get()).toEqual({ n: 1 });
    expect(migrate(db, file, [...MIGRATIONS, v2])).toEqual([]); // re-open: nothing to do
    expect(() => migrate(db, file, [v2])).toThrow(/expected version 1 at index 0/);
    db.close();
  });
});

describe('the writer', () => {
  it('keeps rows in memory until a flush, then writes them in one transaction', () => {
    const { store, errors } = openTestStore(dir, { flushIntervalMs: 60_000 });
    const reader = new Database(auditDbFile(dir), { readonly: true });
    const count = (): number => (reader.prepare(`SELECT count(*) AS n FROM messages`).get() as { n: number }).n;

    store.writer.beginSession({ id: 's-1', kind: 'gateway' });
    for (let i = 0; i < 3000; i++) store.writer.traffic(event());
    for (let i = 0; i < 250; i++) store.writer.stderr(stderrLine());
    store.writer.stderrBatch(Array.from({ length: 250 }, () => stderrLine()));
    expect(store.writer.stats().queued).toBe(3501);
    expect(count()).toBe(0); // pushes never touch the disk

    const before = store.writer.stats().batches;
    store.flush();
    expect(store.writer.stats()).toMatchObject({ queued: 0, written: 3501, batches: before + 1, dropped: 0, failed: 0 });
    expect(count()).toBe(3000);
    store.flush(); // nothing queued: no empty transaction
    expect(store.writer.stats().batches).toBe(before + 1);
    reader.close();
    store.close();
    expect(errors).toEqual([]);
  });

  it('flushes on its own timer', async () => {
    const { store } = openTestStore(dir);
    const reader = new Database(auditDbFile(dir), { readonly: true });
    store.writer.beginSession({ id: 's-1', kind: 'launch' });
    store.writer.traffic(event());
    await vi.waitFor(() => expect(reader.prepare(`SELECT count(*) AS n FROM messages`).get()).toEqual({ n: 1 }), { timeout: 5_000, interval: 10 });
    reader.close();
    store.close();
  });

  it('works off a backlog in slices on its timer, in order', async () => {
    const { store, errors } = openTestStore(dir, { flushIntervalMs: 60_000, maxRowsPerTick: 100 });
    const reader = new Database(auditDbFile(dir), { readonly: true });
    store.writer.beginSession({ id: 's-1', kind: 'launch' });
    const evs = Array.from({ length: 1000 }, () => event());
    store.writer.trafficBatch(evs);
    // The timer is 60 s away; a first explicit slice starts the chain the way a tick would.
    (store.writer as unknown as { flush(max: number): void }).flush(100);
    expect(store.writer.stats().queued).toBe(901);
    await vi.waitFor(() => expect(store.writer.stats().queued).toBe(0), { timeout: 10_000, interval: 5 });
    expect(store.writer.stats().batches).toBeGreaterThanOrEqual(10);
    const seqs = (reader.prepare(`SELECT tap_seq FROM messages ORDER BY seq`).all() as { tap_seq: number }[]).map((r) => r.tap_seq);
    expect(seqs).toEqual(evs.map((e) => e.seq));
    reader.close();
    store.close();
    expect(errors).toEqual([]);
  });

  it('skips a bad row, reports it, and keeps the rest of the batch', () => {
    const { store, errors } = openTestStore(dir, { flushIntervalMs: 60_000 });
    store.writer.beginSession({ id: 's-1', kind: 'launch' });
    store.writer.serverRunStarted({ session: 'no-such-session', server: 'files', run: 1 }); // foreign key
    store.writer.traffic(event({ message: { big: 10n } })); // JSON.stringify throws on BigInt
    store.writer.traffic(event());
    store.writer.beginSession({ id: 's-1', kind: 'launch' }); // duplicate id
    store.flush();
    expect(store.queryMessages()).toHaveLength(1);
    expect(store.listSessions()).toHaveLength(1);
    expect(store.writer.stats()).toMatchObject({ written: 2, failed: 3 });
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/run 1 of files in session no-such-session: FOREIGN KEY/),
      expect.stringMatching(/session s-1: UNIQUE constraint/),
      expect.stringMatching(/request tools\/call \(gateway_to_server\).*BigInt/),
    ]);
    store.close();
  });

  it('bounds its queue: the oldest traffic goes first, the drop is counted and recorded', () => {
    const { store, errors } = openTestStore(dir, { flushIntervalMs: 60_000, maxQueuedRows: 10 });
    store.writer.beginSession({ id: 's-1', kind: 'launch', startedAt: T0 });
    const evs = Array.from({ length: 20 }, () => event());
    store.writer.trafficBatch(evs);
    expect(store.writer.stats()).toMatchObject({ queued: 10, dropped: 11 });
    store.flush();
    const kept = store.queryMessages({ session: 's-1' });
    expect(kept.map((m) => m.tapSeq)).toEqual(evs.slice(11).map((e) => e.seq)); // the newest nine
    expect(store.queryGaps('s-1')).toEqual([
      { ts: expect.any(Number), session: 's-1', stream: 'messages', dropped: 11, firstTs: evs[0]?.ts, lastTs: evs[10]?.ts },
    ]);
    expect(store.getSession('s-1')?.dropped).toBe(11);

    // With no traffic queued, stderr lines are next; control rows are never dropped.
    for (let i = 0; i < 12; i++) store.writer.stderr(stderrLine());
    for (let i = 0; i < 3; i++) store.writer.serverState({ session: 's-1', server: 'files', state: 'ready' });
    expect(store.writer.stats()).toMatchObject({ queued: 10, dropped: 16 });
    store.flush();
    expect(store.serverRuns('s-1')).toEqual([]); // states without a run row are kept but not listed as runs
    expect(store.queryStderr({ session: 's-1' })).toHaveLength(7);
    expect(store.queryGaps('s-1').map((g) => [g.stream, g.dropped])).toEqual([['messages', 11], ['stderr_lines', 5]]);
    store.close();
    expect(errors).toEqual([]);
  });

  it('keeps a batch that failed as a whole (write lock held elsewhere) and writes it later', () => {
    const { store, errors } = openTestStore(dir, { flushIntervalMs: 60_000, busyTimeoutMs: 20 });
    const other = new Database(auditDbFile(dir));
    other.prepare('BEGIN IMMEDIATE').run(); // another process holds the write lock
    store.writer.beginSession({ id: 's-1', kind: 'launch' });
    store.writer.traffic(event());
    store.flush();
    expect(store.writer.stats()).toMatchObject({ queued: 2, written: 0, failed: 0 });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/audit write failed, will retry: database is locked/)]);
    store.flush(); // still locked: no second report
    expect(errors).toHaveLength(1);

    other.prepare('COMMIT').run();
    other.close();
    store.flush();
    expect(store.writer.stats()).toMatchObject({ queued: 0, written: 2 });
    expect(store.queryMessages()).toHaveLength(1);
    expect(errors.map((e) => e.message)[1]).toMatch(/audit writes resumed/);
    store.close();
  });

  it('never throws into its callers, even after close', () => {
    const { store, errors } = openTestStore(dir);
    store.close();
    expect(() => {
      store.writer.traffic(event());
      store.writer.beginSession({ id: 'late', kind: 'serve' });
      store.flush();
    }).not.toThrow();
    expect(errors.map((e) => e.message)).toEqual(['audit row written after the store was closed; ignored']);
    expect(() => store.queryMessages()).toThrow(/is closed/);
  });
});

describe('readers and writers at once (WAL)', () => {
  it('a second connection reads a consistent snapshot while the writer commits', () => {
    const writer = openTestStore(dir, { flushIntervalMs: 60_000 });
    writer.store.writer.beginSession({ id: 's-1', kind: 'launch' });
    for (let i = 0; i < 50; i++) writer.store.writer.traffic(event());
    writer.store.flush();

    const reader = new Database(auditDbFile(dir), { readonly: true });
    const it = reader.prepare(`SELECT seq FROM messages ORDER BY seq`).iterate() as IterableIterator<{ seq: number }>;
    const firstRow = it.next(); // the read transaction is now open
    expect(firstRow.done).toBe(false);

    // In rollback-journal mode this commit would fail with SQLITE_BUSY (a reader holds SHARED).
    for (let i = 0; i < 50; i++) writer.store.writer.traffic(event());
    writer.store.flush();
    expect(writer.errors).toEqual([]);

    let seen = 1;
    for (let r = it.next(); !r.done; r = it.next()) seen++;
    expect(seen).toBe(50); // the snapshot taken before the commit
    expect(reader.prepare(`SELECT count(*) AS n FROM messages`).get()).toEqual({ n: 100 });

    // And a second store on the same file sees the writer's rows.
    const other = openTestStore(dir);
    expect(other.store.queryMessages({ limit: 1000 })).toHaveLength(100);
    other.store.close();
    reader.close();
    writer.store.close();
  });
});

describe('exchanges (one row per call)', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => removeDir(dir));

  it('upserts a call from pending to its end: one row, the latest state, queryable by outcome and decider', () => {
    const { store, errors } = openTestStore(dir, { flushIntervalMs: 60_000 });
    const w = store.writer;
    w.beginSession({ id: 's-x', kind: 'launch', startedAt: T0 });
    const base = { id: 'a#1', ts: T0 + 1, session: 's-x', agentSession: 'a', kind: 'call' as const, method: 'tools/call', tool: 'files.write' };
    w.exchange({ ...base, outcome: 'pending', decision: 'APPROVAL' });
    w.exchange({ ...base, outcome: 'denied', decision: 'APPROVAL', decidedBy: 'person', answeredBy: 'alice', latencyMs: 12 });
    store.flush();
    expect(store.queryCalls({})).toMatchObject([{ id: 'a#1', outcome: 'denied', decidedBy: 'person', answeredBy: 'alice', latencyMs: 12 }]);
    // A later change of the same call (after a flush) updates that row, never a second one.
    w.exchange({ ...base, id: 'a#2', outcome: 'pending' });
    store.flush();
    w.exchange({ ...base, id: 'a#2', outcome: 'ok', decision: 'ALLOW', decidedBy: 'rule' });
    store.flush();
    expect(store.queryCalls({}).map((c) => [c.id, c.outcome])).toEqual([
      ['a#1', 'denied'],
      ['a#2', 'ok'],
    ]);
    expect(store.queryCalls({ outcome: 'denied' }).map((c) => c.id)).toEqual(['a#1']);
    expect(store.queryCalls({ decidedBy: 'rule' }).map((c) => c.id)).toEqual(['a#2']);
    expect(store.queryCalls({ text: 'alice' }).map((c) => c.id)).toEqual(['a#1']);
    store.close();
    expect(errors).toEqual([]);
  });
});
