// Launched profiles watched on disk: a profile edited while its launch runs changes nothing
// until it is launched again, so the window says so ("changed — Relaunch"). The folder is
// watched, not the file: editors save by writing a new file and renaming it over the old one,
// which ends a watch on the file itself. What was launched is the digest the host took when it
// resolved the profile (Launch.profileDigest in main/host.ts); a file saved back to that content
// is unchanged again.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { EventPayload } from '../../common/host-api';
import type { Host, Launch } from '../host';
import { fileDigest } from '../trust/file-hash';

export type ProfileChange = EventPayload<'profile:changed'>;

/** Editors write in bursts (truncate, write, rename, chmod): one look after the burst settles. */
const SETTLE_MS = 100;

export class ProfileWatch {
  private readonly watched = new Map<string, { watcher: FSWatcher | undefined; timer?: NodeJS.Timeout; change: ProfileChange }>();
  private readonly listeners = new Set<(c: ProfileChange) => void>();
  private readonly onLaunched = (l: Launch) => this.watch(l);
  private readonly onStopped = (l: Launch) => this.unwatch(l.id);

  constructor(private readonly host: Host) {
    for (const l of host.launches.values()) if (!l.stopped) this.watch(l);
    host.on('launched', this.onLaunched);
    host.on('stopped', this.onStopped);
  }

  /** Launches whose profile differs on disk from what they run. */
  list(): ProfileChange[] {
    return [...this.watched.values()].filter((w) => w.change.changed).map((w) => ({ ...w.change }));
  }

  onChange(listener: (c: ProfileChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.host.off('launched', this.onLaunched);
    this.host.off('stopped', this.onStopped);
    for (const id of [...this.watched.keys()]) this.unwatch(id);
    this.listeners.clear();
  }

  private watch(launch: Launch): void {
    if (this.watched.has(launch.id)) return;
    const file = launch.profile.file;
    const entry: { watcher: FSWatcher | undefined; timer?: NodeJS.Timeout; change: ProfileChange } = {
      watcher: undefined,
      change: { launchId: launch.id, profile: launch.profile.name, file, changed: false },
    };
    this.watched.set(launch.id, entry);
    const look = () => {
      entry.timer = undefined;
      // A profile that cannot be read (removed, mid-rename) is not what was launched either.
      const changed = fileDigest(file) !== launch.profileDigest;
      if (changed === entry.change.changed) return;
      entry.change = { ...entry.change, changed };
      for (const l of [...this.listeners]) l({ ...entry.change });
    };
    try {
      entry.watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name !== null && name !== path.basename(file)) return;
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = setTimeout(look, SETTLE_MS);
      });
      // The folder went away or cannot be watched: the hint is lost, the launch is not.
      entry.watcher.on('error', () => entry.watcher?.close());
    } catch {
      entry.watcher = undefined;
    }
    // Edited between the host's resolve and this watch starting.
    look();
  }

  private unwatch(launchId: string): void {
    const entry = this.watched.get(launchId);
    if (!entry) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.watcher?.close();
    this.watched.delete(launchId);
  }
}
