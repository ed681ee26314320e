// Builds test entry points (the CLI, tiny host scripts) with the same esbuild settings as
// scripts/build.mjs, into a private folder under out/ so a test never races another session's
// `npm run build`. Under out/, not /tmp: external npm packages resolve from the repo's
// node_modules and appRoot() finds package.json above the bundle.
import { buildSync } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './supervisor';

export interface TestBundle {
  dir: string;
  entry(name: string): string;
  cleanup(): void;
}

export function buildTestBundle(entries: Record<string, string>): TestBundle {
  const dir = path.join(repoRoot, 'out', `test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  buildSync({
    absWorkingDir: repoRoot,
    entryPoints: entries,
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __gh_cr } from 'node:module'; const require = __gh_cr(import.meta.url);" },
  });
  return {
    dir,
    entry: (name) => path.join(dir, `${name}.mjs`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
