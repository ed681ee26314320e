// The bench's side of bench/counters-preload.mjs: ask a process in the middle for its counters
// (SIGUSR2) and wait for the line it appends. Works on any Node process started with
// `--import ./bench/counters-preload.mjs` and GATEHOUSE_BENCH_COUNTERS set.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'counters-preload.mjs');
/** Node arguments that load the preload (before the script). */
export const preloadArgs = () => ['--import', PRELOAD];

function lines(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

/** One sample of the process's counters, or undefined when it does not answer within 3 s. */
export async function sampleCounters(pid, file) {
  const before = lines(file).length;
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return undefined;
  }
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const all = lines(file);
    if (all.length > before) return JSON.parse(all[all.length - 1]);
    await new Promise((r) => setTimeout(r, 5));
  }
  return undefined;
}

/** Per-call figures between two samples: CPU µs, allocated bytes, GC ms per 1000 calls. */
export function perCall(a, b, calls) {
  if (!a || !b) return { cpuUs: NaN, allocB: NaN, gcMsPer1k: NaN };
  return {
    cpuUs: (b.cpuUs - a.cpuUs) / calls,
    allocB: (b.allocBytes - a.allocBytes) / calls,
    // GCProfiler's cost is wall time (a preempted collection counts its wait): on a busy
    // machine read it beside the allocation, not as a share of CPU.
    gcMsPer1k: ((b.gcMs - a.gcMs) * 1000) / calls,
  };
}
