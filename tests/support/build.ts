// Builds test entry points (the CLI, tiny host scripts) with the same esbuild settings as
// scripts/build.mjs, into a private folder under out/ so a test never races another session's
// `npm run build`. Under out/, not /tmp: external npm packages resolve from the repo's
// node_modules and appRoot() finds package.json above the bundle.
import { buildSync } from 'esbuild';
import { hostBundleOptions } from '../../scripts/esbuild-options.mjs';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './supervisor';

export interface TestBundle {
  dir: string;
  entry(name: string): string;
  cleanup(): void;
}

export function buildTestBundle(entries: Record<string, string>, prefix = 'test'): TestBundle {
  const dir = path.join(repoRoot, 'out', `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  buildSync({ ...hostBundleOptions, absWorkingDir: repoRoot, entryPoints: entries, outdir: dir, logLevel: 'warning' });
  return {
    dir,
    entry: (name) => path.join(dir, `${name}.mjs`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
