// Pins and replay links of the Traffic view, kept by the host so they survive a reload, a second
// window and a restart of the app: a JSON file in the data dir (`ui/traffic-marks.json`, 0600),
// written atomically (temp file + rename) after each change.
//
// A row is named by its launch session, its seq and its timestamp: seqs are per host process (the
// live tap) or per audit store (history), so the session and time keep a pin from landing on an
// unrelated row after a restart.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const RowRefSchema = z.object({ session: z.string().min(1), seq: z.number(), ts: z.number() });
const ReplayLinkSchema = z.object({ session: z.string().min(1), exchange: z.string().min(1), original: RowRefSchema });
const FileSchema = z.object({ version: z.literal(1), pins: z.array(RowRefSchema), replays: z.array(ReplayLinkSchema) });

export type RowRef = z.infer<typeof RowRefSchema>;
export type ReplayLink = z.infer<typeof ReplayLinkSchema>;
export interface TrafficMarksData {
  pins: RowRef[];
  replays: ReplayLink[];
}

/** Bounds: a person pins a handful of rows; these only stop a runaway script from growing the file. */
const MAX_PINS = 2000;
const MAX_REPLAYS = 2000;

const refKey = (r: RowRef): string => `${r.session}\u0000${r.seq}\u0000${r.ts}`;

export class TrafficMarks {
  private readonly file: string;
  private pins = new Map<string, RowRef>();
  private replays = new Map<string, ReplayLink>();
  private loaded = false;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'ui', 'traffic-marks.json');
  }

  list(): TrafficMarksData {
    this.load();
    return { pins: [...this.pins.values()], replays: [...this.replays.values()] };
  }

  setPinned(ref: RowRef, pinned: boolean): void {
    this.load();
    const key = refKey(ref);
    if (pinned) {
      this.pins.delete(key);
      this.pins.set(key, { session: ref.session, seq: ref.seq, ts: ref.ts });
      while (this.pins.size > MAX_PINS) this.pins.delete(this.pins.keys().next().value!);
    } else this.pins.delete(key);
    this.save();
  }

  linkReplay(link: ReplayLink): void {
    this.load();
    const key = `${link.session}\u0000${link.exchange}`;
    this.replays.delete(key);
    this.replays.set(key, { session: link.session, exchange: link.exchange, original: { ...link.original } });
    while (this.replays.size > MAX_REPLAYS) this.replays.delete(this.replays.keys().next().value!);
    this.save();
  }

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (!existsSync(this.file)) return;
    try {
      const data = FileSchema.parse(JSON.parse(readFileSync(this.file, 'utf8')));
      for (const p of data.pins) this.pins.set(refKey(p), p);
      for (const r of data.replays) this.replays.set(`${r.session}\u0000${r.exchange}`, r);
    } catch (err) {
      // A damaged file loses the marks, never the app: say so and start empty.
      process.stderr.write(`gatehouse: ignoring ${this.file}: expected {version: 1, pins, replays}, ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
    }
  }

  private save(): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const data: z.infer<typeof FileSchema> = { version: 1, pins: [...this.pins.values()], replays: [...this.replays.values()] };
    writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }
}
