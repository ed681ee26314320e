// Conformance: the official MCP conformance suite, server scenarios, run
//   (a) against our conforming fixture server directly (its own Streamable HTTP),
//   (b) against the gateway with the fixture behind it over stdio,
//   (c) against the gateway with the fixture behind it as a Streamable HTTP upstream.
// Every scenario that passes directly must pass through the gateway, both ways. The suite's
// `dns-rebinding-protection` scenario in (b) and (c) tests the gateway's own endpoint: the
// forwarder in front of it only adds the bearer token and maps its own loopback authority onto
// the gateway's, so the foreign Host/Origin the scenario sends reaches the gateway unchanged.
//
// The suite needs Node 22, which lives in tools/conformance/ (a package of its own; see
// scripts/ensure-conformance.mjs, which installs it from the registry when missing). When it
// cannot be installed here this test skips, naming the command to run; with CI set, or when it
// is installed but does not work, it fails instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Host, type Launch } from '../../main/host';
import { startAuthForwarder, type AuthForwarder } from '../support/auth-forwarder';
import { conformanceProfile, loadConformanceSuite, runConformanceServer, type ConformanceCheck } from '../support/conformance-suite';
import { tempDir, writeProfile } from '../support/temp';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(ROOT, 'tests/fixtures/conformance/server.mjs');
const SUITE_TIMEOUT_MS = 150_000;

const { suite, skip } = loadConformanceSuite('conformance test');

/**
 * Scenarios that pass directly but still fail through the gateway for a reason outside the
 * HTTP endpoint, each with that reason. The test fails on any other regression, and also when a
 * listed scenario starts passing (then remove its entry): the list can only shrink.
 */
const KNOWN_GATEWAY_GAPS: Record<string, string> = {};

type Outcome = { status: 'pass' | 'fail'; warnings: number; errors: string[]; checks: Check[] };
type Results = Map<string, Outcome>;

type Check = ConformanceCheck;

/** Runs every server scenario (suite `all`) against `url`; per-scenario outcome from checks.json. */
async function runSuite(url: string, outDir: string): Promise<{ results: Results; log: string }> {
  const run = await runConformanceServer(suite, suite.cli!, url, ['--suite', 'all'], outDir, SUITE_TIMEOUT_MS);
  const results: Results = new Map();
  for (const [scenario, checks] of run.checks) {
    const failures = checks.filter((c) => c.status === 'FAILURE');
    results.set(scenario, {
      status: failures.length === 0 ? 'pass' : 'fail',
      warnings: checks.filter((c) => c.status === 'WARNING').length,
      errors: failures.map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`),
      checks,
    });
  }
  return { results, log: run.log };
}

function cell(scenario: string, o: Outcome | undefined): string {
  if (!o) return 'not run';
  const warn = o.warnings ? ` (${o.warnings} warn)` : '';
  if (o.status === 'pass') return `pass${warn}`;
  return KNOWN_GATEWAY_GAPS[scenario] ? `FAIL (known gap)${warn}` : `FAIL${warn}`;
}

function table(columns: Array<[string, Results]>): string {
  const scenarios = [...new Set(columns.flatMap(([, r]) => [...r.keys()]))];
  const rows = [['scenario', ...columns.map(([name]) => name)], ...scenarios.map((s) => [s, ...columns.map(([, r]) => cell(s, r.get(s)))])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  const out = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.slice(1).map(line)];
  const failures = columns.flatMap(([name, r]) => [...r].filter(([, o]) => o.status === 'fail').map(([s, o]) => `  ${name} / ${s}: ${o.errors.join('; ')}`));
  return [...out, ...(failures.length ? ['', 'failed checks:', ...failures] : [])].join('\n');
}

/** Starts the fixture over Streamable HTTP and waits for the URL it prints. */
async function startFixtureHttp(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [FIXTURE, '--http', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`fixture exited (${code}) before listening: ${stderr}`)));
  });
  return { url, child };
}

const PROFILE = conformanceProfile;

describe.skipIf(skip)('the official MCP conformance suite (server scenarios)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let fixture: { url: string; child: ChildProcess } | undefined;
  let host: Host | undefined;
  let viaStdio: Launch;
  let viaHttp: Launch;
  const forwarders: AuthForwarder[] = [];

  beforeAll(async () => {
    if (!suite.ok) return;
    tmp = tempDir('gatehouse-conformance-');
    fixture = await startFixtureHttp();
    const stdioProfile = writeProfile(
      tmp.dir,
      PROFILE('conformance-stdio', `    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(FIXTURE)}]`),
      'stdio.yaml',
    );
    const httpProfile = writeProfile(tmp.dir, PROFILE('conformance-http', `    url: ${JSON.stringify(fixture.url)}`), 'http.yaml');
    host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    viaStdio = await host.launch(stdioProfile, { httpPort: 0, token: 'conformance-token-stdio-0123456789' });
    viaHttp = await host.launch(httpProfile, { httpPort: 0, token: 'conformance-token-http-0123456789' });
    for (const l of [viaStdio, viaHttp]) expect(l.statuses().map((s) => s.state)).toEqual(['ready']);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(forwarders.map((f) => f.close()));
    await host?.shutdown();
    fixture?.child.kill('SIGTERM');
    tmp?.cleanup();
  });

  it(
    'passes through the gateway (stdio and HTTP upstreams) every scenario the fixture passes directly',
    async () => {
      if (!suite.ok) throw new Error(`the conformance suite is not usable: ${suite.reason}. Install it with: ${suite.fix}`);
      // The gateway keeps its authentication: without the token, 401.
      const bare = await fetch(viaStdio.endpoint!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(bare.status).toBe(401);

      const fwdStdio = await startAuthForwarder({ target: viaStdio.endpoint!.url, token: viaStdio.token! });
      const fwdHttp = await startAuthForwarder({ target: viaHttp.endpoint!.url, token: viaHttp.token! });
      forwarders.push(fwdStdio, fwdHttp);

      const out = path.join(tmp.dir, 'results');
      const [direct, stdio, httpUp] = await Promise.all([
        runSuite(fixture!.url, path.join(out, 'direct')),
        runSuite(fwdStdio.url, path.join(out, 'via-stdio')),
        runSuite(fwdHttp.url, path.join(out, 'via-http')),
      ]);
      const report = table([
        ['direct', direct.results],
        ['via stdio', stdio.results],
        ['via http', httpUp.results],
      ]);
      console.log(`MCP conformance (${suite.version}, suite 'all'):\n${report}`);

      // The suite ran: the fixture conforms (it is written to), including DNS rebinding.
      expect(direct.results.size, direct.log).toBeGreaterThanOrEqual(30);
      const passedDirectly = [...direct.results].filter(([, o]) => o.status === 'pass').map(([s]) => s);
      expect(passedDirectly).toContain('dns-rebinding-protection');

      const regressions: string[] = [];
      const knownSeen = new Set<string>();
      for (const [name, r] of [['via stdio', stdio.results], ['via http', httpUp.results]] as const) {
        for (const s of passedDirectly) {
          const o = r.get(s);
          if (o?.status === 'pass') continue;
          if (o && KNOWN_GATEWAY_GAPS[s]) {
            knownSeen.add(s);
            continue;
          }
          regressions.push(`${name} / ${s}: ${o ? o.errors.join('; ') : 'not run'}`);
        }
      }
      for (const s of knownSeen) console.warn(`known gateway gap, ${s}: ${KNOWN_GATEWAY_GAPS[s]}`);
      expect(regressions, `${report}\n\nsuite output (via stdio):\n${stdio.log.slice(-4000)}`).toEqual([]);
      // A gap that no longer shows is fixed: drop it from KNOWN_GATEWAY_GAPS.
      expect(Object.keys(KNOWN_GATEWAY_GAPS).filter((s) => !knownSeen.has(s))).toEqual([]);
      // The gateway's own endpoint refused the foreign Host/Origin (the forwarder checks
      // nothing: the 403 and its message are the gateway's) and took the token-bearing local one.
      for (const r of [stdio.results, httpUp.results]) {
        const dns = r.get('dns-rebinding-protection');
        expect(dns?.status).toBe('pass');
        const rejected = dns!.checks.find((c) => c.id === 'localhost-host-rebinding-rejected');
        expect(rejected?.details).toMatchObject({ statusCode: 403, body: { error: { message: "Forbidden: Host 'evil.example.com' is not allowed" } } });
      }
    },
    SUITE_TIMEOUT_MS + 30_000,
  );

  it('delivers a server→client request on the POST stream when the client has no GET stream open, and ends the session on DELETE', async () => {
    if (!suite.ok) throw new Error(`the conformance suite is not usable: ${suite.reason}. Install it with: ${suite.fix}`);
    // A raw Streamable HTTP client that never opens the standalone GET stream: the gateway's
    // sampling request must come on the tools/call POST stream, not vanish.
    const url = viaStdio.endpoint!.url;
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${viaStdio.token}` };
    const before = viaStdio.endpoint!.sessionCount();
    const init = await fetch(url, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const sid = init.headers.get('mcp-session-id')!;
    expect(sid).toBeTruthy();
    expect((await readSse(init, 1))[0]).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    const headers = { ...base, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const note = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    expect(note.status).toBe(202);
    expect(viaStdio.endpoint!.sessionCount()).toBe(before + 1);

    const call = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_sampling', arguments: { prompt: 'hello' } } }),
    });
    const events = sseMessages(call);
    const request = (await events.next()).value as { id: number | string; method: string; params: { messages: Array<{ content: { text: string } }> } };
    expect(request).toMatchObject({ method: 'sampling/createMessage' });
    expect(request.params.messages[0]!.content.text).toBe('hello');
    const answer = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'raw-model' } }),
    });
    expect(answer.status).toBe(202);
    const result = (await events.next()).value;
    expect(result).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'LLM response: hi there' }] } });
    await events.return(undefined);

    const del = await fetch(url, { method: 'DELETE', headers });
    expect(del.status).toBe(200);
    expect(viaStdio.endpoint!.sessionCount()).toBe(before);
  });
});

/** The JSON-RPC messages of an SSE response, one at a time. */
async function* sseMessages(res: Response): AsyncGenerator<unknown, void, undefined> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const data = event
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        if (data.trim()) yield JSON.parse(data);
      }
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

async function readSse(res: Response, count: number): Promise<unknown[]> {
  // A server may answer a POST with plain JSON when the response is the only message
  // (basic/transports); the gateway does so for initialize.
  if (res.headers.get('content-type')?.startsWith('application/json')) return [await res.json()];
  const out: unknown[] = [];
  for await (const m of sseMessages(res)) {
    out.push(m);
    if (out.length === count) break;
  }
  return out;
}
