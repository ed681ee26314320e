// The fault benchmark (docs/gateway.md "Limits under faults and load"): the other server's latency while one server misbehaves.
// `node bench/run.mjs --faults` (or `node bench/faults.mjs`). A benchmark, not a test: figures and
// PASS/MISS lines against the aims (p99 ≤ 100 ms during each fault, gateway RSS < 250 MB), exit 0.
//
// Per fault mode: the real stdio gateway (out/cli.mjs) in front of `good` and `bad`
// (tests/faults/fixtures/faulty-server.mjs), an SDK Client; the fault is triggered, then `good_echo`
// is called sequentially for a few seconds; p50/p99 of those calls and the gateway's VmHWM.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cliEntry = path.join(root, 'out/cli.mjs');
const fixture = path.join(root, 'tests/faults/fixtures/faulty-server.mjs');

export const FAULT_MODES = [
  { id: 'baseline', args: ['--mode', 'ok'] },
  { id: 'flood 200 B lines', args: ['--mode', 'flood-lines', '--size', '200'], trigger: true },
  { id: 'flood 1 MB notifications', args: ['--mode', 'flood-notes', '--size', String(1024 * 1024)], trigger: true },
  { id: 'flood 3 MB notifications', args: ['--mode', 'flood-notes', '--size', String(3 * 1024 * 1024)], trigger: true },
  // The same flood with the agent at log level `error`: the gateway relays none of it, so this
  // row is the gateway's own cost; the row above adds the agent's cost of reading 3 MB lines.
  { id: 'flood 3 MB notifications (agent log level error)', args: ['--mode', 'flood-notes', '--size', String(3 * 1024 * 1024)], trigger: true, logLevel: 'error' },
  { id: 'lying Content-Length (huge)', args: ['--mode', 'lying-cl', '--lie', 'huge'], trigger: true },
  { id: 'lying Content-Length (+50 KB)', args: ['--mode', 'lying-cl', '--lie', 'plus'], trigger: true },
  { id: 'unsolicited responses', args: ['--mode', 'unsolicited'], trigger: true },
  { id: 'deep nesting', args: ['--mode', 'deep'], trigger: true },
  { id: 'hang', args: ['--mode', 'hang'], trigger: true },
  { id: 'crash loop', args: ['--mode', 'crash-loop'] },
];

function hwmMb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

async function measureMode(mode, seconds) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-faults-'));
  mkdirSync(path.join(dir, 'ws'));
  const list = (a) => JSON.stringify([fixture, ...a]);
  writeFileSync(
    path.join(dir, 'p.yaml'),
    `name: bench-faults\nworkspace: ./ws\nservers:\n  good:\n    command: ${process.execPath}\n    args: ${list(['--mode', 'ok'])}\n` +
      `  bad:\n    command: ${process.execPath}\n    args: ${list([...mode.args, '--seconds', String(seconds + 2)])}\n    startup_timeout_s: 3\n    request_timeout_s: 10\n` +
      `    restart: { max_restarts: 2, initial_backoff_ms: 200, max_backoff_ms: 1000 }\npolicy:\n  default: allow\n`,
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    // BENCH_FAULTS_CPU_PROF=DIR: the gateway writes a V8 CPU profile there (bench/prof-summary.mjs reads it).
    args: [...(process.env.BENCH_FAULTS_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_FAULTS_CPU_PROF}`] : []), cliEntry, 'gateway', '--profile', path.join(dir, 'p.yaml'), '--quiet', '--tool-surface', 'canonical', '--data-dir', path.join(dir, 'data')],
    cwd: dir,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-faults', version: '1.0.0' });
  client.fallbackNotificationHandler = async () => {};
  try {
    await client.connect(transport);
    const pid = transport.pid;
    if (mode.logLevel) await client.setLoggingLevel(mode.logLevel);
    for (let i = 0; i < 20; i++) await client.callTool({ name: 'good_echo', arguments: { text: 'warm' } });
    const trigger = mode.trigger ? client.callTool({ name: 'bad_trigger', arguments: {} }, undefined, { timeout: 60_000 }).catch(() => undefined) : undefined;
    const lat = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const t0 = performance.now();
      await client.callTool({ name: 'good_echo', arguments: { text: 'x' } });
      lat.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.race([trigger, new Promise((r) => setTimeout(r, 1000))]);
    const sorted = lat.sort((a, b) => a - b);
    return { calls: lat.length, p50: pct(sorted, 50), p99: pct(sorted, 99), max: sorted.at(-1), hwmMb: hwmMb(pid) };
  } finally {
    await client.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runFaultBench({ seconds = 5, only } = {}) {
  const rows = [];
  for (const mode of FAULT_MODES) {
    if (only && mode.id !== 'baseline' && !only.some((o) => mode.id.includes(o))) continue;
    process.stderr.write(`  faults · ${mode.id} … `);
    try {
      const r = await measureMode(mode, seconds);
      rows.push({ mode: mode.id, ...r });
      process.stderr.write(`p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, RSS ${r.hwmMb.toFixed(0)} MB\n`);
    } catch (err) {
      process.stderr.write(`FAILED: ${err.message}\n`);
    }
  }
  const base = rows.find((r) => r.mode === 'baseline');
  const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—');
  const head = ['fault on the other server', 'good calls', 'p50 ms', 'p99 ms', 'max ms', 'p99 ÷ baseline', 'gateway peak RSS MB'];
  const table = [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.mode} | ${r.calls} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${base ? `${f(r.p99 / base.p99)}×` : '—'} | ${f(r.hwmMb, 0)} |`),
  ].join('\n');
  const aims = rows
    .filter((r) => r.mode !== 'baseline')
    .map((r) => `${r.p99 <= 100 && r.hwmMb < 250 ? 'PASS' : 'MISS'}  ${r.mode}: good p99 ${f(r.p99)} ms ≤ 100 ms, gateway RSS ${f(r.hwmMb, 0)} MB < 250 MB`)
    .join('\n');
  return { table, aims };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { table, aims } = await runFaultBench();
  process.stdout.write(`\n${table}\n\nAims (one server misbehaving):\n${aims}\n`);
  process.exit(0);
}
