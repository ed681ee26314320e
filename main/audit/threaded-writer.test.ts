// The audit writer thread with its crash promise kept (docs/audit.md "Audit store"): a real Worker, a real SQLite
// file, a real process killed by SIGKILL at the commit point of an answer.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBundle, type TestBundle } from '../../tests/support/build';
import { tempDir } from '../../tests/support/temp';
import { decodeChunks, chunkHeader, chunkTrailer, encodeOp } from './chunk-codec';
import { journalDir } from './journal';
import { openAuditStore } from './store';
import type { TrafficEvent } from '../protocol/types';
import { attachJsonText } from '../protocol/json-text';

let bundle: TestBundle;
beforeAll(() => {
  bundle = buildTestBundle({ 'audit-writer': 'main/audit/writer-thread.ts', 'crash-child': 'tests/fixtures/audit/crash-child.ts' }, 'audit-thread');
});
afterAll(() => bundle?.cleanup());

function response(session: string, id: number, text: string): TrafficEvent {
  const message = JSON.parse(text) as unknown;
  const ev: TrafficEvent = { seq: id, ts: Date.now(), session, direction: 'gateway_to_agent', kind: 'response', id, bytes: Buffer.byteLength(text), message };
  attachJsonText(ev, message, text);
  return ev;
}

describe('chunk codec', () => {
  it('carries a message text as it is, newlines and all, and ignores a chunk cut short', () => {
    // Not JSON.stringify's output: the kept text is what the wire carried (spaces, a raw newline
    // in an HTTP body), and it must reach the store unchanged.
    const text = '{"jsonrpc":"2.0", "id":1,\n "result":{"t":"a\\nb ✓ \\ud83d\\ude00"}}';
    const ev = response('s', 1, text);
    const body = encodeOp(['t', ev]) + encodeOp(['sessionEnd', 's', { endedAt: 5 }]);
    const whole = chunkHeader(1, 'r', 2) + body + chunkTrailer(1);
    const cut = chunkHeader(2, 'r', 2) + body.slice(0, body.length - 3);
    const { chunks, complete } = decodeChunks(whole + cut);
    expect(complete).toBe(false);
    expect(chunks).toHaveLength(1);
    const [t, end] = chunks[0]!.ops;
    expect(t![0]).toBe('t');
    const got = t![1] as TrafficEvent;
    expect(got.id).toBe(1);
    expect(end).toEqual(['sessionEnd', 's', { endedAt: 5 }]);
    expect(decodeChunks(whole).complete).toBe(true);
  });
});

describe('ThreadedWriter', () => {
  it('writes on the writer thread, reads see their own writes, and a message is stored byte for byte', () => {
    const tmp = tempDir('gatehouse-thread-');
    try {
      const file = path.join(tmp.dir, 'a.db');
      const store = openAuditStore({ file, retention: false, thread: { entry: bundle.entry('audit-writer') } });
      expect(store.writer.constructor.name).toBe('ThreadedWriter');
      store.writer.beginSession({ id: 's1', kind: 'gateway', profile: 'p' });
      const texts: string[] = [];
      for (let i = 1; i <= 500; i++) {
        const text = `{"jsonrpc":"2.0","id":${i},"result":{"content":[{"type":"text","text":"row ${i}\\nsecond line ✓"}]}}`;
        texts.push(text);
        store.writer.traffic(response('s1', i, text));
      }
      // No flush from us: the query waits for the thread (read-your-writes).
      const rows = store.queryMessages({ session: 's1', limit: 1000 });
      expect(rows).toHaveLength(500);
      expect(rows.map((r) => r.message)).toEqual(texts.map((t) => JSON.parse(t)));
      // On disk: the very text the tap kept, not a re-serialisation.
      const raw = new Database(file, { readonly: true });
      expect(raw.prepare(`SELECT message FROM messages WHERE session = 's1' ORDER BY seq`).pluck().all()).toEqual(texts);
      raw.close();
      expect(store.writer.stats()).toMatchObject({ queued: 0, written: 501, dropped: 0, failed: 0 });
      store.close();
      // A clean close leaves no journal behind, and no bookmark of its run.
      expect(fs.readdirSync(journalDir(file))).toEqual([]);
      const after = new Database(file, { readonly: true });
      expect(after.prepare(`SELECT count(*) AS n FROM audit_journal`).get()).toEqual({ n: 0 });
      after.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('keeps an answered call that the thread could not commit when the host is SIGKILLed', () => {
    const tmp = tempDir('gatehouse-thread-crash-');
    try {
      const file = path.join(tmp.dir, 'crash.db');
      // Created and migrated first, as the host would have.
      openAuditStore({ file, retention: false }).close();
      const r = spawnSync(process.execPath, [bundle.entry('crash-child'), file, bundle.entry('audit-writer')], { encoding: 'utf8', timeout: 60_000 });
      expect(r.signal).toBe('SIGKILL');
      expect(r.stdout).toContain('journaled');
      // The writer thread never got the lock: nothing of it is in SQLite yet.
      const raw = new Database(file, { readonly: true });
      expect(raw.prepare(`SELECT count(*) AS n FROM messages`).get()).toEqual({ n: 0 });
      raw.close();
      expect(fs.readdirSync(journalDir(file)).length).toBe(2);

      const errors: string[] = [];
      const store = openAuditStore({ file, retention: false, recoverCrashed: true, onError: (e) => errors.push(e.message) });
      const [row] = store.queryMessages({ session: 'crash-s' });
      expect(row?.message).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'line one\nline two ✓ 7' }] } });
      expect(store.queryCalls({ session: 'crash-s' }).map((c) => c.id)).toEqual(['crash-s#7']);
      // Closed as crashed after the replay, like any session of a host that died.
      expect(store.listSessions().find((s) => s.id === 'crash-s')?.endReason).toMatch(/^crashed/);
      expect(errors.join('\n')).toMatch(/recovered 3 audit rows/);
      expect(fs.readdirSync(journalDir(file))).toEqual([]);
      store.close();
      // Replayed once: a second open finds nothing to do.
      const again = openAuditStore({ file, retention: false, recoverCrashed: true });
      expect(again.queryMessages({ session: 'crash-s' })).toHaveLength(1);
      again.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('recovers an answer journaled into a file that was emptied and reused, without storing committed calls twice', () => {
    const tmp = tempDir('gatehouse-thread-rotate-');
    try {
      const file = path.join(tmp.dir, 'rotate.db');
      openAuditStore({ file, retention: false }).close();
      // 40 calls journaled and committed one by one, a journal file reused every ~2 KB, then the
      // 41st answer journaled while the thread is locked out, then SIGKILL.
      const r = spawnSync(process.execPath, [bundle.entry('crash-child'), file, bundle.entry('audit-writer'), '40'], { encoding: 'utf8', timeout: 60_000 });
      expect(r.signal).toBe('SIGKILL');
      const raw = new Database(file, { readonly: true });
      expect(raw.prepare(`SELECT count(*) AS n FROM messages`).get()).toEqual({ n: 40 });
      raw.close();
      const store = openAuditStore({ file, retention: false, recoverCrashed: true, onError: () => {} });
      const ids = store.queryMessages({ session: 'crash-s', limit: 1000 }).map((m) => Number(m.id));
      expect(ids).toHaveLength(41);
      expect(new Set(ids).size).toBe(41);
      expect(ids).toContain(7);
      expect(store.queryCalls({ session: 'crash-s', limit: 1000 })).toHaveLength(41);
      store.close();
      // The bookmark of the dead run is gone once its journal is replayed.
      const after = new Database(file, { readonly: true });
      expect(after.prepare(`SELECT count(*) AS n FROM audit_journal`).get()).toEqual({ n: 0 });
      after.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('bounds what the thread has not taken yet: a stalled disk drops traffic into a gap, never memory', () => {
    const tmp = tempDir('gatehouse-thread-bound-');
    try {
      const file = path.join(tmp.dir, 'b.db');
      openAuditStore({ file, retention: false }).close();
      const blocker = new Database(file, { timeout: 1 });
      const errors: string[] = [];
      const store = openAuditStore({
        file,
        retention: false,
        busyTimeoutMs: 200,
        limits: { maxQueuedBytes: 64 * 1024 },
        onError: (e) => errors.push(e.message),
        thread: { entry: bundle.entry('audit-writer') },
      });
      blocker.exec('BEGIN IMMEDIATE');
      store.writer.beginSession({ id: 'b', kind: 'gateway' });
      const big = `{"jsonrpc":"2.0","id":1,"result":{"t":"${'x'.repeat(4000)}"}}`;
      for (let i = 0; i < 200; i++) {
        store.writer.traffic(response('b', i, big));
        if (i % 10 === 0) store.writer.commitPoint();
      }
      blocker.exec('COMMIT');
      blocker.close();
      // Once the lock is gone everything admitted is written, and the rest is on record as a gap:
      // 200 rows of 4 KB against 64 KB bounds on both sides of the thread.
      let rows = store.queryMessages({ session: 'b', limit: 1000 });
      for (let i = 0; i < 100 && rows.length + store.writer.stats().dropped < 200; i++) rows = store.queryMessages({ session: 'b', limit: 1000 });
      const st = store.writer.stats();
      expect(rows.length + st.dropped).toBe(200);
      expect(st.dropped).toBeGreaterThan(100);
      expect(st.queued).toBe(0);
      const gaps = store.queryGaps('b');
      expect(gaps.reduce((n, g) => n + g.dropped, 0)).toBe(store.writer.stats().dropped);
      store.close();
    } finally {
      tmp.cleanup();
    }
  });
});
