// Builds the host-side entry points with esbuild (fast enough to run from `prepare`
// and before every test run). npm packages stay external: native modules
// (better-sqlite3, node-pty) must be loaded from node_modules, never bundled.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const entries = {
  cli: 'main/cli/index.ts',
  'tools-server': 'main/tools/server.ts',
};

const entryPoints = Object.fromEntries(
  Object.entries(entries).filter(([, file]) => existsSync(path.join(root, file))),
);

await build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'out',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  // esm output that still lets bundled code use require() for CommonJS-only paths.
  banner: { js: "import { createRequire as __gh_cr } from 'node:module'; const require = __gh_cr(import.meta.url);" },
});
