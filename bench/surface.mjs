// `node bench/surface.mjs`: what an agent's context pays for the tool surface. For 1, 5 and 15
// servers behind one gateway (server-everything and server-memory, alternating), the bytes and
// tokens of tools/list and of a typical search+call round, lazy vs full (the friendly surface).
// Tokens are counted with gpt-tokenizer (o200k_base, the GPT-4o encoding); other models'
// tokenizers differ by some percent, the ratios hardly. Bytes are of the JSON-RPC messages as
// the SDK client sends and receives them (request and response, UTF-8).
// A benchmark, not a test (STYLE.md): figures and ratios printed, exit 0. Needs the built CLI:
//   node scripts/build.mjs --main-only && node bench/surface.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cliEntry = path.join(root, 'out/cli.mjs');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const memory = path.join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
if (!existsSync(cliEntry)) {
  process.stderr.write(`bench/surface.mjs: ${cliEntry} is missing; run node scripts/build.mjs --main-only first\n`);
  process.exit(1);
}

function profile(dir, n) {
  const ws = path.join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  const lines = ['name: surface-bench', `workspace: ${JSON.stringify(ws)}`, 'servers:'];
  for (let i = 0; i < n; i++) {
    lines.push(`  s${i + 1}:`, `    command: ${JSON.stringify(process.execPath)}`);
    if (i % 2 === 0) lines.push(`    args: [${JSON.stringify(everything)}, stdio]`);
    else lines.push(`    args: [${JSON.stringify(memory)}]`, `    env: { MEMORY_FILE_PATH: ${JSON.stringify(path.join(ws, `m${i}.jsonl`))} }`);
  }
  lines.push('policy:', '  default: allow', '');
  const file = path.join(dir, 'bench.yaml');
  writeFileSync(file, lines.join('\n'));
  return file;
}

/** A client whose transport counts the JSON-RPC bytes each way, per request id. */
async function connect(file, dataDir, surface) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliEntry, 'gateway', '--profile', file, '--quiet', '--data-dir', dataDir, '--no-audit', '--tool-surface', surface],
    stderr: 'pipe',
    env: { ...process.env, GATEHOUSE_START_GRACE_MS: '60000', GATEHOUSE_START_STRAGGLER_MS: '20000' },
  });
  transport.stderr?.on('data', () => {});
  const wire = [];
  const send = transport.send.bind(transport);
  transport.send = (msg, o) => (wire.push(JSON.stringify(msg)), send(msg, o));
  const client = new Client({ name: 'surface-bench', version: '0.1.0' });
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => (wire.push(JSON.stringify(msg)), onmessage?.(msg, extra));
  return { client, wire };
}

/** Bytes and tokens of the messages from `from` on. */
function cost(wire, from) {
  const text = wire.slice(from).join('\n');
  return { bytes: Buffer.byteLength(text), tokens: countTokens(text) };
}

/**
 * Waits until every server is up: the capabilities report (on both surfaces) lists the same
 * number of tools, none of them on a server still starting, three polls in a row. Measuring
 * before that undercounts the full list (a 15-server launch on a loaded machine takes a while).
 */
async function settle(client) {
  let last = -1;
  let same = 0;
  for (let i = 0; i < 150 && same < 3; i++) {
    const res = await client.callTool({ name: 'gatehouse_capabilities', arguments: {} }, undefined, { timeout: 300_000 });
    const states = res.structuredContent?.tool_states ?? [];
    const down = states.some((t) => t.reason_code === 'server_unavailable');
    same = !down && states.length === last ? same + 1 : 0;
    last = states.length;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function measure(n, surface) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-surface-'));
  try {
    const file = profile(dir, n);
    const dataDir = path.join(dir, 'data');
    const trust = spawnSync(process.execPath, [cliEntry, 'trust', 'accept', '--profile', file, '--data-dir', dataDir], { encoding: 'utf8' });
    if (trust.status !== 0) throw new Error(`trust accept: ${trust.stderr}`);
    const { client, wire } = await connect(file, dataDir, surface);
    try {
      await settle(client);
      let at = wire.length;
      const { tools } = await client.listTools(undefined, { timeout: 300_000 });
      const list = cost(wire, at);
      at = wire.length;
      // The typical round: find the tool that adds two numbers, then call it.
      let result;
      if (surface === 'lazy') {
        const found = await client.callTool({ name: 'gatehouse_search_tools', arguments: { query: 'sum of two numbers', limit: 3 } });
        const name = found.structuredContent.tools[0].name;
        result = await client.callTool({ name: 'gatehouse_call_tool', arguments: { name, arguments: { a: 2, b: 40 } } });
      } else {
        const name = tools.find((t) => /get-sum$/.test(t.name)).name;
        result = await client.callTool({ name, arguments: { a: 2, b: 40 } });
      }
      if (!JSON.stringify(result.content).includes('42')) throw new Error(`unexpected result ${JSON.stringify(result)}`);
      return { tools: tools.length, list, round: cost(wire, at) };
    } finally {
      await client.close().catch(() => {});
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = [];
for (const n of [1, 5, 15]) {
  const full = await measure(n, 'friendly');
  const lazy = await measure(n, 'lazy');
  rows.push({ n, full, lazy });
  const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`;
  const total = (m) => ({ bytes: m.list.bytes + m.round.bytes, tokens: m.list.tokens + m.round.tokens });
  const ft = total(full);
  const lt = total(lazy);
  process.stdout.write(
    [
      `${n} server(s): full lists ${full.tools} tools, lazy ${lazy.tools}`,
      `  tools/list        full ${full.list.bytes} B / ${full.list.tokens} tok   lazy ${lazy.list.bytes} B / ${lazy.list.tokens} tok   lazy/full ${pct(lazy.list.bytes, full.list.bytes)} (tokens ${pct(lazy.list.tokens, full.list.tokens)})`,
      `  search+call round full ${full.round.bytes} B / ${full.round.tokens} tok   lazy ${lazy.round.bytes} B / ${lazy.round.tokens} tok`,
      `  list + one round  full ${ft.bytes} B / ${ft.tokens} tok   lazy ${lt.bytes} B / ${lt.tokens} tok   lazy/full ${pct(lt.bytes, ft.bytes)} (tokens ${pct(lt.tokens, ft.tokens)})`,
      '',
    ].join('\n'),
  );
}
const aim = rows.at(-1);
process.stdout.write(`${aim.lazy.list.bytes <= 0.1 * aim.full.list.bytes ? 'PASS' : 'MISS'}: with 15 servers the lazy tools/list is at most 10 % of the full one's bytes\n`);
