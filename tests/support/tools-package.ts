// A package of its own under tools/ (tools/inspector, tools/node22): installed from its lockfile by
// scripts/ensure-tools-package.mjs when missing. A test skips only when it cannot be had here at all
// (no registry, another platform), and never in CI, where .ci/run installs it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './supervisor';

export interface ToolsPackage {
  ok: boolean;
  installed?: boolean;
  node?: string;
  cli?: string;
  version?: string;
  reason?: string;
  fix?: string;
}

export function ensureToolsPackage(name: 'inspector' | 'node22'): ToolsPackage & { skip: boolean } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/ensure-tools-package.mjs'), name], { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  let pkg: ToolsPackage;
  try {
    pkg = JSON.parse(line) as ToolsPackage;
  } catch {
    pkg = { ok: false, reason: `scripts/ensure-tools-package.mjs said: ${(r.stderr || r.error?.message || line).trim()}`, fix: `npm ci --prefix tools/${name}` };
  }
  const skip = !pkg.ok && pkg.installed === false && !process.env.CI;
  if (skip) console.warn(`tools/${name} test SKIPPED: ${pkg.reason}. To run it: ${pkg.fix}`);
  return { ...pkg, skip };
}
