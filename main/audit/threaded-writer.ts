// The host's side of the audit writer thread (docs/audit.md "Audit store": the SQLite writes move off the
// protocol thread). Every AuditWriter call is encoded at once, as UTF-8, into the next chunk's
// buffer (chunk-codec.ts writeOp: a message's kept text is carried as is, serialised once) and
// the chunk is posted to the writer thread every few milliseconds; SQLite runs there. What
// stays here per row is one small JSON.stringify of the row's metadata: the bytes of a row are
// written once, outside the JS heap, and the same bytes go to the journal and (transferred, not
// copied) to the thread. Lines joined into a chunk string were ~13 KB of the ~57 KB a stdio
// call allocated here (docs/gateway-performance.md).
//
// Two promises of the in-thread writer are kept:
//  - read-your-writes: flush() posts what is pending and waits (Atomics.wait, bounded) until
//    the thread has attempted it, so a query right after sees the rows (reads are rare: UI
//    pages, the CLI; the protocol path never calls it);
//  - no answered call lost on a crash: commitPoint(), called before an agent's
//    answer leaves, appends the pending chunk to the crash journal (journal.ts, one write(2))
//    before posting it. The next store to open replays what the thread had not committed.
// The host bounds what it has posted but the thread has not attempted (limits.maxQueuedBytes):
// beyond it traffic rows are dropped here and recorded as a gap, as the in-thread writer does.
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { StderrLine, TrafficEvent } from '../protocol/types';
import { chunkHeader, chunkTrailer, writeOp, type WriterOp } from './chunk-codec';
import { Journal } from './journal';
import type { AgentSessionStart, DecisionRecord, Ending, ExchangeRecord, ServerRunEnd, ServerRunStart, ServerStateChange, SessionStart, WriterStats } from './types';
import type { AuditLimits } from './budget';
import type { AuditWriter } from './writer';

/** Slots of the shared Int32Array between the host and its writer thread. */
export const SLOT = { attempted: 0, committed: 1, closed: 2, queued: 3, written: 4, batches: 5, dropped: 6, failed: 7 } as const;
const SLOTS = 8;

export interface WriterThreadData {
  file: string;
  run: string;
  shared: SharedArrayBuffer;
  busyTimeoutMs: number;
  maxQueuedRows?: number;
  flushIntervalMs?: number;
  limits: AuditLimits;
  journaled: boolean;
  /** The audit signing key (audit-key.ts), PKCS#8 PEM: the thread signs the chain's checkpoints. */
  signingKeyPem?: string;
  checkpointEvery?: number;
}

export interface ThreadedWriterOptions {
  file: string;
  /** out/audit-writer.mjs (paths.ts auditWriterEntry). */
  entry: string;
  limits: AuditLimits;
  busyTimeoutMs: number;
  maxQueuedRows?: number;
  /** How often pending rows are posted; default 10 ms. */
  postIntervalMs?: number;
  /** Where the crash journal lives; undefined = no journal (commitPoint only posts). */
  journalDir?: string;
  /** When a journal file is emptied for reuse (default 4 MiB; small in tests). */
  journalRotateBytes?: number;
  onError: (err: Error) => void;
  signingKeyPem?: string;
  checkpointEvery?: number;
  /** How long flush() waits for the thread; default 10 s. */
  flushTimeoutMs?: number;
}

const DEFAULT_POST_MS = 10;
const MAX_UNSENT = 256;
/** The chunk buffer's size at rest; it doubles for a larger chunk and comes back after one. */
const CHUNK_BUFFER_BYTES = 64 * 1024;

/** The writer thread's young generation (both semi-spaces and the new large-object space). */
const WRITER_YOUNG_GEN_MB = 8;

export class ThreadedWriter implements AuditWriter {
  readonly run = randomUUID();
  private readonly worker: Worker;
  private readonly shared: Int32Array;
  private readonly journal: Journal | undefined;
  /**
   * One buffer holds, in order, the chunks posted but not yet sent to the thread (0 to `openAt`)
   * and the open chunk: a header slot (filled when it is posted, padded with spaces, which
   * JSON.parse reads past) and its ops, UTF-8, to `end`; `pendingOps` of them. A chunk is
   * journaled from here as it is posted, and the unsent ones travel together in one copy.
   */
  private buf = Buffer.allocUnsafeSlow(CHUNK_BUFFER_BYTES);
  private readonly headerSlot: number;
  private openAt = 0;
  private end = 0;
  private pendingOps = 0;
  private unsentChunks = 0;
  private readonly put = (piece: string): void => {
    // A UTF-16 unit is at most 3 bytes of UTF-8: room for that, so write() never cuts a piece.
    if (this.end + 3 * piece.length > this.buf.length) this.grow(this.end + 3 * piece.length);
    this.end += this.buf.write(piece, this.end, 'utf8');
  };
  private chunk = 0;
  /** Bytes of each posted chunk the thread has not attempted yet, oldest first. */
  private inFlight: { chunk: number; bytes: number }[] = [];
  private inFlightBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private sendTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private dead: Error | undefined;
  /** Rows dropped here and not yet reported to the thread (which counts them once told). */
  private unsentDrops = 0;
  /** Rows that nothing will write (the thread died). */
  private lost = 0;
  private readonly drops = new Map<string, { session: string; stream: 'messages' | 'stderr_lines'; dropped: number; firstTs: number; lastTs: number }>();

  constructor(private readonly opts: ThreadedWriterOptions) {
    this.shared = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
    this.headerSlot = Buffer.byteLength(chunkHeader(Number.MAX_SAFE_INTEGER, this.run, Number.MAX_SAFE_INTEGER), 'utf8');
    this.end = this.headerSlot;
    this.journal = opts.journalDir ? new Journal(opts.journalDir, this.run, opts.journalRotateBytes) : undefined;
    const data: WriterThreadData = {
      file: opts.file,
      run: this.run,
      shared: this.shared.buffer as SharedArrayBuffer,
      busyTimeoutMs: opts.busyTimeoutMs,
      maxQueuedRows: opts.maxQueuedRows,
      limits: opts.limits,
      journaled: this.journal !== undefined,
      signingKeyPem: opts.signingKeyPem,
      checkpointEvery: opts.checkpointEvery,
    };
    // The thread decodes batches and hands rows to SQLite: its objects live a batch long, so a
    // small young generation serves it (V8's default lets it grow to 48 MB of semi-spaces).
    this.worker = new Worker(opts.entry, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GEN_MB } });
    this.worker.on('message', (m: { error?: string }) => {
      if (m.error) this.report(new Error(m.error));
    });
    this.worker.on('error', (err) => this.died(err));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.died(new Error(`the audit writer thread exited (code ${code})`));
    });
    // The thread never keeps the host alive on its own; close() drains it on the way out.
    this.worker.unref();
  }

  // ------------------------------------------------------------ AuditWriter

  beginSession(v: SessionStart): void {
    this.push(['session', { ...v, startedAt: v.startedAt ?? Date.now() }]);
  }

  endSession(id: string, end: Ending = {}): void {
    this.push(['sessionEnd', id, { ...end, endedAt: end.endedAt ?? Date.now() }]);
  }

  agentSessionStarted(v: AgentSessionStart): void {
    this.push(['agent', { ...v, startedAt: v.startedAt ?? Date.now() }]);
  }

  agentSessionEnded(id: string, end: Ending = {}): void {
    this.push(['agentEnd', id, { ...end, endedAt: end.endedAt ?? Date.now() }]);
  }

  serverRunStarted(v: ServerRunStart): void {
    this.push(['runStart', { ...v, startedAt: v.startedAt ?? Date.now() }]);
  }

  serverRunEnded(v: ServerRunEnd): void {
    this.push(['runEnd', { ...v, endedAt: v.endedAt ?? Date.now() }]);
  }

  serverState(v: ServerStateChange): void {
    this.push(['state', { ...v, ts: v.ts ?? Date.now() }]);
  }

  decision(v: DecisionRecord): void {
    // Most come stamped: no copy of the row then.
    this.push(['decision', v.ts !== undefined ? v : { ...v, ts: Date.now() }]);
  }

  exchange(v: ExchangeRecord): void {
    this.push(['exchange', v]);
  }

  traffic(ev: TrafficEvent): void {
    if (this.admit(ev.session, 'messages', ev.ts)) this.push(['t', ev]);
  }

  trafficBatch(evs: readonly TrafficEvent[]): void {
    for (const ev of evs) this.traffic(ev);
  }

  stderr(line: StderrLine): void {
    if (this.admit(line.session, 'stderr_lines', line.ts)) this.push(['stderr', line]);
  }

  stderrBatch(lines: readonly StderrLine[]): void {
    for (const line of lines) this.stderr(line);
  }

  stats(): WriterStats {
    const s = this.shared;
    return {
      queued: this.pendingOps + Atomics.load(s, SLOT.queued),
      written: Atomics.load(s, SLOT.written),
      batches: Atomics.load(s, SLOT.batches),
      // The thread counts the drops it was told of; here only those not sent yet, and lost ones.
      dropped: Atomics.load(s, SLOT.dropped) + this.unsentDrops + this.lost,
      failed: Atomics.load(s, SLOT.failed),
    };
  }

  commitPoint(): void {
    this.post(true);
  }

  /** Posts what is pending and waits until the thread has attempted it (read-your-writes). */
  flush(): void {
    this.post();
    this.send();
    if (this.dead || this.closed) return;
    this.worker.postMessage({ sync: true });
    this.waitAttempted(this.chunk, this.opts.flushTimeoutMs ?? 10_000);
  }

  /** Drains the thread and stops it. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.post();
    this.send();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.dead) {
      this.journal?.close();
      return;
    }
    this.worker.postMessage({ close: true });
    const deadline = Date.now() + (this.opts.flushTimeoutMs ?? 10_000);
    while (Atomics.load(this.shared, SLOT.closed) === 0) {
      const left = deadline - Date.now();
      if (left <= 0) {
        this.report(new Error('audit writer thread did not finish within its close timeout; the crash journal keeps what it had not written'));
        void this.worker.terminate();
        this.journal?.close();
        return;
      }
      Atomics.wait(this.shared, SLOT.closed, 0, left);
    }
    const committed = Atomics.load(this.shared, SLOT.committed);
    if (committed >= this.chunk) this.journal?.remove();
    else {
      this.report(new Error(`audit store closed with rows unwritten (chunks ${committed + 1}–${this.chunk}); the crash journal keeps them for the next open`));
      this.journal?.close();
    }
  }

  // ------------------------------------------------------------ internals

  private push(op: WriterOp): void {
    if (this.closed) {
      this.report(new Error('audit row written after the store was closed; ignored'));
      return;
    }
    this.flushDrops();
    writeOp(op, this.put);
    this.pendingOps++;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, this.opts.postIntervalMs ?? DEFAULT_POST_MS);
    this.timer.unref();
  }

  /** The host's own bound: what the thread has not attempted yet, in bytes. */
  private admit(session: string, stream: 'messages' | 'stderr_lines', ts: number): boolean {
    if (this.closed) return true; // push() reports it
    this.settle();
    if (this.inFlightBytes + (this.end - this.openAt) <= this.opts.limits.maxQueuedBytes) return true;
    this.unsentDrops++;
    const key = `${stream}\u0000${session}`;
    const d = this.drops.get(key);
    if (d) {
      d.dropped++;
      d.lastTs = Math.max(d.lastTs, ts);
    } else this.drops.set(key, { session, stream, dropped: 1, firstTs: ts, lastTs: ts });
    return false;
  }

  private flushDrops(): void {
    if (this.drops.size === 0) return;
    const drops = [...this.drops.values()];
    this.drops.clear();
    this.unsentDrops = 0;
    for (const d of drops) {
      writeOp(['dropped', d.session, d.stream, d.dropped, d.firstTs, d.lastTs], this.put);
      this.pendingOps++;
    }
  }

  /** Forgets the chunks the thread has attempted. */
  private settle(): void {
    const attempted = Atomics.load(this.shared, SLOT.attempted);
    while (this.inFlight.length > 0 && this.inFlight[0]!.chunk <= attempted) this.inFlightBytes -= this.inFlight.shift()!.bytes;
  }

  private post(journaled = false): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.flushDrops();
    if (this.dead && this.pendingOps > 0) {
      // Nothing writes them any more: counted, not kept (memory stays bounded).
      this.lost += this.pendingOps;
      this.pendingOps = 0;
      this.end = this.openAt + this.headerSlot;
    }
    if (this.pendingOps === 0 || this.dead || this.closed) return;
    const chunk = ++this.chunk;
    // The header goes into the slot in front of the ops, the trailer after them: the chunk is
    // one range of the buffer, written to the journal as it is, no string made of it.
    const header = chunkHeader(chunk, this.run, this.pendingOps);
    const slotEnd = this.openAt + this.headerSlot;
    this.buf.fill(0x20, this.openAt, slotEnd - 1);
    this.buf.write(header.slice(0, -1), this.openAt, 'utf8');
    this.buf[slotEnd - 1] = 0x0a;
    this.put(chunkTrailer(chunk));
    const start = this.openAt;
    const bytes = this.end - start;
    journaled &&= this.journal !== undefined;
    if (this.journal) {
      try {
        this.journal.append(chunk, this.buf.subarray(start, this.end), Atomics.load(this.shared, SLOT.committed));
      } catch (err) {
        this.report(new Error(`audit crash journal write failed: ${(err as Error).message}`, { cause: err }));
      }
    }
    this.inFlight.push({ chunk, bytes });
    this.inFlightBytes += bytes;
    this.unsentChunks++;
    this.pendingOps = 0;
    this.openAt = this.end;
    if (this.end + this.headerSlot > this.buf.length) this.grow(this.end + this.headerSlot);
    this.end += this.headerSlot;
    // Journaled chunks are safe already: they travel to the thread together, one postMessage
    // per interval rather than one per answer.
    if (!journaled || this.unsentChunks >= MAX_UNSENT) this.send();
    else this.sendTimer ??= setTimeout(() => this.send(), this.opts.postIntervalMs ?? DEFAULT_POST_MS).unref();
  }

  private send(): void {
    if (this.sendTimer) {
      clearTimeout(this.sendTimer);
      this.sendTimer = undefined;
    }
    if (this.unsentChunks === 0 || this.dead) return;
    // The unsent chunks in one copy whose memory moves to the thread (transferred, not cloned
    // again); the thread decodes them in order. The open chunk moves to the front.
    const out = new Uint8Array(this.openAt);
    out.set(this.buf.subarray(0, this.openAt));
    const open = this.end - this.openAt;
    if (this.buf.length > CHUNK_BUFFER_BYTES && open <= CHUNK_BUFFER_BYTES / 2) {
      const next = Buffer.allocUnsafeSlow(CHUNK_BUFFER_BYTES);
      this.buf.copy(next, 0, this.openAt, this.end);
      this.buf = next;
    } else this.buf.copyWithin(0, this.openAt, this.end);
    this.openAt = 0;
    this.end = open;
    this.unsentChunks = 0;
    this.worker.postMessage([out], [out.buffer]);
  }

  private grow(need: number): void {
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    this.buf.copy(next, 0, 0, this.end);
    this.buf = next;
  }

  private waitAttempted(chunk: number, timeoutMs: number): void {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = Atomics.load(this.shared, SLOT.attempted);
      if (now >= chunk || this.dead) break;
      const left = deadline - Date.now();
      if (left <= 0) {
        this.report(new Error(`audit flush: the writer thread did not catch up within ${timeoutMs} ms`));
        break;
      }
      Atomics.wait(this.shared, SLOT.attempted, now, left);
    }
    this.settle();
  }

  private died(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    this.report(new Error(`audit writer thread failed: ${err.message}; audit rows are no longer written (the crash journal keeps what it had)`, { cause: err }));
  }

  private report(err: Error): void {
    try {
      this.opts.onError(err);
    } catch {
      // never into the protocol path
    }
  }
}
