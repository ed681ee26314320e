// Server stderr for the Logs view: bounded per server, line-numbered, with a
// separator where a new run of the server starts, and a search whose hits are kept up to date
// as lines arrive. Lines live here, never in React state (STYLE.md); the view reads them on
// animation frames through a virtualized list.
import type { EventPayload } from '../../../common/host-api';
import { stripAnsi } from '../ansi/ansi';

export type StderrLine = EventPayload<'stderr:batch'>['lines'][number];

export const DEFAULT_LOG_CAPACITY = 20_000;

export type LogEntry =
  | { kind: 'line'; abs: number; n: number; line: StderrLine; plain?: string }
  | { kind: 'run'; abs: number; run: number; ts: number; server: string };

export interface LogStats {
  /** Lines held for this server. */
  held: number;
  /** Lines this window received for this server. */
  total: number;
  /** Lines this window let go to stay within capacity. */
  evicted: number;
  /** Lines (all servers) the host could not deliver to this window. */
  dropped: number;
  capacity: number;
}

export interface LogHit {
  abs: number;
  start: number;
  end: number;
}

export const sourceKey = (session: string, server: string): string => `${session}\u0000${server}`;

/** The text of a line without escapes (search and copy run over this). */
export function plainText(e: Extract<LogEntry, { kind: 'line' }>): string {
  if (e.plain === undefined) e.plain = stripAnsi(e.line.line);
  return e.plain;
}

export class LogSource {
  private ring: (LogEntry | undefined)[];
  private head = 0;
  private count = 0;
  private nextAbs = 0;
  private lines = 0;
  private lastRun: number | undefined;
  lastSeq = -Infinity;
  evicted = 0;
  /** Rows removed from the top, ever (keeps the scroll anchored). */
  headRemovals = 0;
  private query = '';
  private hits: LogHit[] = [];

  constructor(
    readonly session: string,
    readonly server: string,
    private capacity: number,
    /** Every server's lines in one list (the "All servers" view): no run separators, they would interleave. */
    readonly merged = false,
  ) {
    this.ring = new Array<LogEntry | undefined>(capacity + 1);
  }

  /** Rows held (lines and run separators). */
  size(): number {
    return this.count;
  }

  at(index: number): LogEntry | undefined {
    return index >= 0 && index < this.count ? this.ring[(this.head + index) % this.ring.length] : undefined;
  }

  /** Row index of an absolute entry number, or -1 when evicted. */
  indexOfAbs(abs: number): number {
    const first = this.at(0);
    if (!first) return -1;
    const i = abs - first.abs;
    return i >= 0 && i < this.count ? i : -1;
  }

  linesHeld(): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (this.at(i)!.kind === 'line') n++;
    return n;
  }

  totalLines(): number {
    return this.lines;
  }

  add(line: StderrLine): void {
    if (line.seq <= this.lastSeq) return; // already held (a tail fetched after live lines)
    this.lastSeq = line.seq;
    if (!this.merged && this.lastRun !== line.run && (this.lastRun !== undefined || line.run > 1)) {
      this.push({ kind: 'run', abs: this.nextAbs++, run: line.run, ts: line.ts, server: line.server });
    }
    this.lastRun = line.run;
    this.lines++;
    const entry: LogEntry = { kind: 'line', abs: this.nextAbs++, n: this.lines, line };
    this.push(entry);
    if (this.query) this.searchEntry(entry);
  }

  setCapacity(capacity: number): void {
    const keep: LogEntry[] = [];
    for (let i = 0; i < this.count; i++) keep.push(this.at(i)!);
    this.capacity = capacity;
    this.ring = new Array<LogEntry | undefined>(capacity + 1);
    this.head = 0;
    this.count = 0;
    for (const e of keep) this.push(e);
  }

  /** Set the search query (case-insensitive); returns the hits, oldest first. */
  search(query: string): readonly LogHit[] {
    const q = query.toLowerCase();
    if (q === this.query) return this.hits;
    this.query = q;
    this.hits = [];
    if (q) for (let i = 0; i < this.count; i++) this.searchEntry(this.at(i)!);
    return this.hits;
  }

  currentHits(): readonly LogHit[] {
    return this.hits;
  }

  private searchEntry(e: LogEntry): void {
    if (e.kind !== 'line') return;
    const t = plainText(e).toLowerCase();
    for (let i = t.indexOf(this.query); i >= 0; i = t.indexOf(this.query, i + this.query.length)) {
      this.hits.push({ abs: e.abs, start: i, end: i + this.query.length });
    }
  }

  private push(e: LogEntry): void {
    // The capacity counts lines; a run separator rides along (one slot spare per run is fine).
    while (this.count >= this.capacity) this.dropHead();
    if (this.count === this.ring.length) this.dropHead();
    this.ring[(this.head + this.count) % this.ring.length] = e;
    this.count++;
  }

  private dropHead(): void {
    const e = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.ring.length;
    this.count--;
    this.headRemovals++;
    if (e?.kind === 'line') this.evicted++;
    if (e && this.hits.length && this.hits[0]!.abs <= e.abs) {
      let k = 0;
      while (k < this.hits.length && this.hits[k]!.abs <= e.abs) k++;
      this.hits.splice(0, k);
    }
  }
}

/** The key of the merged source (`LogStore.all`). */
export const ALL_SERVERS = '*';

export class LogStore {
  private readonly sources = new Map<string, LogSource>();
  private capacity: number;
  /** Every line of every server and launch, in arrival order (the same line objects, not copies). */
  all: LogSource;
  private dropped = 0;
  private listeners = new Set<() => void>();
  version = 0;

  constructor(options: { capacity?: number } = {}) {
    this.capacity = Math.max(1, Math.floor(options.capacity ?? DEFAULT_LOG_CAPACITY));
    this.all = new LogSource(ALL_SERVERS, ALL_SERVERS, this.capacity, true);
  }

  /** A fresh snapshot (`host:snapshot`). */
  replace(lines: readonly StderrLine[], stats?: { dropped: number }): void {
    this.sources.clear();
    this.all = new LogSource(ALL_SERVERS, ALL_SERVERS, this.capacity, true);
    this.dropped = stats?.dropped ?? 0;
    for (const l of lines) this.add(l);
    this.changed();
  }

  /** A live batch (`stderr:batch`), or a tail fetched with `logs:tail`. */
  append(lines: readonly StderrLine[], dropped = 0): void {
    this.dropped += dropped;
    for (const l of lines) this.add(l);
    if (lines.length || dropped) this.changed();
  }

  private add(l: StderrLine): void {
    this.source(l.session, l.server).add(l);
    // A tail fetched later (older seqs) is not merged in: the merged list stays in arrival order.
    this.all.add(l);
  }

  /** Lines of all servers: held, received and evicted. */
  allStats(): LogStats {
    const held = this.all.totalLines() - this.all.evicted;
    return { held, total: this.all.totalLines(), evicted: this.all.evicted, dropped: this.dropped, capacity: this.capacity };
  }

  /** The lines of one server of one launch (created empty if none came yet). */
  source(session: string, server: string): LogSource {
    const key = sourceKey(session, server);
    let s = this.sources.get(key);
    if (!s) {
      s = new LogSource(session, server, this.capacity);
      this.sources.set(key, s);
    }
    return s;
  }

  has(session: string, server: string): boolean {
    return this.sources.has(sourceKey(session, server));
  }

  list(): LogSource[] {
    return [...this.sources.values()];
  }

  stats(session: string, server: string): LogStats {
    const s = this.sources.get(sourceKey(session, server));
    const held = s ? s.totalLines() - s.evicted : 0;
    return { held, total: s?.totalLines() ?? 0, evicted: s?.evicted ?? 0, dropped: this.dropped, capacity: this.capacity };
  }

  getCapacity(): number {
    return this.capacity;
  }

  setCapacity(capacity: number): void {
    this.capacity = Math.max(1, Math.floor(capacity));
    for (const s of this.sources.values()) s.setCapacity(this.capacity);
    this.all.setCapacity(this.capacity);
    this.changed();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    for (const l of [...this.listeners]) l();
  }
}
