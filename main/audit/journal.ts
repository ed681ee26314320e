// The crash journal of the threaded audit writer (docs/audit.md "Audit store": no
// answered call missing after the host is killed). SQLite commits happen on the writer thread,
// later than the protocol path; so before an agent's answer leaves, the chunk that holds it
// (and every chunk before it) is appended here with one write(2). A killed process cannot lose
// those bytes (they are in the OS page cache); the next store to open replays whatever chunks
// the writer thread had not committed (the `audit_journal` table says which it had).
//
// Two files per host process, written in turns: when the current one passes ROTATE_BYTES and
// every chunk in the other one is committed, the other is emptied and becomes the current one,
// so the journal stays bounded without ever truncating a chunk that is not on disk yet.
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { applyOp, decodeChunks, type OpTarget } from './chunk-codec';

const DEFAULT_ROTATE_BYTES = 4 * 1024 * 1024;

export const JOURNAL_TABLE_SQL = `
CREATE TABLE audit_journal (
  run   TEXT PRIMARY KEY,
  chunk INTEGER NOT NULL
);`;

export function journalDir(dbFile: string): string {
  return path.join(path.dirname(path.resolve(dbFile)), 'audit-journal');
}

export class Journal {
  private readonly fds: [number, number];
  private readonly files: [string, string];
  private cur: 0 | 1 = 0;
  private size = 0;
  /** The last chunk written to each file (0: none since it was emptied). */
  private readonly last: [number, number] = [0, 0];

  constructor(
    dir: string,
    run: string,
    private readonly rotateBytes = DEFAULT_ROTATE_BYTES,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.files = [0, 1].map((i) => path.join(dir, `${process.pid}.${run}.${i}`)) as [string, string];
    // The journal holds tool arguments and results, like the store: private to the user.
    // O_APPEND: after a file is emptied (ftruncate), writes start at its new end, not at the old
    // offset (which would leave a hole of NULs in front of the first chunk).
    const { O_WRONLY, O_CREAT, O_TRUNC, O_APPEND } = fs.constants;
    this.fds = this.files.map((f) => fs.openSync(f, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)) as [number, number];
  }

  /** Appends one chunk (its UTF-8 bytes); returns once write(2) has returned. Throws on a disk error. */
  append(chunk: number, bytes: Uint8Array, committed: number): void {
    if (this.size > this.rotateBytes) {
      const other: 0 | 1 = this.cur === 0 ? 1 : 0;
      if (this.last[other] <= committed) {
        fs.ftruncateSync(this.fds[other], 0);
        this.last[other] = 0;
        this.cur = other;
        this.size = 0;
      }
    }
    // The chunk's bytes as the writer encoded them (threaded-writer.ts): no string, no copy. A
    // short write (rare for a regular file) goes on from where it stopped.
    const fd = this.fds[this.cur];
    let off = 0;
    while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off, null);
    this.size += bytes.length;
    this.last[this.cur] = chunk;
  }

  /** Every chunk committed (a clean close): the files go. */
  remove(): void {
    for (const fd of this.fds) fs.closeSync(fd);
    for (const f of this.files) fs.rmSync(f, { force: true });
  }

  /** Closes without removing: what is in the files has not all been committed. */
  close(): void {
    for (const fd of this.fds) fs.closeSync(fd);
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Replays the journals of host processes that are gone into the store, skipping chunks their
 * writer thread had committed, and removes them. Returns the rows replayed. A journal of a
 * process still running (another host on the same data directory) is left alone.
 */
export function recoverJournals(db: Database.Database, dbFile: string, makeWriter: (commitHook: (drained: boolean) => void) => OpTarget & { close(): void; stats(): { queued: number } }): number {
  const dir = journalDir(dbFile);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  const byRun = new Map<string, string[]>();
  for (const name of names) {
    const m = /^(\d+)\.([A-Za-z0-9-]+)\.[01]$/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const list = byRun.get(m[2]!) ?? [];
    list.push(path.join(dir, name));
    byRun.set(m[2]!, list);
  }
  let replayed = 0;
  const committedOf = db.prepare<[string], { chunk: number }>('SELECT chunk FROM audit_journal WHERE run = ?');
  const record = db.prepare('INSERT INTO audit_journal (run, chunk) VALUES (?, ?) ON CONFLICT (run) DO UPDATE SET chunk = max(chunk, excluded.chunk)');
  for (const [run, files] of byRun) {
    const committed = committedOf.get(run)?.chunk ?? 0;
    const chunks = files.flatMap((f) => decodeChunks(fs.readFileSync(f, 'utf8')).chunks).filter((c) => c.run === run && c.chunk > committed);
    chunks.sort((a, b) => a.chunk - b.chunk);
    if (chunks.length > 0) {
      const through = chunks[chunks.length - 1]!.chunk;
      const writer = makeWriter(() => record.run(run, through));
      for (const c of chunks) for (const op of c.ops) applyOp(writer, op);
      replayed += chunks.reduce((sum, c) => sum + c.ops.length, 0);
      writer.close();
      // A replay that could not be written (disk full) keeps its files for the next open.
      if (writer.stats().queued > 0) continue;
    }
    for (const f of files) fs.rmSync(f, { force: true });
    // Replayed (or nothing left to replay): the run's bookmark has done its work.
    db.prepare('DELETE FROM audit_journal WHERE run = ?').run(run);
  }
  return replayed;
}
