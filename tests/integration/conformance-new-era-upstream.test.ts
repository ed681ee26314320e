// Upstream eras (docs/gateway.md), set-up 2: the official conformance suite (conformance-next, 0.2.0-alpha.12, pinned in
// tools/conformance/) against the gateway with a NEW-era HTTP server as its only upstream
// (tests/fixtures/conformance-next/server.mjs, SDK v2, serves 2026-07-28 only).
//   (a) the fixture directly, `--requirements 2026-07-28`: every scored scenario passes (the
//       fixture conforms; otherwise nothing through the gateway means anything);
//   (b) the gateway, `--requirements 2025-11-25`: an old-era client (the suite) → the gateway →
//       the new-era server. Sampling and elicitation reach the suite as real server→client
//       requests made by the gateway's reverse bridge from the server's input_required results;
//   (c) the gateway, `--requirements 2026-07-28`: a new-era client → the gateway → the new-era
//       server, both sides stateless.
// The set-up is a plain object (era-contract.md): how to start the upstream, and the profile
// lines that name it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Host, type Launch } from '../../main/host';
import type { Exchange } from '../../main/gateway/exchanges';
import { startAuthForwarder, type AuthForwarder } from '../support/auth-forwarder';
import { tempDir, writeProfile } from '../support/temp';
import { loadConformanceSuite } from '../support/conformance-suite';
import { NEW_ERA_FIXTURE, startFixtureUrl } from '../support/fixture-url';

const SUITE_TIMEOUT_MS = 240_000;
/** The gateway serves 2026-07-28 downstream (merged from `down`): (c) runs. */
const NEW_ERA_DOWNSTREAM = true;

export interface ConformanceSetup {
  name: string;
  /** Starts the upstream; `server` is the YAML of the profile's one server entry (indented 4). */
  start(): Promise<{ server: string; direct?: string; stop(): void }>;
  /** Scored scenarios that may fail through the gateway in this set-up, each with its reason. */
  exceptions: Record<string, Record<string, string>>;
}

/** Set-up 2: a new-era HTTP server (SDK v2) behind the gateway. */
export const NEW_ERA_HTTP_SETUP: ConformanceSetup = {
  name: 'new-era HTTP upstream (SDK v2 fixture)',
  async start() {
    const fixture = await startFixtureUrl(NEW_ERA_FIXTURE);
    return { server: `    url: ${JSON.stringify(fixture.url)}`, direct: fixture.url, stop: fixture.stop };
  },
  exceptions: { '2025-11-25': {}, '2026-07-28': {} },
};

const loaded = loadConformanceSuite('new-era upstream conformance test');
const suite = loaded.suite;
const skip = loaded.skip;

interface Run {
  /** Scored scenario → failed checks (empty: passed). */
  scored: Map<string, string[]>;
  /** Not scored (extension, pending): reported only. */
  notScored: string[];
  log: string;
}

/** One `--requirements` run; per-scenario outcome from checks.json, scored or not from the suite's own summary. */
async function runRequirements(url: string, revision: string, outDir: string): Promise<Run> {
  mkdirSync(outDir, { recursive: true });
  const child = spawn(suite.node!, [suite.cliNext!, 'server', '--url', url, '--requirements', revision, '-o', outDir], {
    cwd: outDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), SUITE_TIMEOUT_MS);
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  clearTimeout(timer);
  const tail = log.slice(log.indexOf('Not scored for'));
  const notScored = log.includes('Not scored for') ? [...tail.matchAll(/^\s+[✓✗] (\S+) \(/gmu)].map((m) => m[1]!) : [];
  const scored = new Map<string, string[]>();
  for (const entry of readdirSync(outDir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!m || notScored.includes(m[1]!)) continue;
    const checks = JSON.parse(readFileSync(path.join(outDir, entry, 'checks.json'), 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>;
    scored.set(m[1]!, checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`));
  }
  return { scored, notScored, log };
}

function failures(run: Run, allowed: Record<string, string> = {}): string[] {
  return [...run.scored].filter(([s, f]) => f.length > 0 && !allowed[s]).map(([s, f]) => `${s}: ${f.join('; ')}`);
}

const PROFILE = (server: string) => `
name: conformance-new-era-upstream
workspace: ./ws
servers:
  conf:
${server}
policy:
  default: allow
  sampling: allow
`;

describe.skipIf(skip)(`the conformance suite, set-up 2: ${NEW_ERA_HTTP_SETUP.name}`, () => {
  let tmp: ReturnType<typeof tempDir>;
  let upstream: Awaited<ReturnType<ConformanceSetup['start']>> | undefined;
  let host: Host | undefined;
  let launch: Launch;
  let forwarder: AuthForwarder | undefined;
  const closed = new Map<string, Exchange>();

  beforeAll(async () => {
    if (!suite.ok) return;
    tmp = tempDir('gatehouse-conformance-next-up-');
    upstream = await NEW_ERA_HTTP_SETUP.start();
    host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    launch = await host.launch(writeProfile(tmp.dir, PROFILE(upstream.server)), { httpPort: 0, token: 'conformance-new-era-token-0123456789' });
    expect(launch.statuses().map((s) => [s.state, s.era?.era, s.protocolVersion])).toEqual([['ready', 'new', '2026-07-28']]);
    launch.gateway.exchanges.on('closed', (e) => closed.set(e.id, { ...e }));
    forwarder = await startAuthForwarder({ target: launch.endpoint!.url, token: launch.token! });
  }, 60_000);

  afterAll(async () => {
    await forwarder?.close();
    await host?.shutdown();
    upstream?.stop();
    tmp?.cleanup();
  });

  it(
    '(a) the fixture itself passes every scored scenario of --requirements 2026-07-28',
    async () => {
      if (!suite.ok) throw new Error(`the conformance suite is not usable: ${suite.reason}. Install it with: ${suite.fix}`);
      const run = await runRequirements(upstream!.direct!, '2026-07-28', path.join(tmp.dir, 'direct-2026'));
      console.log(`new-era fixture direct, 2026-07-28: ${[...run.scored].filter(([, f]) => f.length === 0).length}/${run.scored.size} scored pass; not scored: ${run.notScored.join(', ')}`);
      expect(run.scored.size, run.log.slice(-3000)).toBeGreaterThanOrEqual(37);
      expect(failures(run)).toEqual([]);
    },
    SUITE_TIMEOUT_MS + 30_000,
  );

  it(
    '(b) an old-era client through the gateway to the new-era server passes every scored scenario of --requirements 2025-11-25',
    async () => {
      if (!suite.ok) throw new Error(`the conformance suite is not usable: ${suite.reason}. Install it with: ${suite.fix}`);
      const run = await runRequirements(forwarder!.url, '2025-11-25', path.join(tmp.dir, 'gateway-2025'));
      const failed = failures(run, NEW_ERA_HTTP_SETUP.exceptions['2025-11-25']);
      console.log(`gateway + new-era upstream, 2025-11-25: ${run.scored.size - failed.length}/${run.scored.size} scored pass; not scored: ${run.notScored.join(', ') || 'none'}`);
      expect(run.scored.size, run.log.slice(-3000)).toBeGreaterThanOrEqual(30);
      // On a failure, say what the upstream went through meanwhile (restarts, its log).
      const conf = launch.supervisor.get('conf')!;
      const upstreamLog = () => `${JSON.stringify(conf.status().exits ?? [])}\n${conf.stderrTail(40).join('\n')}`;
      expect(failed, `${run.log.slice(-3000)}\n\nupstream 'conf':\n${upstreamLog()}`).toEqual([]);
      // The sampling and elicitation scenarios went through the reverse bridge: each question is
      // a server_request exchange whose parent is the call, and the call spoke the new era upstream.
      const questions = [...closed.values()].filter((e) => e.kind === 'server_request' && e.parent);
      expect(questions.map((e) => e.method)).toEqual(expect.arrayContaining(['sampling/createMessage', 'elicitation/create']));
      for (const q of questions) expect(closed.get(q.parent!)?.upstreamEra).toBe('2026-07-28');
    },
    SUITE_TIMEOUT_MS + 30_000,
  );

  it.skipIf(!NEW_ERA_DOWNSTREAM)(
    '(c) a new-era client through the gateway to the new-era server passes every scored scenario of --requirements 2026-07-28',
    async () => {
      const run = await runRequirements(forwarder!.url, '2026-07-28', path.join(tmp.dir, 'gateway-2026'));
      const failed = failures(run, NEW_ERA_HTTP_SETUP.exceptions['2026-07-28']);
      console.log(`gateway + new-era upstream, 2026-07-28: ${run.scored.size - failed.length}/${run.scored.size} scored pass; not scored: ${run.notScored.join(', ') || 'none'}`);
      expect(run.scored.size, run.log.slice(-3000)).toBeGreaterThanOrEqual(37);
      expect(failed, run.log.slice(-3000)).toEqual([]);
    },
    SUITE_TIMEOUT_MS + 30_000,
  );
});
