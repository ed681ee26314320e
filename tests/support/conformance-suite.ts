// The official MCP conformance suite as the conformance tests find it: installed in
// tools/conformance/ with the Node 22 it needs (scripts/ensure-conformance.mjs installs it from
// the registry when missing). `skip` is true only when it cannot be had here at all and CI is
// not set: then a test skips, naming the command to run; installed but broken is a failure.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ConformanceSuite {
  ok: boolean;
  /** False when it could not be installed here at all (then, outside CI, the test skips). */
  installed?: boolean;
  node?: string;
  /** 0.1.16 and 0.2.0-alpha.12 (`conformance-next`). */
  cli?: string;
  cliNext?: string;
  version?: string;
  reason?: string;
  fix?: string;
}

export function loadConformanceSuite(name: string): { suite: ConformanceSuite; skip: boolean } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/ensure-conformance.mjs')], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  let suite: ConformanceSuite;
  try {
    suite = JSON.parse(line) as ConformanceSuite;
  } catch {
    suite = { ok: false, reason: `scripts/ensure-conformance.mjs said: ${(r.stderr || r.error?.message || line).trim()}`, fix: 'npm ci --prefix tools/conformance --no-audit --no-fund' };
  }
  const skip = !suite.ok && suite.installed === false && !process.env.CI;
  if (skip) console.warn(`${name} SKIPPED: ${suite.reason}. To run it: ${suite.fix}`);
  return { suite, skip };
}

/** The profile `servers:` entry of the old-era conformance fixture over stdio (tests/fixtures/conformance/server.mjs). */
export function oldEraFixtureServer(indent = '    '): string {
  const fixture = path.join(ROOT, 'tests/fixtures/conformance/server.mjs');
  return `${indent}command: ${JSON.stringify(process.execPath)}\n${indent}args: [${JSON.stringify(fixture)}]`;
}

export interface ConformanceCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/**
 * Runs the suite's `server` command (`cli` with `args`, e.g. `--suite all` or `--requirements
 * 2026-07-28`) against `url`, killed after `timeoutMs`; returns each scenario's checks from its
 * checks.json (a scenario folder without one, a run the suite did not finish, is one FAILURE)
 * and the suite's output, also kept as suite.log in `outDir`.
 */
export async function runConformanceServer(
  suite: ConformanceSuite,
  cli: string,
  url: string,
  args: string[],
  outDir: string,
  timeoutMs: number,
): Promise<{ checks: Map<string, ConformanceCheck[]>; log: string }> {
  mkdirSync(outDir, { recursive: true });
  const child = spawn(suite.node!, [cli, 'server', '--url', url, ...args, '-o', outDir], {
    cwd: outDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  clearTimeout(timer);
  writeFileSync(path.join(outDir, 'suite.log'), log);
  const checks = new Map<string, ConformanceCheck[]>();
  for (const entry of readdirSync(outDir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!m) continue;
    const file = path.join(outDir, entry, 'checks.json');
    checks.set(
      m[1]!,
      existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as ConformanceCheck[])
        : [{ id: 'no-checks-json', status: 'FAILURE', errorMessage: 'the suite wrote no checks.json for this scenario' }],
    );
  }
  return { checks, log };
}

/** A profile with one server `conf` (its YAML lines under `conf:`) and an allow-all policy (sampling too) unless `policy` says otherwise. */
export function conformanceProfile(name: string, server: string, policy = '  default: allow\n  sampling: allow'): string {
  return `\nname: ${name}\nworkspace: ./ws\nservers:\n  conf:\n${server}\npolicy:\n${policy}\n`;
}
