import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrafficDirection } from '../protocol/types';
import { clampLimit, parseTimeBound } from './queries';
import type { AuditStore } from './store';
import { T0, event, openTestStore, removeDir, stderrLine, tempDir } from './test-support';

let dir: string;
let store: AuditStore;

const MIN = 60_000;
const dirs: TrafficDirection[] = ['agent_to_gateway', 'gateway_to_server', 'server_to_gateway', 'gateway_to_agent'];

// Two sessions. alpha: 40 messages, one a minute, cycling through two servers and four
// directions; every 10th is a resources/read with the word "needle" in it, #7 is a fault.
// beta: 5 messages.
beforeEach(() => {
  dir = tempDir();
  store = openTestStore(dir, { flushIntervalMs: 60_000 }).store;
  const w = store.writer;
  w.beginSession({ id: 'alpha-1111', kind: 'launch', profile: 'demo', startedAt: T0 });
  w.beginSession({ id: 'beta-2222', kind: 'gateway', profile: 'work', startedAt: T0 + 100 * MIN });
  w.beginSession({ id: 'alpine-333', kind: 'serve', profile: 'demo', startedAt: T0 + 50 * MIN });
  for (let i = 0; i < 40; i++) {
    const fault = i === 7;
    w.traffic(
      event({
        ts: T0 + i * MIN,
        session: 'alpha-1111',
        server: i % 2 ? 'memory' : 'files',
        direction: dirs[i % 4],
        kind: fault ? 'fault' : 'request',
        method: fault ? undefined : i % 10 === 0 ? 'resources/read' : i % 3 ? 'tools/call' : 'tools/list',
        message: fault ? { raw: 'Debugger listening' } : { jsonrpc: '2.0', id: i, method: 'x', params: { q: i % 10 === 0 ? 'the NEEDLE here' : 'hay' } },
        fault: fault ? 'not JSON' : undefined,
        id: i,
      }),
    );
  }
  for (let i = 0; i < 5; i++) w.traffic(event({ ts: T0 + 100 * MIN + i, session: 'beta-2222', server: 'files', method: 'tools/call' }));
  for (let i = 0; i < 6; i++) {
    w.stderr(stderrLine({ ts: T0 + i * MIN, session: 'alpha-1111', server: i < 3 ? 'files' : 'memory', run: i < 5 ? 1 : 2, line: i === 4 ? 'ERROR: crashed' : `info ${i}` }));
  }
  const decisions = [
    { tool: 'files.read_file', decision: 'ALLOW', outcome: 'allowed', args: { path: 'a.txt' } },
    { tool: 'files.write_file', decision: 'APPROVAL', outcome: 'timeout', reason: 'no answer within 120 s', args: { path: 'secret-plan.md' } },
    { tool: 'memory.create_entities', decision: 'DENY', outcome: 'denied', reason: 'rule: deny memory.*' },
  ] as const;
  decisions.forEach((d, i) => w.decision({ ts: T0 + i * MIN, session: 'alpha-1111', server: d.tool.split('.')[0], ...d }));
  w.decision({ ts: T0 + 100 * MIN, session: 'beta-2222', tool: 'fs.read', decision: 'ALLOW', outcome: 'allowed' });
  store.flush();
});
afterEach(() => {
  store.close();
  removeDir(dir);
});

const ids = (rows: { id?: string }[]): string[] => rows.map((r) => r.id ?? '?');

describe('queryMessages', () => {
  it('returns rows oldest first, with camelCase fields and the message parsed', () => {
    const rows = store.queryMessages({ session: 'alpha-1111', limit: 2 });
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ ts: T0, session: 'alpha-1111', server: 'files', direction: 'agent_to_gateway', kind: 'request', method: 'resources/read', id: '0', bytes: 100 });
    expect(rows[0]?.message).toEqual({ jsonrpc: '2.0', id: 0, method: 'x', params: { q: 'the NEEDLE here' } });
    expect(rows[0]).not.toHaveProperty('fault'); // NULLs are omitted
    expect(rows[1]!.seq).toBeGreaterThan(rows[0]!.seq);
  });

  it('filters by session, server, direction, kind, exact method and method glob', () => {
    expect(store.queryMessages({ session: 'beta-2222' })).toHaveLength(5);
    expect(store.queryMessages({ session: 'alpha-1111', server: 'memory' })).toHaveLength(20);
    expect(store.queryMessages({ session: 'alpha-1111', direction: 'server_to_gateway' }).every((m) => m.direction === 'server_to_gateway')).toBe(true);
    expect(store.queryMessages({ session: 'alpha-1111', direction: 'server_to_gateway' })).toHaveLength(10);
    expect(store.queryMessages({ kind: 'fault' }).map((m) => [m.id, m.fault])).toEqual([['7', 'not JSON']]);
    expect(ids(store.queryMessages({ method: 'resources/read' }))).toEqual(['0', '10', '20', '30']);
    const tools = store.queryMessages({ session: 'alpha-1111', method: 'tools/*' });
    expect(tools).toHaveLength(35); // 40 - 4 resources/read - 1 fault
    expect(tools.every((m) => m.method?.startsWith('tools/'))).toBe(true);
    expect(store.queryMessages({ method: 'tools/?all' })).toEqual([]); // only * is a wildcard
  });

  it('filters by time range given as epoch ms, ISO 8601 or a duration back from now', () => {
    const iso = (ms: number): string => new Date(ms).toISOString();
    expect(ids(store.queryMessages({ session: 'alpha-1111', since: T0 + 37 * MIN }))).toEqual(['37', '38', '39']);
    expect(ids(store.queryMessages({ session: 'alpha-1111', since: iso(T0 + 2 * MIN), until: iso(T0 + 5 * MIN) }))).toEqual(['2', '3', '4']);
    expect(ids(store.queryMessages({ session: 'alpha-1111', until: String(T0 + 2 * MIN) }))).toEqual(['0', '1']);
    // A store-level call uses the real clock: all of this data is older than a day.
    expect(store.queryMessages({ since: '1d' })).toEqual([]);
    expect(store.queryMessages({ until: '1d' })).toHaveLength(45);
  });

  it('searches text in the method, the message and the fault, case-insensitively', () => {
    expect(ids(store.queryMessages({ text: 'needle' }))).toEqual(['0', '10', '20', '30']);
    expect(ids(store.queryMessages({ text: 'debugger LISTENING' }))).toEqual(['7']);
    expect(ids(store.queryMessages({ text: 'not json' }))).toEqual(['7']);
    expect(store.queryMessages({ text: 'tools/list', session: 'alpha-1111' }).every((m) => m.method === 'tools/list')).toBe(true);
    expect(store.queryMessages({ text: '100%' })).toEqual([]); // % and _ are literal
    expect(store.queryMessages({ text: 'h_y' })).toEqual([]);
  });

  it('pages forwards with afterSeq and backwards with latest + beforeSeq', () => {
    const all = store.queryMessages({ session: 'alpha-1111', limit: 1000 }).map((m) => m.seq);
    expect(all).toHaveLength(40);
    const forward: number[] = [];
    let after: number | undefined;
    for (;;) {
      const page = store.queryMessages({ session: 'alpha-1111', afterSeq: after, limit: 15 });
      if (!page.length) break;
      forward.push(...page.map((m) => m.seq));
      after = page[page.length - 1]!.seq;
    }
    expect(forward).toEqual(all);

    const newest = store.queryMessages({ session: 'alpha-1111', latest: true, limit: 15 });
    expect(newest.map((m) => m.seq)).toEqual(all.slice(25)); // still oldest first
    const before = store.queryMessages({ session: 'alpha-1111', latest: true, beforeSeq: newest[0]!.seq, limit: 15 });
    expect(before.map((m) => m.seq)).toEqual(all.slice(10, 25));
    expect(store.queryMessages({ session: 'alpha-1111', afterSeq: all[4], beforeSeq: all[8] }).map((m) => m.seq)).toEqual(all.slice(5, 8));
  });

  it('defaults the limit to 200 and caps it at 10000', () => {
    expect(clampLimit(undefined)).toBe(200);
    expect(clampLimit(50_000)).toBe(10_000);
    expect(clampLimit(0)).toBe(1);
    expect(store.queryMessages({ limit: 3 })).toHaveLength(3);
  });
});

describe('parseTimeBound', () => {
  const now = Date.UTC(2025, 5, 1);
  it('reads numbers, numeric strings, ISO times and durations', () => {
    expect(parseTimeBound(123)).toBe(123);
    expect(parseTimeBound('1736942400000')).toBe(1736942400000);
    expect(parseTimeBound('2025-01-15T12:00:00Z')).toBe(T0);
    expect(parseTimeBound('15m', now)).toBe(now - 15 * MIN);
    expect(parseTimeBound('2h', now)).toBe(now - 2 * 60 * MIN);
    expect(parseTimeBound('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseTimeBound('90s', now)).toBe(now - 90_000);
  });
  it('says what it expected', () => {
    expect(() => parseTimeBound('yesterday-ish')).toThrow(/expected epoch ms, an ISO 8601 time or a duration .*got 'yesterday-ish'/);
    expect(() => parseTimeBound(Number.NaN)).toThrow(RangeError);
  });
});

describe('queryStderr and queryDecisions', () => {
  it('filters stderr by session, server, run, time and text', () => {
    expect(store.queryStderr({ session: 'alpha-1111' })).toHaveLength(6);
    expect(store.queryStderr({ server: 'memory' }).map((l) => l.line)).toEqual(['info 3', 'ERROR: crashed', 'info 5']);
    expect(store.queryStderr({ server: 'memory', run: 2 }).map((l) => l.line)).toEqual(['info 5']);
    expect(store.queryStderr({ text: 'error' }).map((l) => l.line)).toEqual(['ERROR: crashed']);
    expect(store.queryStderr({ since: T0 + 4 * MIN }).map((l) => l.line)).toEqual(['ERROR: crashed', 'info 5']);
    const [a, b] = store.queryStderr({ limit: 2 });
    expect(store.queryStderr({ afterSeq: a!.seq, limit: 1 })[0]?.seq).toBe(b!.seq);
    expect(store.queryStderr({ latest: true, limit: 1 })[0]?.line).toBe('info 5');
  });

  it('filters decisions by session, server, tool (glob), decision, time and text over reason and args', () => {
    expect(store.queryDecisions({ session: 'alpha-1111' })).toHaveLength(3);
    expect(store.queryDecisions({ tool: 'files.*' }).map((d) => d.outcome)).toEqual(['allowed', 'timeout']);
    expect(store.queryDecisions({ decision: 'DENY' })[0]).toMatchObject({ tool: 'memory.create_entities', reason: 'rule: deny memory.*', server: 'memory' });
    expect(store.queryDecisions({ server: 'memory' })).toHaveLength(1);
    expect(store.queryDecisions({ text: 'secret-plan' })[0]).toMatchObject({ tool: 'files.write_file', args: { path: 'secret-plan.md' } });
    expect(store.queryDecisions({ text: 'no answer' })).toHaveLength(1);
    expect(store.queryDecisions({ since: T0 + 50 * MIN }).map((d) => d.session)).toEqual(['beta-2222']);
  });
});

describe('sessions', () => {
  it('lists newest first with counts, by profile, limited', () => {
    const all = store.listSessions();
    expect(all.map((s) => s.id)).toEqual(['beta-2222', 'alpine-333', 'alpha-1111']);
    expect(all[2]).toMatchObject({ messages: 40, stderrLines: 6, decisions: 3, dropped: 0, profile: 'demo', kind: 'launch' });
    expect(store.listSessions({ profile: 'demo' }).map((s) => s.id)).toEqual(['alpine-333', 'alpha-1111']);
    expect(store.listSessions({ limit: 1 }).map((s) => s.id)).toEqual(['beta-2222']);
    expect(store.getSession('nope')).toBeUndefined();
  });

  it('resolves latest, exact ids and unambiguous prefixes', () => {
    expect(store.resolveSession('latest')).toEqual({ id: 'beta-2222' });
    expect(store.resolveSession('alpha-1111')).toEqual({ id: 'alpha-1111' });
    expect(store.resolveSession('alph')).toEqual({ id: 'alpha-1111' });
    expect(store.resolveSession('al')).toEqual({ error: expect.stringMatching(/'al' is ambiguous: alpine-333, alpha-1111/) });
    expect(store.resolveSession('zz')).toEqual({ error: "no such session 'zz'" });
    expect(store.resolveSession('%')).toEqual({ error: "no such session '%'" });
  });

  it('ending a session closes its open runs; runs list their state changes', () => {
    const w = store.writer;
    w.serverRunStarted({ session: 'beta-2222', server: 'files', run: 1, pid: 11, startedAt: T0 });
    w.serverRunEnded({ session: 'beta-2222', server: 'files', run: 1, endedAt: T0 + 5, exitCode: null, signal: 'SIGKILL', reason: 'crashed' });
    w.serverRunStarted({ session: 'beta-2222', server: 'files', run: 2, pid: 12, startedAt: T0 + 6 });
    w.serverState({ session: 'beta-2222', server: 'files', run: 2, state: 'restarting', reason: 'backoff 500 ms', ts: T0 + 6 });
    w.serverState({ session: 'beta-2222', server: 'files', run: 2, state: 'ready', ts: T0 + 7 });
    w.endSession('beta-2222', { endedAt: T0 + 9, reason: 'SIGINT' });
    const runs = store.serverRuns('beta-2222');
    expect(runs.map((r) => [r.run, r.pid, r.signal, r.endReason, r.endedAt])).toEqual([
      [1, 11, 'SIGKILL', 'crashed', T0 + 5],
      [2, 12, undefined, 'session ended', T0 + 9],
    ]);
    expect(runs[1]?.states).toEqual([{ ts: T0 + 6, state: 'restarting', reason: 'backoff 500 ms' }, { ts: T0 + 7, state: 'ready' }]);
    expect(store.getSession('beta-2222')).toMatchObject({ endedAt: T0 + 9, endReason: 'SIGINT' });
  });
});

describe('exportJsonl', () => {
  function collect(): { out: PassThrough; text: () => string } {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    return { out, text: () => Buffer.concat(chunks).toString('utf8') };
  }

  it('streams every matching row as one JSON object per line, across pages, honouring backpressure', async () => {
    for (let i = 0; i < 2500; i++) store.writer.traffic(event({ session: 'beta-2222', message: { i, text: 'line\nbreak "quoted" ☃' } }));
    const lines: string[] = [];
    let pending = '';
    let writes = 0;
    // A slow consumer with a tiny buffer: write() returns false and the export must wait.
    const slow = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _enc, cb) {
        writes++;
        pending += chunk.toString('utf8');
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        lines.push(...parts);
        setImmediate(cb);
      },
    });
    const n = await store.exportJsonl({ session: 'beta-2222' }, slow);
    expect(n).toBe(2505);
    expect(writes).toBeGreaterThanOrEqual(3); // pages of 1000
    expect(pending).toBe('');
    const rows = lines.map((l) => JSON.parse(l) as { seq: number; session: string; message: { i?: number } });
    expect(rows).toHaveLength(2505);
    expect(rows.every((r) => r.session === 'beta-2222')).toBe(true);
    expect(rows.map((r) => r.seq)).toEqual([...rows.map((r) => r.seq)].sort((a, b) => a - b));
    expect(rows[2504]?.message).toEqual({ i: 2499, text: 'line\nbreak "quoted" ☃' });
  });

  it('applies filters and a total limit, and exports stderr and decisions too', async () => {
    const a = collect();
    expect(await store.exportJsonl({ session: 'alpha-1111', server: 'files', limit: 7 }, a.out)).toBe(7);
    expect(a.text().trimEnd().split('\n').map((l) => (JSON.parse(l) as { server: string }).server)).toEqual(Array(7).fill('files'));
    const b = collect();
    expect(await store.exportJsonl({ text: 'crashed' }, b.out, 'stderr')).toBe(1);
    expect(JSON.parse(b.text())).toMatchObject({ line: 'ERROR: crashed', server: 'memory', run: 1 });
    const c = collect();
    expect(await store.exportJsonl({ decision: 'APPROVAL' }, c.out, 'decisions')).toBe(1);
    expect(JSON.parse(c.text())).toMatchObject({ tool: 'files.write_file', outcome: 'timeout' });
    const d = collect();
    expect(await store.exportJsonl({ session: 'nobody' }, d.out)).toBe(0);
    expect(d.text()).toBe('');
  });
});
