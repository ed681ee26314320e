// Summarises a V8 .cpuprofile (from `node bench/run.mjs --cpu-prof DIR`): self time by
// function and by package/file, so the hot spots of a gateway run are one command away.
//   node bench/prof-summary.mjs FILE.cpuprofile [top=25]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/prof-summary.mjs FILE.cpuprofile [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
for (let i = 0; i < prof.samples.length; i++) {
  const dt = prof.timeDeltas[i] ?? 0;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fn = new Map();
const pkg = new Map();
for (const [id, us] of self) {
  const cf = byId.get(id).callFrame;
  const url = cf.url.replace(/^file:\/\//, '');
  const where = url.includes('node_modules/')
    ? url.slice(url.lastIndexOf('node_modules/') + 13).split('/').slice(0, url.includes('node_modules/@') ? 2 : 1).join('/')
    : url ? url.split('/').slice(-2).join('/') : `(${cf.functionName || 'native'})`;
  const key = `${cf.functionName || '(anon)'}  ${url.split('/').slice(-1)[0]}:${cf.lineNumber + 1}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  pkg.set(where, (pkg.get(where) ?? 0) + us);
}
const show = (title, map) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}\n`);
  }
};
process.stdout.write(`total sampled ${(total / 1000).toFixed(0)} ms\n`);
show('by package / file', pkg);
show('by function (self)', fn);
