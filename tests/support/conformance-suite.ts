// The official conformance suite as installed in tools/conformance/ (Node 22 and both CLIs), via
// scripts/ensure-conformance.mjs. `skip` is true only when it cannot be had here at all and CI
// is not set (.ci/run installs it); then the caller skips with `reason` and `fix`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './supervisor';

export interface ConformanceSuite {
  ok: boolean;
  installed?: boolean;
  node?: string;
  cli?: string;
  cliNext?: string;
  version?: string;
  reason?: string;
  fix?: string;
}

export function loadConformanceSuite(): ConformanceSuite & { skip: boolean } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/ensure-conformance.mjs')], { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 });
  let suite: ConformanceSuite;
  try {
    suite = JSON.parse((r.stdout ?? '').trim().split('\n').pop() ?? '') as ConformanceSuite;
  } catch {
    suite = { ok: false, reason: `scripts/ensure-conformance.mjs said: ${(r.stderr || r.error?.message || '').trim()}`, fix: 'npm ci --prefix tools/conformance --no-audit --no-fund' };
  }
  return { ...suite, skip: !suite.ok && suite.installed === false && !process.env.CI };
}
