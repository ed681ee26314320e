// `npm run bench:ui`: the Traffic view at the load several SDK clients push through the real
// host's HTTP gateway, in Chromium (1400×900). For each build under test (this checkout's out/,
// plus BENCH_UI_COMPARE=<other out dir> for a side-by-side in the same run):
//   1. launch the demo, fill the window's buffer (100,000 events) with read_file calls;
//   2. heap per held event = (heap full − heap nearly empty) / events added, both after a forced GC;
//   3. 10 s of frames each on Profiles (the control: same load, same store, not on screen), Traffic
//      following, Traffic scrolled to the middle, Traffic paused; filter-chip clicks in each;
//   4. filter clicks with the load stopped (idle, 100k held);
//   5. the other load shapes (SHAPES: sequential SDK clients, 4 × 4 in flight), each with its own
//      control, Traffic following, and 10 Errors-chip clicks at 100k held.
// Results go to stdout and into bench/RESULTS.md between <!-- bench:ui --> markers.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { test, expect, type Page } from '@playwright/test';
import { startServe } from '../../tests/e2e/support/serve';
import { startLoad, type Load } from '../../tests/e2e/support/load';
import { callFromPage } from '../../tests/e2e/support/page-api';
import { trafficLimits as footer } from '../../tests/e2e/support/app';
import { clickLatency, heapAfterGc, measureFrames, type FrameStats } from './page-probes';
import { profiled } from './profile';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLIENTS = Number(process.env.BENCH_UI_CLIENTS ?? 4);
const IN_FLIGHT = Number(process.env.BENCH_UI_INFLIGHT ?? 2);
const PHASE_MS = Number(process.env.BENCH_UI_PHASE_MS ?? 10_000);
// The buffer size the view is measured at (the select's options: 10k, 25k, 50k, 100k, 250k).
const CAPACITY = Number(process.env.BENCH_UI_CAPACITY ?? 100_000);
/** The Traffic grid: how often its rows change is reported next to the frame rate. */
const GRID = '[role=grid][aria-label=Traffic]';

interface Phase {
  name: string;
  frames: FrameStats;
  eventsPerSec: number;
  clicks: number[];
  /** The control this phase is compared with (its own load shape's); default the first phase. */
  controlFps?: number;
}

/**
 * The load shapes of a window kept open all day, on top of the default: agents that come and go
 * (sequential SDK clients, a new session every few calls) and 4 SDK clients × 4 calls in flight.
 */
const SHAPES: Array<{ name: string; clients: number; inFlight: number; callsPerClient?: number }> = [
  { name: 'sequential SDK clients', clients: 2, inFlight: 1, callsPerClient: 5 },
  { name: '4 clients × 4 in flight', clients: 4, inFlight: 4 },
];
/** Errors-chip clicks per shape: 5 on/off pairs, so "9 of 10 under 150 ms" can be read off. */
const SHAPE_CLICK_PAIRS = 5;

interface BuildResult {
  label: string;
  phases: Phase[];
  heapPerEvent: number;
  heldAtFull: number;
  fillSeconds: number;
  idleClicks: number[];
  bottomGapPx: number;
}

async function nav(page: Page, view: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: view, exact: true }).click();
  await expect(page.getByRole('main', { name: view })).toBeVisible();
}

/** Toggle the Errors chip on and off `pairs` times; each click's latency to the next frame. */
async function filterClicks(page: Page, pairs = 3): Promise<number[]> {
  await page.getByRole('button', { name: 'Errors', exact: true }).evaluate((el: any) => el.setAttribute('data-bench', 'errors'));
  const out: number[] = [];
  for (let i = 0; i < pairs * 2; i++) {
    out.push(await clickLatency(page, '[data-bench=errors]'));
    await page.waitForTimeout(300);
  }
  return out;
}

async function runBuild(page: Page, label: string, outDir: string): Promise<BuildResult> {
  const token = randomBytes(24).toString('hex');
  const serve = await startServe({ outDir, env: { GATEHOUSE_TOKEN: token } });
  let load: Load | undefined;
  try {
    await page.goto(await serve.freshLoginUrl());
    await expect(page.getByRole('status', { name: 'Host connection: Connected' })).toBeVisible();
    await nav(page, 'Profiles');
    const card = page.getByRole('region', { name: 'demo', exact: true });
    await card.getByRole('button', { name: 'Launch', exact: true }).click();
    await expect(page.getByRole('banner', { name: 'Top bar' }).getByRole('button', { name: '3/3 ready' })).toBeVisible({ timeout: 60_000 });
    const [launch] = await callFromPage(page, 'launches:list', {});
    await nav(page, 'Traffic');
    await page.getByRole('combobox', { name: 'Buffer size (events held in memory)' }).selectOption(String(CAPACITY));

    const empty = await footer(page);
    const heap0 = await heapAfterGc(page);
    const startLoadNow = () => startLoad({ url: launch!.gatewayUrl!, token, clients: CLIENTS, inFlight: IN_FLIGHT });
    load = await startLoadNow();
    const t0 = Date.now();
    await expect.poll(async () => (await footer(page)).held, { timeout: 15 * 60_000, intervals: [1000] }).toBe(CAPACITY);
    const fillSeconds = (Date.now() - t0) / 1000;

    // Heap with the load stopped (no requests in flight, no batches on their way).
    await load.stop();
    load = undefined;
    await page.waitForTimeout(1500);
    const full = await footer(page);
    const heap1 = await heapAfterGc(page);
    const heapPerEvent = (heap1 - heap0) / Math.max(1, full.held - empty.held);
    const idleClicks = await filterClicks(page);

    load = await startLoadNow();
    await page.waitForTimeout(2000);
    const phases: Phase[] = [];
    const rate = async (fn: () => Promise<FrameStats>, name: string): Promise<{ frames: FrameStats; eventsPerSec: number }> => {
      const a = await footer(page).catch(() => undefined);
      const t = Date.now();
      // BENCH_UI_PROFILE=<dir>: a CPU profile and a trace of the phase (slower frames while on).
      const frames = await profiled(page, name, fn);
      const b = await footer(page).catch(() => undefined);
      return { frames, eventsPerSec: a && b ? (b.total - a.total) / ((Date.now() - t) / 1000) : NaN };
    };

    // Control: the same load and the same store, with the Profiles view on screen.
    {
      const a = await footer(page);
      const t = Date.now();
      await nav(page, 'Profiles');
      const frames = await measureFrames(page, PHASE_MS);
      await nav(page, 'Traffic');
      const b = await footer(page);
      phases.push({ name: 'Profiles (control)', frames, eventsPerSec: (b.total - a.total) / ((Date.now() - t) / 1000), clicks: [] });
    }

    // Following (the view opens at the tail).
    await expect(page.locator('.traffic-follow')).toHaveText('Following');
    {
      const r = await rate(() => measureFrames(page, PHASE_MS, GRID), 'following');
      phases.push({ name: 'Traffic, following', ...r, clicks: await filterClicks(page) });
    }
    const bottomGapPx = await page.getByRole('grid', { name: 'Traffic' }).evaluate((g: any) => {
      const rows = [...g.querySelectorAll('.vl-row:not(.vl-header)')];
      const last = Math.max(...rows.map((r: any) => r.getBoundingClientRect().bottom));
      return Math.round(g.getBoundingClientRect().top + g.clientHeight - last);
    });

    // Scrolled to the middle of the buffer (eviction keeps shifting what is above).
    await page.getByRole('grid', { name: 'Traffic' }).evaluate((g: any) => {
      g.scrollTop = g.scrollHeight / 2;
    });
    await expect(page.locator('.traffic-follow')).toHaveText('Scrolled');
    {
      const r = await rate(() => measureFrames(page, PHASE_MS, GRID), 'scrolled');
      phases.push({ name: 'Traffic, scrolled', ...r, clicks: await filterClicks(page) });
    }

    // Paused with the buffer full.
    await page.getByRole('button', { name: '❚❚ Pause' }).click();
    {
      const r = await rate(() => measureFrames(page, PHASE_MS, GRID), 'paused');
      phases.push({ name: 'Traffic, paused', ...r, clicks: await filterClicks(page) });
    }
    await page.getByRole('button', { name: '▶ Resume' }).click();

    // The other load shapes, the buffer still full (100k held): a control and Traffic following each.
    await load.stop();
    load = undefined;
    for (const shape of SHAPES) {
      load = await startLoad({ url: launch!.gatewayUrl!, token, clients: shape.clients, inFlight: shape.inFlight, ...(shape.callsPerClient ? { callsPerClient: shape.callsPerClient } : {}) });
      await page.waitForTimeout(2000);
      const a = await footer(page);
      const t = Date.now();
      await nav(page, 'Profiles');
      const control = await measureFrames(page, PHASE_MS);
      await nav(page, 'Traffic');
      const b = await footer(page);
      phases.push({ name: `Profiles (control), ${shape.name}`, frames: control, eventsPerSec: (b.total - a.total) / ((Date.now() - t) / 1000), clicks: [], controlFps: control.meanFps });
      await expect(page.locator('.traffic-follow')).toHaveText('Following');
      const r = await rate(() => measureFrames(page, PHASE_MS, GRID), `following-${shape.name}`);
      phases.push({ name: `Traffic, following, ${shape.name}`, ...r, clicks: await filterClicks(page, SHAPE_CLICK_PAIRS), controlFps: control.meanFps });
      await load.stop();
      load = undefined;
    }
    return { label, phases, heapPerEvent, heldAtFull: full.held, fillSeconds, idleClicks, bottomGapPx };
  } finally {
    await load?.stop();
    await serve.stop();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '—');
const f0 = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');

function report(results: BuildResult[], load: string): string {
  const lines: string[] = [];
  lines.push('| build | view | events/s | fps mean | fps min (1 s) | longest gap ms | gaps > 50 ms | list refreshes/s | filter click ms (median / max) | fps ÷ control |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const control = r.phases[0]!.frames.meanFps;
    for (const p of r.phases) {
      lines.push(
        `| ${r.label} | ${p.name} | ${f0(p.eventsPerSec)} | ${f1(p.frames.meanFps)} | ${p.frames.minFps} | ${f0(p.frames.longestGapMs)} | ${p.frames.gapsOver50} | ${p.frames.refreshesPerSec === undefined ? '—' : f1(p.frames.refreshesPerSec)} | ${p.clicks.length ? `${f0(median(p.clicks))} / ${f0(Math.max(...p.clicks))}${p.clicks.length >= 10 ? ` (${p.clicks.filter((c) => c <= 150).length}/${p.clicks.length} ≤ 150)` : ''}` : '—'} | ${(p.frames.meanFps / (p.controlFps ?? control)).toFixed(2)}× |`,
      );
    }
  }
  lines.push('');
  lines.push('| build | events held | fill time s | JS heap per held event | filter click idle, 100k held (median / max) | gap below last row while following |');
  lines.push('|---|---:|---:|---:|---:|---:|');
  for (const r of results) {
    lines.push(`| ${r.label} | ${f0(r.heldAtFull)} | ${f1(r.fillSeconds)} | ${(r.heapPerEvent / 1024).toFixed(2)} KB | ${f0(median(r.idleClicks))} / ${f0(Math.max(...r.idleClicks))} ms | ${r.bottomGapPx} px |`);
  }
  const [l1, l5] = os.loadavg();
  const machine = `${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`;
  return [
    '<!-- bench:ui -->',
    '## Traffic view under load (`npm run bench:ui`)',
    '',
    `${new Date().toISOString()} · ${machine} · load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)} at the end of the run` +
      (process.env.BENCH_UI_NOTE ? ` · ${process.env.BENCH_UI_NOTE}` : ''),
    '',
    `Load: ${load}. Chromium ${'1400×900'}, headless, --disable-gpu. ${PHASE_MS / 1000} s of requestAnimationFrame per view; filter click = the Errors chip toggled on and off 3 times, click → next frame. Heap per event = (heap at ${CAPACITY.toLocaleString('en-US')} held − heap near empty) / events added, after forced GCs, load stopped.`,
    '',
    ...lines,
    '<!-- /bench:ui -->',
    '',
  ].join('\n');
}

test('Traffic view under gateway load', async ({ page }) => {
  const builds: Array<[string, string]> = [['this build', path.join(ROOT, 'out')]];
  if (process.env.BENCH_UI_COMPARE) builds.push([process.env.BENCH_UI_COMPARE_LABEL ?? 'compare', process.env.BENCH_UI_COMPARE]);
  const results: BuildResult[] = [];
  for (const [label, out] of builds) {
    results.push(await runBuild(page, label, out));
    process.stderr.write(`bench:ui: ${label} done\n`);
  }
  const md = report(results, `${CLIENTS} MCP SDK clients over Streamable HTTP through the gateway, ${IN_FLIGHT} read_file calls in flight each`);
  process.stdout.write(`\n${md}\n`);
  if (!process.env.BENCH_UI_NO_WRITE) {
    const file = path.join(ROOT, 'bench', 'RESULTS.md');
    const prev = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
    const next = /<!-- bench:ui -->[\s\S]*<!-- \/bench:ui -->\n?/.test(prev) ? prev.replace(/<!-- bench:ui -->[\s\S]*<!-- \/bench:ui -->\n?/, md) : `${prev.trimEnd()}\n\n${md}`;
    writeFileSync(file, next);
    process.stderr.write('bench:ui: wrote bench/RESULTS.md\n');
  }
});
