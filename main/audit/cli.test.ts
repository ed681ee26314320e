// `gatehouse audit …` as a user runs it: the bundled CLI (the real dispatcher in
// main/cli/index.ts and the real audit command) in a child process, against a database
// this test filled. The bundle is private (tests/support/build.ts): out/ is shared with
// every other build.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildTestBundle, type TestBundle } from '../../tests/support/build';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCHEMA_VERSION } from './migrations';
import { auditDbFile } from './store';
import { T0, event, openTestStore, removeDir, stderrLine, tempDir } from './test-support';

let work: string;
let cli: string;
let data: string;

let bundle: TestBundle;

beforeAll(async () => {
  work = tempDir();
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'audit-cli-test');
  cli = bundle.entry('cli');

  data = path.join(work, 'data');
  const { store } = openTestStore(data, { flushIntervalMs: 60_000 });
  const w = store.writer;
  w.beginSession({ id: 'aaaa1111-first', kind: 'launch', profile: 'demo', startedAt: T0 });
  w.serverRunStarted({ session: 'aaaa1111-first', server: 'files', run: 1, pid: 321, command: 'mcp-server-filesystem /w', startedAt: T0 });
  w.serverState({ session: 'aaaa1111-first', server: 'files', run: 1, state: 'ready', ts: T0 + 1 });
  for (let i = 0; i < 30; i++) {
    w.traffic(event({ session: 'aaaa1111-first', ts: T0 + i * 1000, server: i % 2 ? 'memory' : 'files', method: i % 5 ? 'tools/call' : 'initialize', id: i }));
  }
  w.stderr(stderrLine({ session: 'aaaa1111-first', server: 'files', line: 'Secure MCP Filesystem Server running on stdio' }));
  w.decision({ session: 'aaaa1111-first', ts: T0 + 5, tool: 'files.write_file', server: 'files', decision: 'DENY', outcome: 'denied', reason: 'outside the workspace' });
  w.endSession('aaaa1111-first', { endedAt: T0 + 60_000, reason: 'SIGINT' });
  w.beginSession({ id: 'bbbb2222-second', kind: 'gateway', profile: 'work', startedAt: T0 + 120_000 });
  for (let i = 0; i < 5; i++) w.traffic(event({ session: 'bbbb2222-second', ts: T0 + 120_000 + i, server: 'files', method: 'ping', id: `p${i}`, exchange: `files#ping-${i}` }));
  store.close();
}, 60_000);

afterAll(() => {
  removeDir(work);
  bundle?.cleanup();
});

function gh(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, 'audit', ...args, '--data-dir', data], { encoding: 'utf8', env: { ...process.env, GATEHOUSE_DATA_DIR: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const lines = (text: string): string[] => text.split('\n').filter(Boolean);

describe('gatehouse audit (bundled CLI)', () => {
  it('sessions: a table, newest first, or JSON', () => {
    const r = gh('sessions');
    expect(r.code).toBe(0);
    const [header, first, second] = lines(r.out);
    expect(header).toMatch(/^SESSION\s+KIND\s+PROFILE/);
    expect(first).toMatch(/^bbbb2222-second\s+gateway\s+work\s+.*running\s+5\s+0\s+0$/);
    expect(second).toMatch(/^aaaa1111-first\s+launch\s+demo\s+.*\s+30\s+1\s+1\s+SIGINT$/);
    const json = JSON.parse(gh('sessions', '--json', '--limit', '1').out) as { id: string }[];
    expect(json.map((s) => s.id)).toEqual(['bbbb2222-second']);
  });

  it('show: a session with its server runs', () => {
    const r = gh('show', 'aaaa');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/files#1\s+pid 321/);
    expect(r.out).toContain('$ mcp-server-filesystem /w');
    expect(gh('show').out).toContain('bbbb2222-second');
  });

  it('query: one line per message, with filters', () => {
    const r = gh('query', '--session', 'aaaa', '--server', 'files', '--method', 'initialize');
    expect(r.code).toBe(0);
    const rows = lines(r.out);
    expect(rows).toHaveLength(3); // i = 0, 10, 20
    for (const row of rows) {
      expect(row).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}aaaa1111 {2}files\s+gw→srv\s+request\s+initialize\s+(0|10|20)\s+100B$/);
    }
    expect(lines(gh('query', '--session', 'all', '--method', 'tools/*').out)).toHaveLength(24);
    expect(lines(gh('query', '--since', new Date(T0 + 25_000).toISOString(), '--until', String(T0 + 30_000)).out)).toHaveLength(5);
    expect(lines(gh('query', '--text', 'PING').out)).toHaveLength(5);
    const json = JSON.parse(gh('query', '--session', 'bbbb', '--direction', 'gateway_to_server', '--json').out) as { id: string; message: unknown }[];
    expect(json.map((m) => m.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    // The legs of one exchange, joined on the id the gateway stamped (docs/gateway.md "One table pairs").
    const legs = JSON.parse(gh('query', '--session', 'all', '--exchange', 'files#ping-2', '--json').out) as { id: string; exchange: string }[];
    expect(legs.map((m) => [m.id, m.exchange])).toEqual([['p2', 'files#ping-2']]);
    expect(gh('query', '--stderr', '--exchange', 'files#ping-2')).toMatchObject({ code: 2 });
  });

  it('query: pages, and says where the next page starts', () => {
    const first = gh('query', '--session', 'aaaa', '--limit', '10');
    expect(lines(first.out)).toHaveLength(10);
    const next = /--after-seq (\d+)/.exec(first.err)?.[1];
    expect(next).toBeDefined();
    const second = gh('query', '--session', 'aaaa', '--limit', '25', '--after-seq', next!);
    expect(lines(second.out)).toHaveLength(20);
    expect(second.err).toBe('');
  });

  it('query --stderr and --decisions', () => {
    expect(gh('query', '--stderr').out).toMatch(/aaaa1111\s+files#1\s+Secure MCP Filesystem Server running on stdio/);
    expect(gh('query', '--decisions', '--tool', 'files.*').out).toMatch(/DENY\s+denied\s+files\.write_file.*outside the workspace/);
  });

  it('tail: the last N rows of the latest session', () => {
    const r = gh('tail', '-n', '3');
    expect(r.code).toBe(0);
    expect(lines(r.out).map((l) => l.split(/\s+/)[6])).toEqual(['p2', 'p3', 'p4']);
    expect(lines(gh('tail', '--session', 'aaaa', '-n', '2', '--json').out).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['28', '29']);
  });

  it('export --jsonl to a file and to stdout', () => {
    const file = path.join(work, 'export.jsonl');
    const r = gh('export', '--jsonl', '--session', 'aaaa', '--out', file);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`exported 30 messages to ${file}`);
    const rows = lines(fs.readFileSync(file, 'utf8')).map((l) => JSON.parse(l) as { session: string });
    expect(rows).toHaveLength(30);
    expect(rows.every((x) => x.session === 'aaaa1111-first')).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const out = gh('export', '--jsonl', '--decisions');
    expect(lines(out.out).map((l) => (JSON.parse(l) as { tool: string }).tool)).toEqual(['files.write_file']);
  });

  // Each check is a CLI process: on a loaded 2-core machine one takes seconds, so these tests get
  // room by the number of processes they start (a bound, not a timing assertion).
  it('exit 1 for failures', () => {
    expect(gh('query', '--session', 'nope')).toMatchObject({ code: 1, err: expect.stringContaining("no such session 'nope'") });
    const empty = spawnSync(process.execPath, [cli, 'audit', 'sessions', '--data-dir', path.join(work, 'nothing-here')], { encoding: 'utf8' });
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/no audit database at .*nothing-here\/gatehouse\.db/);
    expect(fs.existsSync(path.join(work, 'nothing-here'))).toBe(false); // reading creates nothing
  }, 60_000);

  it('exit 2 for usage errors', () => {
    expect(gh('query', '--direction', 'sideways')).toMatchObject({ code: 2, err: expect.stringContaining('--direction expects one of') });
    expect(gh('query', '--since', 'whenever')).toMatchObject({ code: 2, err: expect.stringContaining("got 'whenever'") });
    expect(gh('query', '--bogus').code).toBe(2);
    expect(gh('query', '--stderr', '--decisions').code).toBe(2);
    expect(gh('query', '--stderr', '--method', 'x').code).toBe(2);
    expect(gh('export').code).toBe(2);
    expect(gh('frobnicate').code).toBe(2);
    expect(gh('tail', '-n', '0')).toMatchObject({ code: 2, err: expect.stringContaining('-n expects an integer >= 1') });
  }, 120_000);

  it('a database from a newer Gatehouse is refused with exit 1', () => {
    const newer = path.join(work, 'newer');
    openTestStore(newer).store.close();
    const db = new Database(auditDbFile(newer));
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const r = spawnSync(process.execPath, [cli, 'audit', 'sessions', '--data-dir', newer], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/schema version \d+, newer than this Gatehouse understands/);
  });

  it('prune by count', () => {
    const copy = path.join(work, 'prune');
    fs.mkdirSync(copy);
    const src = new Database(auditDbFile(data));
    src.exec(`VACUUM INTO '${auditDbFile(copy).replace(/'/g, "''")}'`);
    src.close();
    const r = spawnSync(process.execPath, [cli, 'audit', 'prune', '--max-messages', '4', '--data-dir', copy], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('removed 31 messages, 0 stderr lines, 0 decisions, 0 server states, 0 sessions\n');
    const left = spawnSync(process.execPath, [cli, 'audit', 'query', '--session', 'all', '--data-dir', copy], { encoding: 'utf8' });
    expect(lines(left.stdout)).toHaveLength(4);
    expect(spawnSync(process.execPath, [cli, 'audit', 'prune', '--max-age-days', 'x', '--data-dir', copy]).status).toBe(2);
  });

  it('tail --follow prints rows as another process writes them, and stops on SIGINT', async () => {
    const live = path.join(work, 'live');
    const { store, errors } = openTestStore(live, { flushIntervalMs: 60_000 });
    store.writer.beginSession({ id: 'cccc3333-live', kind: 'launch' });
    store.writer.traffic(event({ session: 'cccc3333-live', method: 'initialize', id: 'before' }));
    store.flush();

    const child = spawn(process.execPath, [cli, 'audit', 'tail', '--follow', '--data-dir', live], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await vi.waitFor(() => expect(out).toContain('before'), { timeout: 10_000, interval: 20 });
      for (let i = 0; i < 3; i++) store.writer.traffic(event({ session: 'cccc3333-live', method: 'tools/call', id: `live-${i}` }));
      store.writer.traffic(event({ session: 'some-other-session', method: 'tools/call', id: 'elsewhere' }));
      store.flush();
      await vi.waitFor(() => expect(out).toContain('live-2'), { timeout: 10_000, interval: 20 });
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      store.close();
    }
    expect(lines(out).map((l) => l.split(/\s+/)[6])).toEqual(['before', 'live-0', 'live-1', 'live-2']);
    expect(err).toBe('');
    expect(errors).toEqual([]);
  });
});
