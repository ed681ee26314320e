// ProfileWatch against a real Host and real files: saved the way editors save (a new file
// renamed over the old one, which ends a watch on the file itself), a launched profile reads as
// changed; saved back as it was launched, unchanged again; edited before the watch started,
// changed at once; a stopped launch is no longer watched.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../host';
import { tempDir, writeProfile } from '../../tests/support/temp';
import { pinProfile } from '../../tests/support/trust';
import { ProfileWatch, type ProfileChange } from './profile-watch';

const PROFILE = `
name: watch-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: allow
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let file: string;

beforeEach(() => {
  tmp = tempDir();
  file = writeProfile(tmp.dir, PROFILE, 'watch-test.yaml');
  pinProfile(`${tmp.dir}/data`, file);
  host = new Host({ dataDir: `${tmp.dir}/data`, audit: false });
});
afterEach(async () => {
  await host.shutdown();
  tmp.cleanup();
});

/** Saves as editors do: write a sibling, rename it over the profile. */
function save(text: string): void {
  writeFileSync(`${file}.swp`, text);
  renameSync(`${file}.swp`, file);
}

function next(watch: ProfileWatch): Promise<ProfileChange> {
  return new Promise((resolve) => {
    const off = watch.onChange((c) => {
      off();
      resolve(c);
    });
  });
}

describe('ProfileWatch', () => {
  it('says changed after an editor-style save, unchanged once saved back, and forgets a stopped launch', async () => {
    const launch = await host.launch(file, { waitForServers: false });
    const watch = new ProfileWatch(host);
    try {
      expect(watch.list()).toEqual([]);
      const original = readFileSync(file, 'utf8');
      let change = next(watch);
      save(`${original}# edited\n`);
      expect(await change).toEqual({ launchId: launch.id, profile: 'watch-test', file, changed: true });
      expect(watch.list()).toEqual([{ launchId: launch.id, profile: 'watch-test', file, changed: true }]);
      change = next(watch);
      save(original);
      expect((await change).changed).toBe(false);
      expect(watch.list()).toEqual([]);
      change = next(watch);
      save(`${original}# edited again\n`);
      expect((await change).changed).toBe(true);
      await host.stop(launch.id);
      expect(watch.list()).toEqual([]);
    } finally {
      watch.close();
    }
  }, 60_000);

  it('a profile edited before the watch started reads as changed at once', async () => {
    const launch = await host.launch(file, { waitForServers: false });
    writeFileSync(file, `${readFileSync(file, 'utf8')}# edited early\n`);
    const watch = new ProfileWatch(host);
    try {
      expect(watch.list()).toEqual([{ launchId: launch.id, profile: 'watch-test', file, changed: true }]);
    } finally {
      watch.close();
    }
  }, 60_000);
});
