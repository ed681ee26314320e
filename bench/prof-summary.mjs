// Summarises a V8 .cpuprofile (from `node bench/run.mjs --cpu-prof DIR`) or a sampling
// .heapprofile (`--heap-prof FILE`): self time (or bytes allocated) by function and by
// package/file, so the hot spots of a gateway run are one command away. Frames of the bundled
// out/ files are mapped back to main/… through their source maps.
//   node bench/prof-summary.mjs FILE.cpuprofile|FILE.heapprofile [top=25]
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/prof-summary.mjs FILE.cpuprofile|FILE.heapprofile [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const prof = JSON.parse(readFileSync(file, 'utf8'));

const maps = new Map();
/** url:line:col of a bundled frame → the original source file and line, when a .map is beside it. */
function original(url, line, col) {
  const p = url.replace(/^file:\/\//, '');
  if (!p.endsWith('.mjs')) return undefined;
  if (!maps.has(p)) maps.set(p, existsSync(`${p}.map`) ? new SourceMap(JSON.parse(readFileSync(`${p}.map`, 'utf8'))) : undefined);
  const e = maps.get(p)?.findEntry(line, col);
  if (!e?.originalSource) return undefined;
  const src = e.originalSource.replace(/^(\.\.\/)+/, '');
  return { src, line: e.originalLine + 1 };
}

function placeOf(cf) {
  const url = cf.url.replace(/^file:\/\//, '');
  const o = original(url, cf.lineNumber, cf.columnNumber);
  const real = o?.src ?? url;
  const where = real.includes('node_modules/')
    ? real.slice(real.lastIndexOf('node_modules/') + 13).split('/').slice(0, real.slice(real.lastIndexOf('node_modules/') + 13).startsWith('@') ? 2 : 1).join('/')
    : o ? o.src : url ? url.split('/').slice(-2).join('/') : `(${cf.functionName || 'native'})`;
  const at = o ? `${path.basename(o.src)}:${o.line}` : `${url.split('/').slice(-1)[0]}:${cf.lineNumber + 1}`;
  return { where, key: `${cf.functionName || '(anon)'}  ${at}` };
}

const fn = new Map();
const pkg = new Map();
let total = 0;
let unit;
// A builtin (`Object.assign`, `Array.prototype.join`…) has no url: its bytes or time are put on
// the nearest caller that has one, named `caller → builtin`.
const add = (cf, n, caller) => {
  const native = !cf.url && caller;
  const { where, key: k } = placeOf(native ? caller : cf);
  const key = native ? `${k} → ${cf.functionName || '(native)'}` : k;
  fn.set(key, (fn.get(key) ?? 0) + n);
  pkg.set(where, (pkg.get(where) ?? 0) + n);
  total += n;
};

if (prof.head) {
  // Sampling heap profile: every node's selfSize is the bytes allocated at that frame.
  unit = 'KB';
  const walk = (node, caller) => {
    if (node.selfSize) add(node.callFrame, node.selfSize / 1024, caller);
    for (const c of node.children ?? []) walk(c, node.callFrame.url ? node.callFrame : caller);
  };
  walk(prof.head);
} else {
  unit = 'ms';
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const callerOf = (id) => {
    for (let p = parent.get(id); p !== undefined; p = parent.get(p)) if (byId.get(p).callFrame.url) return byId.get(p).callFrame;
    return undefined;
  };
  const self = new Map();
  for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000);
  // (garbage collector), (program), (idle) stay themselves: they have no caller.
  for (const [id, ms] of self) add(byId.get(id).callFrame, ms, byId.get(id).callFrame.functionName.startsWith('(') ? undefined : callerOf(id));
}

const show = (title, map) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, n] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${n.toFixed(0).padStart(7)} ${unit}  ${k}\n`);
  }
};
process.stdout.write(`total sampled ${total.toFixed(0)} ${unit}\n`);
show('by package / file', pkg);
show(`by function (self${unit === 'KB' ? ', bytes allocated' : ''})`, fn);
