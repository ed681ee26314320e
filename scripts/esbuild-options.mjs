// The esbuild settings for host-side bundles, shared by scripts/build.mjs, the tests that bundle
// a private CLI (tests/support/build.ts) and the benchmark: one place to change them.
export const hostBundleOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  // npm packages stay external: native modules (better-sqlite3, node-pty) load from node_modules.
  packages: 'external',
  // esm output that still lets bundled code use require() for CommonJS-only paths.
  banner: { js: "import { createRequire as __gh_cr } from 'node:module'; const require = __gh_cr(import.meta.url);" },
};
