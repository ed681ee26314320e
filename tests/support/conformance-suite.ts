// The official MCP conformance suite as the conformance tests find it: installed in
// tools/conformance/ with the Node 22 it needs (scripts/ensure-conformance.mjs installs it from
// the registry when missing). `skip` is true only when it cannot be had here at all and CI is
// not set: then a test skips, naming the command to run; installed but broken is a failure.
import { spawnSync } from 'node:child_process';
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
