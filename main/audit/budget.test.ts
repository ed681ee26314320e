// The audit store's byte budgets (docs/audit.md "Audit store"): truncated big messages with their hash, faults
// counted past a rate, the size cap pruning oldest first, the writer's queue bounded in bytes,
// and sessions a crashed host left open closed as `crashed`. Real SQLite files.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLimitsFromEnv, FaultRate, pruneToSize, storeBytes, storedMessageText } from './budget';
import { auditDbFile, openAuditStore } from './store';
import { event, openTestStore, removeDir, T0, tempDir } from './test-support';

const dirs: string[] = [];
const dir = (): string => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('per-message limit', () => {
  it('stores a message over the limit truncated, with its full size and SHA-256', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'é'.repeat(200_000) } });
    const stored = JSON.parse(storedMessageText(text, 64 * 1024)!) as { truncated: boolean; bytes: number; sha256: string; head: string };
    expect(stored.truncated).toBe(true);
    expect(stored.bytes).toBe(Buffer.byteLength(text));
    expect(stored.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(text.startsWith(stored.head)).toBe(true);
    expect(storedMessageText('{"small":true}', 64 * 1024)).toBe('{"small":true}');
  });

  it('the writer applies it to every stored message', () => {
    const d = dir();
    const { store } = openTestStore(d, { limits: { maxMessageBytes: 10_000 } });
    const big = { jsonrpc: '2.0', id: 5, result: { text: 'x'.repeat(50_000) } };
    store.writer.traffic(event({ kind: 'response', id: 5, bytes: 50_050, message: big }));
    store.flush();
    const [row] = store.queryMessages({ session: 's-1' });
    expect(row!.message).toMatchObject({ truncated: true, sha256: createHash('sha256').update(JSON.stringify(big)).digest('hex') });
    store.close();
  });
});

describe('fault rate', () => {
  it('stores the first faults of each second and counts the rest as a gap', () => {
    const rate = new FaultRate(3);
    const admitted = Array.from({ length: 10 }, (_, i) => rate.admit('s', 'bad', T0 + i)).filter(Boolean).length;
    expect(admitted).toBe(3);
    expect(rate.takeCounted()).toEqual([{ session: 's', dropped: 7, firstTs: T0 + 3, lastTs: T0 + 9 }]);
    expect(rate.admit('s', 'bad', T0 + 1500)).toBe(true); // a new second
  });

  it('a flood of 10,000 garbage lines stores a handful of rows and one count', () => {
    const d = dir();
    const { store } = openTestStore(d, { limits: { faultsPerSecond: 20 } });
    const evs = Array.from({ length: 10_000 }, (_, i) =>
      event({ ts: T0 + i / 100, kind: 'fault', direction: 'server_to_gateway', bytes: 2048, message: { raw: 'garbage' }, fault: 'not JSON' }),
    );
    store.writer.trafficBatch(evs);
    store.flush();
    const rows = store.queryMessages({ session: 's-1', limit: 100_000 } as never);
    const gaps = store.queryGaps('s-1').filter((g) => g.stream === 'faults');
    expect(rows.length).toBeLessThanOrEqual(20 * 2);
    expect(rows.length + gaps.reduce((n, g) => n + g.dropped, 0)).toBe(10_000);
    store.close();
  });
});

describe('queue and store size', () => {
  it('the writer holds at most its byte budget of traffic in memory; the rest is counted', () => {
    const d = dir();
    const { store } = openTestStore(d, { limits: { maxQueuedBytes: 1_000_000 }, flushIntervalMs: 60_000 });
    for (let i = 0; i < 100; i++) store.writer.traffic(event({ bytes: 100_000, message: { n: i } }));
    expect(store.writer.stats().queued).toBeLessThanOrEqual(10);
    store.flush();
    const dropped = store.queryGaps('s-1').filter((g) => g.stream === 'messages').reduce((n, g) => n + g.dropped, 0);
    expect(dropped).toBeGreaterThanOrEqual(90);
    store.close();
  });

  it('past its size cap the store prunes the oldest messages first', () => {
    const d = dir();
    const { store } = openTestStore(d);
    const filler = 'y'.repeat(4000);
    for (let i = 0; i < 2000; i++) store.writer.traffic(event({ id: i, message: { i, filler } }));
    store.close();
    const db = new Database(auditDbFile(d));
    const before = storeBytes(db);
    expect(before).toBeGreaterThan(6_000_000);
    const deleted = pruneToSize(db, 2_000_000, 200);
    expect(deleted).toBeGreaterThan(0);
    expect(storeBytes(db)).toBeLessThanOrEqual(2_000_000);
    const oldest = db.prepare(`SELECT min(CAST(rpc_id AS INTEGER)) AS m FROM messages`).get() as { m: number };
    expect(oldest.m).toBeGreaterThan(0); // the first rows went first
    db.close();
  });

  it('GATEHOUSE_AUDIT_* configure the limits; a bad value is reported and ignored', () => {
    const said: string[] = [];
    const limits = auditLimitsFromEnv({ GATEHOUSE_AUDIT_MAX_STORE_MB: '10', GATEHOUSE_AUDIT_MAX_MESSAGE_BYTES: 'lots' }, (m) => said.push(m));
    expect(limits.maxStoreBytes).toBe(10 * 1024 * 1024);
    expect(limits.maxMessageBytes).toBe(256 * 1024);
    expect(said[0]).toMatch(/GATEHOUSE_AUDIT_MAX_MESSAGE_BYTES: expected a positive number, got "lots"/);
  });
});

describe('crashed sessions', () => {
  it('a session whose host is gone is closed as crashed at the next open; a live host is left alone', () => {
    const d = dir();
    const { store } = openTestStore(d);
    // Recent times: the next open also applies retention (30 days by default).
    const t = Date.now() - 60_000;
    store.writer.beginSession({ id: 'dead', kind: 'gateway', hostPid: 2 ** 22 + 12345, startedAt: t });
    store.writer.beginSession({ id: 'live', kind: 'gateway', hostPid: process.ppid, startedAt: t });
    store.writer.serverRunStarted({ session: 'dead', server: 'files', run: 1, startedAt: t });
    store.writer.traffic(event({ session: 'dead', ts: t + 500 }));
    store.close();
    const next = openAuditStore({ dataDir: d });
    try {
      const dead = next.getSession('dead')!;
      expect(dead.endReason).toMatch(/^crashed: the host \(pid \d+\) ended without closing this session$/);
      expect(dead.endedAt).toBe(t + 500);
      expect(next.serverRuns('dead')[0]).toMatchObject({ endReason: 'crashed' });
      expect(next.getSession('live')!.endedAt).toBeUndefined();
    } finally {
      next.close();
    }
  });
});
