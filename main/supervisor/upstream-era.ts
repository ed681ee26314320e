// Which protocol era each upstream server speaks, found once and remembered (MCP 2026-07-28
// "prior discovery"): a new-era server's `server/discover` answer is kept so the next start
// connects with zero round trips (SDK v2 `connect({ prior })`), and an old-era server's
// `initialize` answer is kept so the next start does not probe it again. Remembered in
// `<data dir>/upstream-eras.json`, keyed by server id and what it is (its URL or command line),
// so a profile that points a server elsewhere forgets its era.
//
// Freshness (the SDK's gateway guide): a stale new-era verdict fails loudly at the first
// request (the supervisor then forgets it and probes), but a stale old-era verdict succeeds
// silently for ever (an upgraded server still answers `initialize`). So old-era verdicts of
// HTTP servers are dated and re-probed after OLD_ERA_HORIZON_MS. A stdio server is never
// probed: a probe costs a short-lived extra process, and the era comes from the `initialize`
// answer of the run itself.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Era = 'new' | 'old';

/** The protocol version of an `initialize` answer seen on the wire (a stdio server's era, learnt without a probe). */
export function initializeVersion(msg: unknown): string | undefined {
  const result = (msg as { result?: { protocolVersion?: unknown; capabilities?: unknown } }).result;
  return result && typeof result.protocolVersion === 'string' && result.capabilities ? result.protocolVersion : undefined;
}

export interface EraRecord {
  era: Era;
  /** The protocol version negotiated (e.g. `2026-07-28`, `2025-11-25`). */
  version: string;
  /** What the server is: its URL, or its command line (redacted). */
  target: string;
  /** New era: the server's `server/discover` result, adopted on the next connect. */
  discover?: Record<string, unknown>;
  /** When it was learnt (ms since the epoch). */
  at: number;
}

/** An old-era verdict of an HTTP server is trusted this long before it is probed again. */
export const OLD_ERA_HORIZON_MS = 7 * 24 * 3600 * 1000;

const FILE = 'upstream-eras.json';
/** Beyond this many servers the oldest records are dropped (the file stays small). */
const MAX_RECORDS = 500;

export class UpstreamEras {
  private records: Record<string, EraRecord> = {};
  private readonly file: string | undefined;

  /** Without a data dir the memory lasts as long as the process (tests, `gatehouse gateway` without one). */
  constructor(dataDir?: string) {
    this.file = dataDir ? path.join(dataDir, FILE) : undefined;
    if (!this.file) return;
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [id, rec] of Object.entries(parsed as Record<string, unknown>)) if (validRecord(rec)) this.records[id] = rec;
      }
    } catch {
      // Missing or unreadable: every server's era is found again, once.
    }
  }

  /** The remembered era of a server, if it is still the same server and the verdict is fresh enough to use. */
  get(serverId: string, target: string): EraRecord | undefined {
    const rec = this.records[serverId];
    if (!rec || rec.target !== target) return undefined;
    return rec;
  }

  /** True when an old-era verdict is past its horizon (an HTTP server is probed again). */
  static stale(rec: EraRecord, now = Date.now()): boolean {
    return rec.era === 'old' && now - rec.at > OLD_ERA_HORIZON_MS;
  }

  /** Remembers what a run learnt. Same era and version as before: the date is kept unless `refresh`. */
  remember(serverId: string, rec: Omit<EraRecord, 'at'>, refresh = false): void {
    const prev = this.records[serverId];
    if (!refresh && prev && prev.target === rec.target && prev.era === rec.era && prev.version === rec.version && !rec.discover) return;
    this.records[serverId] = { ...rec, at: Date.now() };
    this.save();
  }

  /** Forgets a verdict that stopped matching (the next connect probes). */
  forget(serverId: string): void {
    if (!(serverId in this.records)) return;
    delete this.records[serverId];
    this.save();
  }

  private save(): void {
    if (!this.file) return;
    const ids = Object.keys(this.records);
    if (ids.length > MAX_RECORDS) {
      for (const id of ids.sort((a, b) => this.records[a]!.at - this.records[b]!.at).slice(0, ids.length - MAX_RECORDS)) delete this.records[id];
    }
    try {
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(this.records, null, 2)}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.file);
    } catch (err) {
      // Not remembering only costs a probe on the next start; say so, do not fail the run.
      process.stderr.write(`gatehouse: cannot remember upstream eras in ${this.file}: ${(err as Error).message}\n`);
    }
  }
}

function validRecord(v: unknown): v is EraRecord {
  const r = v as Partial<EraRecord> | null;
  return (
    !!r &&
    (r.era === 'new' || r.era === 'old') &&
    typeof r.version === 'string' &&
    typeof r.target === 'string' &&
    typeof r.at === 'number' &&
    (r.discover === undefined || (typeof r.discover === 'object' && r.discover !== null))
  );
}
