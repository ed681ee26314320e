// Builds the host-side entry points with esbuild (fast enough to run from `prepare`
// and before every test run), then the renderer with Vite into out/renderer/ (the web shell
// serves it, Electron loads it). npm packages stay external: native modules
// (better-sqlite3, node-pty) must be loaded from node_modules, never bundled.
// `--main-only` skips the renderer (what a host-only change needs).
import { build } from 'esbuild';
import { hostBundleOptions } from './esbuild-options.mjs';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const entries = {
  cli: 'main/cli/index.ts',
  'tools-server': 'main/tools/server.ts',
  // The audit writer thread (main/audit/threaded-writer.ts starts it as a Worker).
  'audit-writer': 'main/audit/writer-thread.ts',
};

const entryPoints = Object.fromEntries(
  Object.entries(entries).filter(([, file]) => existsSync(path.join(root, file))),
);

await build({
  ...hostBundleOptions,
  absWorkingDir: root,
  entryPoints,
  outdir: 'out',
  // Each subcommand (and what only it imports) is its own chunk, loaded on use: the stdio
  // gateway does not pay for the web shell, the UI API or the pty backend.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// The in-sandbox forwarder (main/sandbox/sandbox-init.ts) runs inside the OS sandbox, on a plain
// node, from an unpacked file in a packaged app: one self-contained file, no shared chunks.
await build({
  ...hostBundleOptions,
  absWorkingDir: root,
  entryPoints: { 'sandbox-init': 'main/sandbox/sandbox-init.ts' },
  outdir: 'out',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// The Electron shell: main process and preload, both CommonJS. A sandboxed preload may only
// require('electron') (so common/ and zod are bundled in); the main process keeps npm packages
// external like the host, and gets an import.meta.url shim (main/paths.ts and the pty backend
// locate files with it). scripts/start.mjs and electron-builder's extraMetadata.main run
// out/electron/main.cjs.
const importMetaUrlShim = "const __gatehouse_import_meta_url = require('node:url').pathToFileURL(__filename).href;";
if (existsSync(path.join(root, 'main/electron/main.ts'))) {
  await build({
    absWorkingDir: root,
    entryPoints: { 'electron/main': 'main/electron/main.ts' },
    outdir: 'out',
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    packages: 'external',
    external: ['electron'],
    define: { 'import.meta.url': '__gatehouse_import_meta_url' },
    banner: { js: importMetaUrlShim },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}
if (existsSync(path.join(root, 'preload/index.ts'))) {
  await build({
    absWorkingDir: root,
    entryPoints: { 'preload/index': 'preload/index.ts' },
    // zod is bundled whole (the contract's schemas are built at load); minified, it parses faster.
    minify: true,
    outdir: 'out',
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'cjs',
    external: ['electron'],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

const rendererReady = existsSync(path.join(root, 'renderer', 'index.html')) && existsSync(path.join(root, 'renderer', 'main.tsx'));
if (!process.argv.includes('--main-only') && !rendererReady) {
  process.stderr.write('build: renderer/index.html or renderer/main.tsx missing: the renderer was not built\n');
} else if (!process.argv.includes('--main-only')) {
  const { build: viteBuild } = await import('vite');
  await viteBuild({
    configFile: path.join(root, 'vite.config.ts'),
    // Absolute, so the build does not depend on the directory it is started from.
    root: path.join(root, 'renderer'),
    build: { outDir: path.join(root, 'out', 'renderer') },
    logLevel: 'warn',
  });
}
