// The audit writer thread (bundled to out/audit-writer.mjs): SQLite writes off the protocol
// thread (docs/audit.md "Audit store"). It owns a connection of its own to the store the host opened and
// migrated, decodes the chunks the host posts (chunk-codec.ts), and commits them with the same
// QueuedWriter the in-thread mode uses: budgets, gaps and retries are one piece of code. After
// each batch it tells the host, through shared memory, which chunk it has attempted (what a
// read waits for) and which it has committed (what the crash journal may forget).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { applyOp, decodeChunks } from './chunk-codec';
import { QueuedWriter } from './writer';
import { SLOT, type WriterThreadData } from './threaded-writer';
import { signerFromPem } from './audit-key';

const data = workerData as WriterThreadData;
const port = parentPort;
if (!port) throw new Error('audit writer thread: no parent port (this file runs as a worker only)');

const shared = new Int32Array(data.shared);
const db = new Database(data.file, { timeout: data.busyTimeoutMs });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma(`busy_timeout = ${Math.floor(data.busyTimeoutMs)}`);

const record = db.prepare('INSERT INTO audit_journal (run, chunk) VALUES (?, ?) ON CONFLICT (run) DO UPDATE SET chunk = max(chunk, excluded.chunk)');
let received = 0;
let committedInTx = 0;

const writer = new QueuedWriter(db, {
  maxQueuedRows: data.maxQueuedRows,
  // Batches are this thread's own: one per turn of its event loop, whole (no slicing: the
  // protocol thread is not waiting on this one).
  flushIntervalMs: 1_000,
  maxRowsPerTick: Number.POSITIVE_INFINITY,
  limits: data.limits,
  signer: data.signingKeyPem ? signerFromPem(data.signingKeyPem) : undefined,
  checkpointEvery: data.checkpointEvery,
  onError: (err) => port.postMessage({ error: err.message }),
  commitHook: (drained) => {
    if (!drained || !data.journaled) return;
    record.run(data.run, received);
    committedInTx = received;
  },
});

// Batches: a commit costs the same for one row as for hundreds, and the journal already made
// the rows crash-safe, so this thread commits at most every BATCH_MS, or at once when the host
// waits for it (a read: the `sync` message).
const BATCH_MS = data.flushIntervalMs ?? 10;
let timer: NodeJS.Timeout | undefined;
function flushNow(): void {
  if (timer) {
    clearTimeout(timer);
    timer = undefined;
  }
  writer.flush();
  const st = writer.stats();
  if (st.queued === 0) Atomics.store(shared, SLOT.committed, data.journaled ? committedInTx : received);
  Atomics.store(shared, SLOT.queued, st.queued);
  Atomics.store(shared, SLOT.written, st.written);
  Atomics.store(shared, SLOT.batches, st.batches);
  Atomics.store(shared, SLOT.dropped, st.dropped);
  Atomics.store(shared, SLOT.failed, st.failed);
  Atomics.store(shared, SLOT.attempted, received);
  Atomics.notify(shared, SLOT.attempted);
}
function flushSoon(): void {
  timer ??= setTimeout(flushNow, BATCH_MS);
}

function receive(text: string): void {
  const { chunks, complete } = decodeChunks(text);
  if (!complete) port!.postMessage({ error: 'audit writer thread: a chunk from the host did not decode; its rows are lost' });
  for (const c of chunks) {
    for (const op of c.ops) applyOp(writer, op);
    received = c.chunk;
  }
}

// A message is one or more chunks, in order, each its UTF-8 bytes (threaded-writer.ts send()).
// The ops' lengths count UTF-16 units of the decoded text, as in a journal file read back.
const utf8 = new TextDecoder();
port.on('message', (msg: Uint8Array[] | { close: true } | { sync: true }) => {
  if (Array.isArray(msg)) {
    for (const bytes of msg) receive(utf8.decode(bytes));
    flushSoon();
    return;
  }
  if ('sync' in msg) {
    flushNow();
    return;
  }
  if (timer) clearTimeout(timer);
  writer.close();
  const st = writer.stats();
  Atomics.store(shared, SLOT.queued, st.queued);
  Atomics.store(shared, SLOT.written, st.written);
  if (st.queued === 0) {
    Atomics.store(shared, SLOT.committed, received);
    // A clean close: the host removes the journal, and the bookmark of this run goes with it.
    try {
      db.prepare('DELETE FROM audit_journal WHERE run = ?').run(data.run);
    } catch (err) {
      port.postMessage({ error: `audit writer thread: could not remove its journal bookmark: ${(err as Error).message}` });
    }
  }
  db.close();
  Atomics.store(shared, SLOT.attempted, received);
  Atomics.store(shared, SLOT.closed, 1);
  Atomics.notify(shared, SLOT.closed);
  Atomics.notify(shared, SLOT.attempted);
  port.close();
});
