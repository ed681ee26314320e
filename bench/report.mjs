// The bench's table and aims (bench/run.mjs measures, this formats): ratios against the
// baselines of the same run, and one PASS/MISS line per aim of docs/gateway.md "Performance".
export const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—');
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '—');
const kb = (b) => (Number.isFinite(b) ? (b / 1024).toFixed(1) : '—');

/** The gateway's aims (docs/gateway.md "Performance"). */
export const AIMS = { hopLatency: 2, hopCps: 0.75, httpVsSupergw: 1.5, allocKbPerCall: 15, rssMb: 100, rssAimMb: 64 };

export function table(targets, results) {
  const direct = results.get('direct');
  const sg = results.get('supergateway');
  const head = [
    'target',
    'p50 ms',
    'p99 ms',
    'calls/s',
    'p50 ÷ stdio',
    'calls/s ÷ stdio',
    'p50 ÷ supergw',
    'calls/s ÷ supergw',
    'peak RSS MB',
    'idle RSS MB',
    'CPU µs/call (seq/32)',
    'alloc KB/call (seq/32)',
    'GC ms / 1000 calls (wall, seq/32)',
  ];
  const rows = [];
  for (const t of targets) {
    const r = results.get(t.id);
    if (!r) continue;
    rows.push([
      t.label,
      f(r.p50, 3),
      f(r.p99, 3),
      f(r.cps, 0),
      ratio(r.p50 / direct?.p50),
      ratio(r.cps / direct?.cps),
      ratio(r.p50 / sg?.p50),
      ratio(r.cps / sg?.cps),
      f(r.hwmMb, 1),
      f(r.idleMb, 1),
      `${f(r.seq.cpuUs, 0)} / ${f(r.conc.cpuUs, 0)}`,
      `${kb(r.seq.allocB)} / ${kb(r.conc.allocB)}`,
      `${f(r.seq.gcMsPer1k, 0)} / ${f(r.conc.gcMsPer1k, 0)}`,
    ]);
  }
  const md = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
  return md.join('\n');
}

function lineWriter() {
  const lines = [];
  const line = (ok, text) => lines.push(`${ok === undefined ? 'n/a ' : ok ? 'PASS' : 'MISS'}  ${text}`);
  return { line, text: () => lines.join('\n') };
}

const known = (...xs) => xs.every((x) => x !== undefined && Number.isFinite(x));

/** Memory aims of one gateway target: allocated per call (both phases) and peak RSS. */
function memoryAims(line, r, name) {
  const worst = Math.max(r.seq.allocB, r.conc.allocB);
  line(known(worst) ? worst <= AIMS.allocKbPerCall * 1024 : undefined, `${name}: ${kb(worst)} KB allocated per call ≤ ${AIMS.allocKbPerCall} KB`);
  line(r.hwmMb <= AIMS.rssMb, `${name}: peak RSS ${f(r.hwmMb, 1)} MB ≤ ${AIMS.rssMb} MB`);
  line(r.hwmMb <= AIMS.rssAimMb, `${name}: peak RSS ${f(r.hwmMb, 1)} MB ≤ ${AIMS.rssAimMb} MB (the stretch aim)`);
}

/** The floor aims: the stdio hop against the bare relay, HTTP against the floor and supergateway. */
export function floorAims(results) {
  const direct = results.get('direct');
  const relay = results.get('relay');
  const floor = results.get('floor');
  const sg = results.get('supergateway');
  const { line, text } = lineWriter();
  const s = results.get('gw-stdio');
  if (s) {
    const added = s.p50 - direct?.p50;
    const relayAdded = relay?.p50 - direct?.p50;
    line(known(added, relayAdded) ? added <= AIMS.hopLatency * relayAdded : undefined, `gateway stdio: added p50 ${f(added, 3)} ms ≤ ${AIMS.hopLatency}× the bare relay's added ${f(relayAdded, 3)} ms (${f(AIMS.hopLatency * relayAdded, 3)} ms)`);
    line(relay ? s.cps >= AIMS.hopCps * relay.cps : undefined, `gateway stdio: ${f(s.cps, 0)} calls/s ≥ ${AIMS.hopCps}× the bare relay's ${f(relay?.cps, 0)} (${f(AIMS.hopCps * relay?.cps, 0)})`);
    memoryAims(line, s, 'gateway stdio');
  }
  const h = results.get('gw-http');
  if (h) {
    line(floor ? h.p50 <= floor.p50 : undefined, `gateway HTTP: p50 ${f(h.p50, 3)} ms ≤ the SDK echo server's ${f(floor?.p50, 3)} ms`);
    line(sg ? h.cps >= AIMS.httpVsSupergw * sg.cps : undefined, `gateway HTTP: ${f(h.cps, 0)} calls/s ≥ ${AIMS.httpVsSupergw}× supergateway (${f(AIMS.httpVsSupergw * sg?.cps, 0)})`);
    memoryAims(line, h, 'gateway HTTP');
  }
  return text();
}

/** The earlier aims, against direct stdio and supergateway. */
export function directAims(results) {
  const direct = results.get('direct');
  const floor = results.get('floor');
  const sg = results.get('supergateway');
  const { line, text } = lineWriter();
  const h = results.get('gw-http');
  if (h) {
    const name = 'gateway HTTP (lean transport, audit on)';
    line(floor ? h.p50 <= floor.p50 : undefined, `${name}: p50 ${f(h.p50, 3)} ms ≤ floor p50 ${f(floor?.p50, 3)} ms`);
    line(direct ? h.p50 <= 4 * direct.p50 : undefined, `${name}: p50 ${f(h.p50, 3)} ms ≤ 4× direct stdio (${f(4 * direct?.p50, 3)} ms)`);
    line(sg ? h.cps >= 1.5 * sg.cps : undefined, `${name}: ${f(h.cps, 0)} calls/s ≥ 1.5× supergateway (${f(1.5 * sg?.cps, 0)})`);
  }
  const s = results.get('gw-stdio');
  if (s) {
    line(direct ? s.p50 <= 1.5 * direct.p50 : undefined, `gateway stdio (audit on): p50 ${f(s.p50, 3)} ms ≤ 1.5× direct stdio (${f(1.5 * direct?.p50, 3)} ms)`);
    line(direct ? s.cps >= 0.6 * direct.cps : undefined, `gateway stdio (audit on): ${f(s.cps, 0)} calls/s ≥ 60% of direct stdio (${f(0.6 * direct?.cps, 0)})`);
  }
  return text();
}
