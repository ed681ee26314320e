// `npm run bench`: tools/call of server-everything's `echo`, measured with the SDK's own Client,
// directly over stdio and through every front we care about.
// A benchmark, not a test (STYLE.md): ratios against baselines measured in this same run, aims
// printed as PASS/MISS lines, exit 0 either way. Everything listens on 127.0.0.1 and everything
// this script starts is killed at the end, also on Ctrl-C.
//
//   node bench/run.mjs [--quick] [--rounds N] [--only id,id] [--no-write]
//                      [--cpu-prof DIR] [--heap-prof FILE-%t.heapprofile]   profiles (%t = target id)
//                      [--baseline-cli DIR/cli.mjs]   A/B: the gateway targets of that build too, in the same rounds
//   node bench/run.mjs --faults    the other server's p50/p99 during each fault (bench/faults.mjs)
//
// Per target: warm-up, sequential calls (p50/p99), then calls/s with 32 requests in flight on
// ONE client session (32 concurrent callers sharing one SDK Client), then the peak RSS (VmHWM)
// and CPU time of the process in the middle (gateway, proxy, or the floor server itself).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { hostBundleOptions } from '../scripts/esbuild-options.mjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { perCall, preloadArgs, sampleCounters } from './counters.mjs';
import { directAims, f, floorAims, table } from './report.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    rounds: { type: 'string' },
    only: { type: 'string' },
    'no-write': { type: 'boolean' },
    'cpu-prof': { type: 'string' },
    'heap-prof': { type: 'string' },
    'gateway-node-options': { type: 'string' },
    'baseline-cli': { type: 'string' },
    faults: { type: 'boolean' },
  },
  strict: true,
});
const quick = !!opts.quick;
const rounds = Number(opts.rounds ?? (quick ? 1 : 2));
const N = quick ? { warm: 100, seq: 300, conc: 600 } : { warm: 300, seq: 2000, conc: 3000 };
const INFLIGHT = 32;
const TOKEN = 'bench-token-0123456789abcdef';

const everythingEntry = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const supergatewayEntry = path.join(root, 'node_modules/supergateway/dist/index.js');
const mcpProxyEntry = path.join(root, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');
const cliEntry = path.join(root, 'out/cli.mjs');
const sdkCliEntry = path.join(root, 'out/bench/cli-sdk-transport.mjs');

// ---- process bookkeeping: everything we start is killed at the end ----------------------------

const tracked = new Set(); // pids (our direct children, each in its own process group when detached)
const tmpDirs = [];

function procChildren() {
  const byParent = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!byParent.has(ppid)) byParent.set(ppid, []);
      byParent.get(ppid).push(Number(entry));
    } catch {}
  }
  return byParent;
}

function descendants(pid) {
  const byParent = procChildren();
  const out = [];
  const stack = [pid];
  while (stack.length) {
    for (const c of byParent.get(stack.pop()) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killTree(pid, graceMs = 3000) {
  const pids = [pid, ...descendants(pid)];
  for (const p of pids) {
    try {
      process.kill(p, 'SIGTERM');
    } catch {}
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pids.some(alive)) await sleep(50);
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {}
  }
  tracked.delete(pid);
}

async function cleanupAll() {
  await Promise.all([...tracked].map((pid) => killTree(pid)));
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
  tmpDirs.length = 0;
}

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`\nbench: ${sig}, stopping everything it started…\n`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

// ---- helpers --------------------------------------------------------------------------------

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function readStatus(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { hwmKb: kb('VmHWM'), rssKb: kb('VmRSS') };
  } catch {
    return { hwmKb: NaN, rssKb: NaN };
  }
}

function mkTmp(prefix) {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  tmpDirs.push(d);
  return d;
}

/** A detached child (own process group) whose stderr tail we keep for error messages. */
function spawnTracked(command, args, env = {}) {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  tracked.add(child.pid);
  const tail = [];
  const keep = (chunk) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (tail.length > 30) tail.splice(0, tail.length - 30);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('exit', () => tracked.delete(child.pid));
  return { child, tail };
}

async function waitForHttp(url, child, tail, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited before listening:\n  ${tail.join('\n  ')}`);
    try {
      const res = await fetch(url, { method: 'GET', headers: { host: new URL(url).host } });
      await res.body?.cancel();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`not listening at ${url} after ${timeoutMs} ms:\n  ${tail.join('\n  ')}`);
}

function writeProfile(dir) {
  const workspace = path.join(dir, 'ws');
  mkdirSync(workspace, { recursive: true });
  const file = path.join(dir, 'bench.yaml');
  writeFileSync(
    file,
    [
      'name: bench',
      `workspace: ${JSON.stringify(workspace)}`,
      'servers:',
      '  everything:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(everythingEntry)}, stdio]`,
      'policy:',
      '  default: allow',
      '',
    ].join('\n'),
  );
  return file;
}

// Launch consent (docs/trust.md): the bench pins its profile the way a user would, with the real CLI,
// before the gateway starts; an unpinned server is held and its tools never listed.
function trustProfile(profile, dataDir) {
  const r = spawnSync(process.execPath, [cliEntry, 'trust', 'accept', '--profile', profile, '--data-dir', dataDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gatehouse trust accept failed: ${r.stderr || r.stdout}`);
}

function newClient() {
  return new Client({ name: 'gatehouse-bench', version: '0.1.0' }, { capabilities: {} });
}

// The SDK client hands its one transport-wide AbortSignal to every fetch; undici releases each
// request's 'abort' listener only when the request is garbage-collected, so a few thousand fast
// calls pile up thousands of listeners (MaxListenersExceededWarning) and adding one becomes
// linear in their number, slowing the *client* more the faster the server is. The wrapper
// leaves the signal out (it only matters for close()), the same for every HTTP target.
const benchFetch = (url, init) => fetch(url, { ...init, signal: undefined });

function httpClientTransport(url, token) {
  return new StreamableHTTPClientTransport(new URL(url), {
    fetch: benchFetch,
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
}

// ---- targets --------------------------------------------------------------------------------

/** `--cpu-prof DIR`: the gateway children write V8 CPU profiles there (on orderly exit). */
function cpuProfArgs() {
  const extra = opts['gateway-node-options']?.split(/\s+/).filter(Boolean) ?? [];
  return [...preloadArgs(), ...extra, ...(opts['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts['cpu-prof'])}`] : [])];
}

/** Each start() resolves to { client, pid (the process in the middle), stop() }. */
function gatewayHttpTarget(entry, audit) {
  return async () => {
    const dir = mkTmp('gh-bench-');
    const profile = writeProfile(dir);
    trustProfile(profile, path.join(dir, 'data'));
    const port = await freePort();
    const args = [entry, 'gateway', '--profile', profile, '--http', String(port), '--quiet', '--data-dir', path.join(dir, 'data')];
    if (!audit) args.push('--no-audit');
    const { child, tail } = spawnTracked(process.execPath, [...cpuProfArgs(), ...args], { GATEHOUSE_TOKEN: TOKEN });
    const url = `http://127.0.0.1:${port}/mcp`;
    await waitForHttp(url, child, tail);
    const client = newClient();
    await client.connect(httpClientTransport(url, TOKEN));
    return { client, pid: child.pid, stop: () => killTree(child.pid, 5000) };
  };
}

function stdioTarget(command, args, middleIsServer) {
  return async () => {
    const transport = new StdioClientTransport({ command, args, cwd: root, stderr: 'pipe', env: { ...process.env } });
    transport.stderr?.on('data', () => {});
    const client = newClient();
    await client.connect(transport);
    const pid = transport.pid;
    tracked.add(pid);
    return {
      client,
      pid,
      middleIsServer,
      stop: async () => {
        await client.close().catch(() => {});
        const deadline = Date.now() + 5000;
        while (Date.now() < deadline && alive(pid)) await sleep(50);
        if (alive(pid)) await killTree(pid);
        tracked.delete(pid);
      },
    };
  };
}

function gatewayStdioTarget(audit, entry = cliEntry) {
  return async () => {
    const dir = mkTmp('gh-bench-');
    const profile = writeProfile(dir);
    trustProfile(profile, path.join(dir, 'data'));
    const args = [...cpuProfArgs(), entry, 'gateway', '--profile', profile, '--quiet', '--data-dir', path.join(dir, 'data')];
    if (!audit) args.push('--no-audit');
    return stdioTarget(process.execPath, args, false)();
  };
}

function httpChildTarget(makeArgs, urlPath = '/mcp') {
  return async () => {
    const port = await freePort();
    const { child, tail } = spawnTracked(process.execPath, makeArgs(port));
    const url = `http://127.0.0.1:${port}${urlPath}`;
    await waitForHttp(url, child, tail);
    const client = newClient();
    await client.connect(httpClientTransport(url));
    return { client, pid: child.pid, stop: () => killTree(child.pid) };
  };
}

const everythingCmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(everythingEntry)} stdio`;

const TARGETS = [
  { id: 'direct', label: 'direct stdio (server-everything)', start: stdioTarget(process.execPath, [...preloadArgs(), everythingEntry, 'stdio'], true) },
  {
    id: 'relay',
    label: 'bare stdio relay (parse + re-serialise, floor for one hop)',
    start: stdioTarget(process.execPath, [...preloadArgs(), path.join(root, 'bench/relay-floor.mjs'), process.execPath, everythingEntry, 'stdio'], false),
  },
  { id: 'gw-http', label: 'gateway HTTP (lean transport), audit on', start: gatewayHttpTarget(cliEntry, true) },
  { id: 'gw-http-noaudit', label: 'gateway HTTP (lean transport), audit off', start: gatewayHttpTarget(cliEntry, false) },
  { id: 'gw-sdk', label: 'gateway HTTP, SDK transport instead, audit on', start: gatewayHttpTarget(sdkCliEntry, true) },
  { id: 'gw-stdio', label: 'gateway stdio, audit on', start: gatewayStdioTarget(true) },
  { id: 'gw-stdio-noaudit', label: 'gateway stdio, audit off', start: gatewayStdioTarget(false) },
  {
    id: 'supergateway',
    label: 'supergateway --stateful (streamableHttp)',
    start: httpChildTarget((port) => [...preloadArgs(), supergatewayEntry, '--stdio', everythingCmd, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none']),
  },
  {
    id: 'mcp-proxy',
    label: 'mcp-proxy (stream endpoint)',
    start: httpChildTarget((port) => [...preloadArgs(), mcpProxyEntry, '--host', '127.0.0.1', '--port', String(port), '--', process.execPath, everythingEntry, 'stdio']),
  },
  { id: 'floor', label: 'SDK Streamable HTTP echo server (floor)', start: httpChildTarget((port) => [...preloadArgs(), path.join(root, 'bench/floor-server.mjs'), String(port)]) },
];

// `--baseline-cli FILE`: an earlier build of out/ (copied aside before a change) measured beside
// this one, target by target in the same rounds, so a change is read as a ratio of one run.
const baselineCli = opts['baseline-cli'] ? path.resolve(opts['baseline-cli']) : undefined;
if (baselineCli) {
  const base = (id, label, start) => ({ id: `${id}-base`, label: `${label} (baseline build)`, start, baseline: true });
  const at = (id) => TARGETS.findIndex((t) => t.id === id);
  TARGETS.splice(at('gw-stdio'), 0, base('gw-stdio', 'gateway stdio, audit on', gatewayStdioTarget(true, baselineCli)));
  TARGETS.splice(at('gw-http'), 0, base('gw-http', 'gateway HTTP (lean transport), audit on', gatewayHttpTarget(baselineCli, true)));
}

// ---- measurement ----------------------------------------------------------------------------

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(target) {
  // The process in the middle appends its counters (bench/counters-preload.mjs) to this file.
  const countersFile = path.join(mkTmp('gh-counters-'), 'counters.jsonl');
  process.env.GATEHOUSE_BENCH_COUNTERS = countersFile;
  // `--heap-prof FILE`: the middle process samples its allocations over both phases (one target).
  if (opts['heap-prof']) process.env.GATEHOUSE_BENCH_HEAP_PROF = path.resolve(opts['heap-prof'].replace('%t', target.id));
  let t;
  try {
    t = await target.start();
  } finally {
    delete process.env.GATEHOUSE_BENCH_COUNTERS;
    delete process.env.GATEHOUSE_BENCH_HEAP_PROF;
  }
  const { client, pid } = t;
  try {
    let n = 0;
    const call = () => client.callTool({ name: 'echo', arguments: { message: `hello ${n++}` } });
    const first = await call();
    const text = first.content?.[0]?.text;
    if (text !== 'Echo: hello 0') throw new Error(`unexpected echo result: ${JSON.stringify(first).slice(0, 200)}`);
    for (let i = 0; i < N.warm; i++) await call();

    const k0 = await sampleCounters(pid, countersFile);
    const lat = new Array(N.seq);
    for (let i = 0; i < N.seq; i++) {
      const t0 = performance.now();
      await call();
      lat[i] = performance.now() - t0;
    }
    const k1 = await sampleCounters(pid, countersFile);
    lat.sort((a, b) => a - b);

    let issued = 0;
    const worker = async () => {
      while (issued < N.conc) {
        issued++;
        await call();
      }
    };
    const c0 = performance.now();
    await Promise.all(Array.from({ length: INFLIGHT }, worker));
    const elapsed = performance.now() - c0;
    const k2 = await sampleCounters(pid, countersFile);
    if (!k0 || !k1 || !k2) process.stderr.write(`(no counters from pid ${pid}) `);
    // What the middle process holds after each phase: live heap (V8 used) beside its RSS.
    else process.stderr.write(`[heap used ${[k0, k1, k2].map((k) => f(k.heapUsed / 1048576, 0)).join(' → ')} MB, rss ${[k0, k1, k2].map((k) => f(k.rss / 1048576, 0)).join(' → ')} MB] `);
    const { hwmKb } = readStatus(pid);
    return {
      // RSS after the warm-up, before the measured phases (the process idle between calls).
      idleMb: k0 ? k0.rss / 1048576 : NaN,
      p50: pct(lat, 50),
      p99: pct(lat, 99),
      cps: N.conc / (elapsed / 1000),
      hwmMb: hwmKb / 1024,
      // The middle process's CPU, allocation and GC per call: sequential phase, concurrent phase.
      seq: perCall(k0, k1, N.seq),
      conc: perCall(k1, k2, N.conc),
    };
  } finally {
    await t.stop();
  }
}

const minOf = (a, b) => (Number.isFinite(a) && !(b < a) ? a : b);
const bestPerCall = (a, b) => ({ cpuUs: minOf(a.cpuUs, b.cpuUs), allocB: minOf(a.allocB, b.allocB), gcMsPer1k: minOf(a.gcMsPer1k, b.gcMsPer1k) });

function best(a, b) {
  if (!a) return b;
  return {
    p50: Math.min(a.p50, b.p50),
    p99: Math.min(a.p99, b.p99),
    cps: Math.max(a.cps, b.cps),
    hwmMb: Math.max(a.hwmMb, b.hwmMb),
    idleMb: Math.max(a.idleMb, b.idleMb),
    seq: bestPerCall(a.seq, b.seq),
    conc: bestPerCall(a.conc, b.conc),
  };
}

async function buildSdkTransportCli() {
  const shim = path.join(root, 'bench/sdk-transport-shim.ts');
  const endpoint = path.join(root, 'main/gateway/http-endpoint.ts');
  await build({
    ...hostBundleOptions,
    absWorkingDir: root,
    entryPoints: { 'cli-sdk-transport': 'main/cli/index.ts' },
    outdir: 'out/bench',
    logLevel: 'warning',
    plugins: [
      {
        name: 'sdk-transport',
        setup(b) {
          b.onResolve({ filter: /^\.\/lean-http-transport$/ }, (a) => (a.importer === endpoint ? { path: shim } : undefined));
        },
      },
    ],
  });
  if (!readFileSync(sdkCliEntry, 'utf8').includes('@modelcontextprotocol/sdk/server/streamableHttp.js')) throw new Error('the SDK-transport build did not pick up the SDK transport');
}

async function main() {
  if (!existsSync(cliEntry)) throw new Error(`${cliEntry} missing: run node scripts/build.mjs (npm run bench does)`);
  if (opts.faults) {
    const { runFaultBench } = await import('./faults.mjs');
    const { table, aims } = await runFaultBench({ seconds: quick ? 3 : 5, only: opts.only?.split(',') });
    process.stdout.write(`\n${table}\n\nAims (one server misbehaving):\n${aims}\n`);
    if (!opts['no-write'] && !quick && !opts.only) {
      const machine = `${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`;
      const md = `# Fault benchmark\n\n${new Date().toISOString()} · ${machine}\n\nThe good server's tools/call latency (SDK Client over the stdio gateway, sequential calls for 5 s) while the other server misbehaves; gateway peak RSS = VmHWM. A shared machine: compare rows of one run, not runs.\n\n${table}\n\nAims (one server misbehaving):\n\n\`\`\`\n${aims}\n\`\`\`\n`;
      writeFileSync(path.join(root, 'bench/FAULTS.md'), md);
      process.stderr.write('bench: wrote bench/FAULTS.md\n');
    }
    return;
  }
  await buildSdkTransportCli();
  const only = opts.only ? new Set(opts.only.split(',')) : undefined;
  const targets = TARGETS.filter((t) => !only || only.has(t.id) || (t.baseline && only.has(t.id.replace(/-base$/, ''))));
  const results = new Map();
  process.stderr.write(`bench: ${targets.length} targets × ${rounds} round(s); per target ${N.warm} warm-up, ${N.seq} sequential, ${N.conc} with ${INFLIGHT} in flight\n`);
  for (let round = 1; round <= rounds; round++) {
    for (const t of targets) {
      if (interrupted) return;
      process.stderr.write(`  round ${round} · ${t.label} … `);
      try {
        const r = await measure(t);
        results.set(t.id, best(results.get(t.id), r));
        process.stderr.write(`p50 ${f(r.p50, 3)} ms, ${f(r.cps, 0)} calls/s\n`);
      } catch (err) {
        process.stderr.write(`FAILED: ${err.message}\n`);
      }
    }
  }
  const when = new Date().toISOString();
  const machine = `${os.cpus().length} CPUs (nproc ${os.availableParallelism?.() ?? os.cpus().length}), ${os.cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, ${os.platform()} ${os.release()}`;
  const method =
    `tools/call echo via the SDK Client; per target ${N.warm} warm-up calls, ${N.seq} sequential calls (p50/p99), ${N.conc} calls with ${INFLIGHT} in flight ` +
    `on one client session (calls/s); best of ${rounds} round(s). Peak RSS = VmHWM of the process in the middle (gateway / proxy / floor server; for direct stdio the server itself). ` +
    'CPU µs/call = process.cpuUsage() of that process per call, alloc KB/call = V8 heap bytes it allocated per call (GCProfiler: heap growth + bytes collected), ' +
    'GC ms = the collections\' wall time (v8.GCProfiler) per 1000 calls; all read by bench/counters-preload.mjs inside that process, sequential / concurrent phase.';
  const tableText = table(TARGETS, results);
  const aimText = directAims(results);
  const aim10Text = floorAims(results);
  const out = `\n${tableText}\n\nAims (bare relay and floor):\n${aim10Text}\n\nAims (direct stdio and supergateway):\n${aimText}\n`;
  process.stdout.write(out);
  if (!opts['no-write'] && !quick) {
    const load = os.loadavg().map((x) => x.toFixed(2)).join(' / ');
    const shared = `The machine is shared with other work while this runs (load average at the end ${load}): read the ratios, measured in one run, not the absolute figures.`;
    const md = `# Benchmark results\n\n${when} · ${os.hostname()} · ${machine}\n\n${method}\n\n${shared}\n\n${tableText}\n\nAims (bare relay and floor, audit on everywhere):\n\n\`\`\`\n${aim10Text}\n\`\`\`\n\nAims (direct stdio and supergateway):\n\n\`\`\`\n${aimText}\n\`\`\`\n`;
    // `npm run bench:ui` keeps its own section (bench/ui/), and the notes written below it are
    // people's: carry both over, from the section's marker to the end of the file.
    const prev = existsSync(path.join(root, 'bench/RESULTS.md')) ? readFileSync(path.join(root, 'bench/RESULTS.md'), 'utf8') : '';
    const ui = /<!-- bench:ui -->[\s\S]*$/.exec(prev)?.[0];
    writeFileSync(path.join(root, 'bench/RESULTS.md'), ui ? `${md}\n${ui}` : md);
    process.stderr.write('bench: wrote bench/RESULTS.md\n');
  }
}

main()
  .catch((err) => {
    process.stderr.write(`bench: ${err.stack ?? err}\n`);
  })
  .finally(async () => {
    await cleanupAll();
    process.exit(0);
  });
