// The demo ships pre-approved (docs/trust.md): workspace-profiles/demo.trust.json carries the
// hash of each server's launch identity with this machine's paths templated, so it holds for
// any install folder and any data dir; editing the demo's servers makes them ask again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRoot, bundledProfilesDir } from '../paths';
import { loadProfileFile } from '../profiles/loader';
import { resolveProfile } from '../profiles/resolve';
import { bundledIdentityHash, bundledProfileHash, reviewProfileLaunch, setTestApprover } from './launch-consent';
import { TrustStore } from './pin-store';
import { PROFILE_REVIEW } from './profile-identity';

const demoFile = path.join(bundledProfilesDir(), 'demo.yaml');
const pinFile = path.join(bundledProfilesDir(), 'demo.trust.json');
const tmp: string[] = [];
const search = { searchPath: [process.env.PATH, path.join(appRoot(), 'node_modules', '.bin')].join(path.delimiter) };
const dataDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-trust-bundled-'));
  tmp.push(d);
  return d;
};

beforeAll(() => setTestApprover(undefined));
afterAll(() => {
  setTestApprover('test-setup');
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});

describe('the bundled demo pin file', () => {
  it('matches the demo profile as declared (regenerate with the content printed on failure)', () => {
    const profile = resolveProfile(loadProfileFile(demoFile), { dataDir: dataDir(), env: {} });
    const servers = Object.fromEntries(profile.servers.filter((s) => s.kind !== 'builtin').map((s) => [s.id, bundledIdentityHash(s, profile)]));
    const expected = { profile: 'demo', launch: bundledProfileHash(profile), servers };
    const actual = JSON.parse(fs.readFileSync(pinFile, 'utf8')) as { profile: string; launch?: string; servers: Record<string, string> };
    expect({ profile: actual.profile, launch: actual.launch, servers: actual.servers }, `expected ${pinFile} to hold:\n${JSON.stringify(expected, null, 2)}`).toEqual(expected);
  });

  it('approves the demo in a fresh data dir, recorded as bundled, and the same hashes hold for another data dir', () => {
    for (const d of [dataDir(), dataDir()]) {
      const profile = resolveProfile(loadProfileFile(demoFile), { dataDir: d, env: {} });
      const store = new TrustStore(d);
      const reviews = reviewProfileLaunch(profile, store, search);
      expect(reviews.map((r) => [r.server, r.status])).toEqual([
        [PROFILE_REVIEW, 'approved'],
        ['workspace', 'approved'],
        ['files', 'approved'],
        ['memory', 'approved'],
      ]);
      expect(store.server('demo', 'files')?.approvedBy).toBe('bundled with Gatehouse');
    }
  });

  it('a copy of the demo outside workspace-profiles/ is not pre-approved, nor is an edited bundled declaration', () => {
    const d = dataDir();
    const copyDir = path.join(d, 'profiles');
    fs.mkdirSync(path.join(copyDir, 'demo-workspace'), { recursive: true });
    fs.writeFileSync(path.join(copyDir, 'demo.yaml'), fs.readFileSync(demoFile));
    fs.copyFileSync(pinFile, path.join(copyDir, 'demo.trust.json'));
    const copy = resolveProfile(loadProfileFile(path.join(copyDir, 'demo.yaml')), { dataDir: d, env: {} });
    expect(reviewProfileLaunch(copy, new TrustStore(d), search).filter((r) => r.status !== 'approved').map((r) => r.server)).toEqual([PROFILE_REVIEW, 'files', 'memory']);

    const d2 = dataDir();
    const edited = resolveProfile(loadProfileFile(demoFile), { dataDir: d2, env: {} });
    const files = edited.servers.find((s) => s.id === 'files')!;
    if (files.kind === 'stdio') files.args = [...files.args, '/'];
    const reviews = reviewProfileLaunch(edited, new TrustStore(d2), search);
    expect(reviews.find((r) => r.server === 'files')?.status).toBe('new');
    expect(reviews.find((r) => r.server === 'memory')?.status).toBe('approved');
  });
});
