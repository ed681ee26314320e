// `BENCH_UI_PROFILE=<dir> npm run bench:ui`: each Traffic phase also records a V8 CPU profile
// (<dir>/<phase>.cpuprofile, summarise with `node bench/prof-summary.mjs`) and a Chromium
// performance trace (<dir>/<phase>.trace.json, summarised into <dir>/<phase>.trace.txt: main-thread
// time by event — script, style, layout, paint, GC). Profiling slows frames: figures from a
// profiled run are not the bench's figures.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';

export async function profiled<T>(page: Page, name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_UI_PROFILE;
  if (!dir) return fn();
  mkdirSync(dir, { recursive: true });
  const browser = page.context().browser()!;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  const trace = path.join(dir, `${name}.trace.json`);
  await browser.startTracing(page, { path: trace, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink.user_timing'] });
  await cdp.send('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await cdp.send('Profiler.stop');
    await browser.stopTracing();
    writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    writeFileSync(path.join(dir, `${name}.trace.txt`), summariseTrace(trace));
    await cdp.detach();
  }
}

interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
  tid: number;
  pid: number;
  args?: { name?: string };
}

/** Self-less totals of complete events on the renderer main thread, by name (top 25). */
function summariseTrace(file: string): string {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(data) ? data : data.traceEvents;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const totals = new Map<string, { ms: number; n: number }>();
  for (const e of events) {
    if (!main || e.pid !== main.pid || e.tid !== main.tid || e.ph !== 'X' || e.dur === undefined) continue;
    const t = totals.get(e.name) ?? { ms: 0, n: 0 };
    t.ms += e.dur / 1000;
    t.n++;
    totals.set(e.name, t);
  }
  return [...totals.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 25)
    .map(([k, v]) => `${v.ms.toFixed(0).padStart(7)} ms  ${String(v.n).padStart(6)}×  ${k}`)
    .join('\n');
}
