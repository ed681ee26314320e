// What the data scanning step costs per call (docs/data.md): every tools/call's arguments and
// result pass DataScanner.scan (main/data/scanner.ts), and every tapped message the prefilter
// (main/data/traffic-screen.ts). A benchmark, not a test (STYLE.md): µs per value for a 4 KB
// tools/call result with three secrets configured, clean (the prefilter stops it: secretlint never
// runs), with a candidate that is no credential (secretlint runs and finds nothing) and with a
// GitHub token and an AWS key id in it, beside JSON.stringify of the same result as the baseline
// measured in the same run; exit 0 either way.
//
//   node bench/data-scan.mjs [--rounds N]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { hostBundleOptions } from '../scripts/esbuild-options.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '300' } } });
const rounds = Number(values.rounds);

// Bundled into out/ (not a data: URL): secretlint stays an external package, resolved from node_modules.
const outfile = path.join(root, 'out', 'bench-data-scan.mjs');
await build({ ...hostBundleOptions, banner: {}, absWorkingDir: root, stdin: { contents: "export { DataScanner, mayHoldCredentials } from './main/data/scanner.ts'; export { Redactor } from './main/secrets/redactor.ts';", resolveDir: root, loader: 'ts' }, outfile, logLevel: 'warning' });
const { DataScanner, mayHoldCredentials, Redactor } = await import(pathToFileURL(outfile).href);

const redactor = new Redactor();
redactor.add('FILES_KEY', 'files-secret-1a2b3c4d');
redactor.add('DOCS_TOKEN', 'docs-token-x9Y8z7W6v5U4t3S2r1');
redactor.add('DB_PASS', 'p"ss\\w0rd/with spaces');
const scanner = new DataScanner(redactor);

const text = 'lorem ipsum dolor sit amet '.repeat(150).slice(0, 4000);
const result = (t) => ({ content: [{ type: 'text', text: t }], structuredContent: { summary: t.slice(0, 100), n: 3 }, _meta: { 'x/y': 'z' } });
const clean = result(text);
const candidate = result(`${text.slice(0, 3950)} see https://example.test/docs`);
const token = ['ghp', 'R8kd2LmQ0xZ7vB4nC9sT1wE6yU3iO5pA2hJk'].join('_');
const dirty = result(`${text.slice(0, 3900)} ${token} ${['AKIA', 'QYLPMN5HHHFPZAM2'].join('')}`);

// A fresh copy per call: the scanner remembers the objects it cleared (a message is screened
// once, scanner.ts), so scanning one object again would measure that memo, not the scan.
async function perCall(value, fn) {
  const warm = Array.from({ length: Math.min(200, rounds) }, () => structuredClone(value));
  const copies = Array.from({ length: rounds }, () => structuredClone(value));
  for (const v of warm) await fn(v);
  const t0 = process.hrtime.bigint();
  for (const v of copies) await fn(v);
  return Number(process.hrtime.bigint() - t0) / 1e3 / rounds;
}

const baseline = await perCall(clean, (v) => JSON.stringify(v));
const prefilter = await perCall(clean, (v) => mayHoldCredentials(v));
const cleanUs = await perCall(clean, (v) => scanner.scan(v, 'result'));
const candidateUs = await perCall(candidate, (v) => scanner.scan(v, 'result'));
const dirtyUs = await perCall(dirty, (v) => scanner.scan(v, 'result'));
const found = (await scanner.scan(dirty, 'result')).map((f) => f.rule).join(', ');
const line = (name, us) => `${name.padEnd(44)} ${us.toFixed(1).padStart(8)} µs  ${(us / baseline).toFixed(1).padStart(6)}× JSON.stringify`;
console.log(`data scan, 4 KB tools/call result, 3 configured secrets, ${rounds} rounds`);
console.log(line('JSON.stringify (baseline)', baseline));
console.log(line('traffic prefilter (every tapped message)', prefilter));
console.log(line('scan, clean (prefilter stops it)', cleanUs));
console.log(line('scan, a URL (secretlint runs, finds nothing)', candidateUs));
console.log(line(`scan, with credentials (${found})`, dirtyUs));
