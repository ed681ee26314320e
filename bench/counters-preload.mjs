// Loaded into each process in the middle with `node --import ./bench/counters-preload.mjs`
// (the gateway, the bare relay, the floor server, supergateway, mcp-proxy, or the server itself
// for direct stdio), so every target is measured the same way and no product code carries a
// benchmark hook. On SIGUSR2 the process appends one JSON line to $GATEHOUSE_BENCH_COUNTERS:
//   { seq, cpuUs, allocBytes, gcMs, heapUsed, rss }
// cpuUs = process.cpuUsage() user+system. allocBytes = bytes allocated on the V8 heap since the
// preload ran: heap used now − heap used then + everything the collector freed in between, read
// from v8.GCProfiler's before/after heap statistics of every collection (Node 20 has no
// total_allocated_bytes counter). gcMs = the collections' summed cost.
// With GATEHOUSE_BENCH_HEAP_PROF=FILE as well (`bench/run.mjs --heap-prof FILE`), the first
// sample starts V8's sampling heap profiler, counting objects the collector has freed too, and
// the third (the end of the concurrent phase) writes FILE (.heapprofile, for DevTools or
// bench/prof-summary.mjs --heap): where the bytes allocated per call come from.
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import v8 from 'node:v8';

const file = process.env.GATEHOUSE_BENCH_COUNTERS;
const heapProf = process.env.GATEHOUSE_BENCH_HEAP_PROF;
delete process.env.GATEHOUSE_BENCH_HEAP_PROF;
// Children (the servers the gateway starts) inherit the environment: only the first process
// that loads the preload answers, and the variable is dropped for everything it spawns.
delete process.env.GATEHOUSE_BENCH_COUNTERS;
if (file) {
  const startUsed = v8.getHeapStatistics().used_heap_size;
  let freed = 0;
  let gcUs = 0;
  let seq = 0;
  let profiler = new v8.GCProfiler();
  profiler.start();
  const drain = () => {
    const data = profiler.stop();
    for (const s of data?.statistics ?? []) {
      freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
      gcUs += s.cost;
    }
    profiler = new v8.GCProfiler();
    profiler.start();
  };
  process.on('SIGUSR2', () => {
    drain();
    const cpu = process.cpuUsage();
    const line = {
      seq: ++seq,
      cpuUs: cpu.user + cpu.system,
      allocBytes: v8.getHeapStatistics().used_heap_size - startUsed + freed,
      gcMs: gcUs / 1000,
      heapUsed: process.memoryUsage().heapUsed,
      rss: process.memoryUsage.rss(),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    if (heapProf) heapProfile(seq);
  });
}

let session;
function heapProfile(seq) {
  if (seq === 1) {
    session = new Session();
    session.connect();
    session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  } else if (seq === 3 && session) {
    session.post('HeapProfiler.stopSampling', (err, res) => {
      if (!err) writeFileSync(heapProf, JSON.stringify(res.profile));
      session.disconnect();
      session = undefined;
    });
  }
}
