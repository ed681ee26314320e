// What the downstream redaction step costs per message (docs/security.md, "Secrets"): every
// message toward an agent passes Redactor.redactJson (main/protocol/exchange-channel.ts). A
// benchmark, not a test (STYLE.md): it prints µs per message for a 4 KB tools/call result with
// three secrets configured (clean, and with one secret in it), beside JSON.stringify of the same
// message measured in the same run as the baseline; exit 0 either way.
//
//   node bench/redaction.mjs [--rounds N]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { hostBundleOptions } from '../scripts/esbuild-options.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20000' } } });
const rounds = Number(values.rounds);

// Without the host banner: its createRequire(import.meta.url) has no file to start from in a data: URL.
const bundled = await build({ ...hostBundleOptions, banner: {}, absWorkingDir: root, entryPoints: ['main/secrets/redactor.ts'], write: false, outdir: 'unused', logLevel: 'warning' });
const { Redactor } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);

const redactor = new Redactor();
redactor.add('FILES_KEY', 'files-secret-1a2b3c4d');
redactor.add('DOCS_TOKEN', 'ghp_x9Y8z7W6v5U4t3S2r1');
redactor.add('DB_PASS', 'p"ss\\w0rd/with spaces');

const text = 'lorem ipsum dolor sit amet '.repeat(150).slice(0, 4000);
const clean = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text }], structuredContent: { summary: text.slice(0, 100), n: 3 }, _meta: { 'x/y': 'z' } } };
const dirty = { ...clean, result: { ...clean.result, content: [{ type: 'text', text: `${text.slice(0, 3900)} files-secret-1a2b3c4d` }] } };

function perMessage(fn) {
  for (let i = 0; i < Math.min(2000, rounds); i++) fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1e3 / rounds;
}

const baseline = perMessage(() => JSON.stringify(clean));
const cleanUs = perMessage(() => redactor.redactJson(clean));
const dirtyUs = perMessage(() => redactor.redactJson(dirty));
console.log(`4 KB result, 3 secrets configured, ${rounds} rounds`);
console.log(`  JSON.stringify (baseline)   ${baseline.toFixed(1)} µs/message`);
console.log(`  redactJson, no secret in it ${cleanUs.toFixed(1)} µs/message (${(cleanUs / baseline).toFixed(2)}× the baseline; returns the message itself: ${redactor.redactJson(clean) === clean})`);
console.log(`  redactJson, one secret      ${dirtyUs.toFixed(1)} µs/message (${(dirtyUs / baseline).toFixed(2)}× the baseline)`);
