// npm install / npm ci: builds the tiny native addons in native/ with node-gyp (the copy npm
// ships, against the headers of the Node that runs this, offline when they are installed beside
// it). Never fails the install: without an addon the feature that needs it degrades and says so
// (native/peercred: the approvals relay shows peers as "unverified" instead of a pid;
// native/landlock: the reduced `landlock` sandbox kind is unavailable, and availability.ts and
// `gatehouse doctor` say so).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADDONS = ['peercred'];
const say = (line) => process.stderr.write(`gatehouse: ${line}\n`);

if (process.platform === 'win32') {
  say('native addons skipped on Windows (the relay runs on a named pipe there)');
  process.exit(0);
}

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    // npm's own copy, beside the node binary (Debian/NodeSource and the official tarballs).
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  return candidates.find((c) => c && existsSync(c));
}

// With headers installed beside node (<prefix>/include/node), node-gyp needs no download.
const prefix = path.resolve(path.dirname(process.execPath), '..');
const nodedir = existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? [`--nodedir=${prefix}`] : [];
const gyp = nodeGyp();
let failed = 0;
for (const name of ADDONS) {
  const dir = path.join(root, 'native', name);
  if (!gyp) {
    say(`cannot build native/${name}: node-gyp not found (npm ships it; run npm install again)`);
    failed++;
    continue;
  }
  const r = spawnSync(process.execPath, [gyp, 'rebuild', '--loglevel=warn', ...nodedir], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0 || !existsSync(path.join(dir, 'build', 'Release', `${name}.node`))) {
    say(`native/${name} did not build (a C compiler and Node's headers are needed); see docs/security.md for what degrades`);
    failed++;
  }
}
if (failed === 0) say(`native addons built: ${ADDONS.join(', ')}`);

// native/landlock: a plain executable (no Node API), so `cc` directly: libc and kernel headers only.
if (process.platform === 'linux') {
  const dir = path.join(root, 'native', 'landlock');
  const out = path.join(dir, 'build', 'gatehouse-landlock');
  mkdirSync(path.dirname(out), { recursive: true });
  const cc = process.env.CC || 'cc';
  const r = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-o', out, path.join(dir, 'gatehouse-landlock.c')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0 || !existsSync(out)) say(`native/landlock did not build (${r.error ? `${cc}: ${r.error.message}` : `${cc} exited ${r.status}`}); the reduced landlock sandbox is unavailable (docs/sandbox.md "Sandbox kinds")`);
  else say('native/landlock built: gatehouse-landlock');
}
