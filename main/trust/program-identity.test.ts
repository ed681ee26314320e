// Program pinning (docs/trust.md "Program pinning") on real files: what a command runs is found
// the way a run finds it, hashed, and a change to any of it changes the identity. Also the two
// migrations that keep pins made before it valid (launch-consent.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedProfile, StdioServerSpec } from '../profiles/types';
import { Redactor } from '../secrets/redactor';
import { PACKAGE_HASH_CAP } from './file-hash';
import { identityHash, launchIdentity } from './identity';
import { holds, reviewLaunch, reviewProfile, setTestApprover } from './launch-consent';
import { TrustStore } from './pin-store';
import { PROFILE_REVIEW, profileIdentity } from './profile-identity';
import { programIdentity } from './program-identity';

const tmp: string[] = [];
const dir = () => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gh-program-')));
  tmp.push(d);
  return d;
};
beforeAll(() => setTestApprover(undefined));
afterAll(() => setTestApprover('test-setup'));
afterEach(() => {
  for (const d of tmp.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function stdio(cwd: string, command: string, args: string[]): StdioServerSpec {
  return {
    id: 's',
    kind: 'stdio',
    command,
    args,
    env: {},
    inheritEnv: [],
    cwd,
    framing: 'auto',
    trust: 'pin',
    sandbox: { mode: 'strict', write: [], read: [], hostPorts: [], network: { kind: 'none' } },
    disabled: false,
    restart: { maxRestarts: 0, initialBackoffMs: 1, maxBackoffMs: 1, resetAfterMs: 1 },
    startupTimeoutMs: 1000,
    requestTimeoutMs: 1000,
  };
}

function pkg(root: string, name: string, version: string, files: Record<string, string>): string {
  const d = path.join(root, 'node_modules', ...name.split('/'));
  fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(d, 'package.json'), JSON.stringify({ name, version }));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
    fs.writeFileSync(path.join(d, f), text);
  }
  return d;
}

const search = process.env.PATH ?? '';

describe('programIdentity', () => {
  it("node <script>: the executable's realpath and the script, each by sha256; an edit changes the entry hash", () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'server.mjs'), 'console.log(1)');
    const spec = stdio(d, process.execPath, ['--no-warnings', 'server.mjs']);
    const a = programIdentity(spec, search);
    expect(a.executable?.path).toBe(fs.realpathSync(process.execPath));
    expect(a.executable?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(a.entry?.path).toBe(path.join(d, 'server.mjs'));
    fs.writeFileSync(path.join(d, 'server.mjs'), 'console.log(2)');
    const b = programIdentity(spec, search);
    expect(b.entry?.sha256).not.toBe(a.entry?.sha256);
    expect(b.executable?.sha256).toBe(a.executable?.sha256);
  });

  it('an entry inside node_modules/<pkg>: the package by name, version and the hash of its own files', () => {
    const d = dir();
    const p = pkg(d, '@acme/mcp', '1.2.3', { 'dist/index.js': 'a', 'lib/util.js': 'b' });
    pkg(p, 'dep', '9.9.9', { 'index.js': 'nested deps are other packages' });
    const spec = stdio(d, process.execPath, [path.join(p, 'dist', 'index.js')]);
    const a = programIdentity(spec, search);
    expect(a.package).toMatchObject({ name: '@acme/mcp', version: '1.2.3', files: 3 });
    fs.writeFileSync(path.join(p, 'lib', 'util.js'), 'B');
    expect(programIdentity(spec, search).package?.sha256).not.toBe(a.package?.sha256);
  });

  it('a launcher (npx) pins the package as named and, installed here, its files; a package past the cap says so', () => {
    const d = dir();
    const bin = path.join(d, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'npx'), '#!/bin/sh\n');
    fs.chmodSync(path.join(bin, 'npx'), 0o755);
    pkg(d, '@acme/mcp', '2.0.0', { 'a.js': '1', 'b.js': '2', 'c.js': '3', 'd.js': '4' });
    const spec = stdio(d, 'npx', ['-y', '@acme/mcp@2.0.0', '--flag']);
    const saved = PACKAGE_HASH_CAP.files;
    try {
      (PACKAGE_HASH_CAP as { files: number }).files = 3;
      const p = programIdentity(spec, bin);
      expect(p.launcher).toBe('npx:@acme/mcp@2.0.0');
      expect(p.executable?.path).toBe(path.join(bin, 'npx'));
      expect(p.package).toMatchObject({ name: '@acme/mcp', version: '2.0.0', files: 3, capped: true });
    } finally {
      (PACKAGE_HASH_CAP as { files: number }).files = saved;
    }
  });

  it('a command that is not installed is pinned as missing', () => {
    expect(programIdentity(stdio(dir(), 'no-such-mcp-server-xyz', []), search)).toEqual({ missing: "command 'no-such-mcp-server-xyz' not found" });
  });
});

describe('the identity with a program, and the pins made before it', () => {
  const profileOf = (d: string): ResolvedProfile => ({
    name: 'p',
    file: path.join(d, 'p.yaml'),
    workspace: d,
    workspaceSource: 'profile',
    dataDir: path.join(d, 'data'),
    toolSurface: 'friendly',
    servers: [],
    aliases: {},
    policy: { default: 'approve', rules: [], approvalTimeoutS: 120, sampling: 'deny' },
    redactor: new Redactor(),
  });

  it('the Program line shows short hashes; a pin without program (older) is given one once, then a change asks as program changed', () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'server.mjs'), 'one');
    const spec = stdio(d, process.execPath, ['server.mjs']);
    const profile = { ...profileOf(d), servers: [spec] };
    const store = new TrustStore(profile.dataDir);
    const old = launchIdentity(spec, profile);
    store.approveLaunch('p', 's', old, identityHash(old), 'alice');

    const first = reviewLaunch(profile, spec, store, { searchPath: search });
    expect(first.status).toBe('approved');
    expect(store.server('p', 's')?.approvedBy).toBe('alice (program pinned at its first launch since program pinning)');
    expect(first.lines.find((l) => l.field === 'program')?.value).toMatch(/entry .*server\.mjs sha256:[0-9a-f]{12}\b/);

    fs.writeFileSync(path.join(d, 'server.mjs'), 'two');
    const second = reviewLaunch(profile, spec, store, { searchPath: search });
    expect(second).toMatchObject({ status: 'changed', changed: ['program'] });
  });

  it("the profile's identity: a version-1 pin file is pinned once; after that a changed default holds", () => {
    const d = dir();
    const profile = profileOf(d);
    const store = new TrustStore(profile.dataDir);
    fs.mkdirSync(store.dir, { recursive: true });
    fs.writeFileSync(store.file('p'), JSON.stringify({ version: 1, profile: 'p', servers: { s: { identityHash: 'x', identity: {}, pending: {}, rejectedTools: {} } } }));
    expect(reviewProfile(profile, store).status).toBe('approved');
    expect(store.read('p')).toMatchObject({ version: 2, launch: { approvedBy: 'gatehouse (pinned at its first launch since profile pinning)' } });

    const allow = { ...profile, policy: { ...profile.policy, default: 'allow' as const } };
    const r = reviewProfile(allow, store);
    expect(r).toMatchObject({ server: PROFILE_REVIEW, status: 'changed', changed: ['policyDefault'] });
    expect(holds(r)).toBe(true);
    // A profile never approved (a fresh data dir, version 2) does not hold by itself.
    const fresh = new TrustStore(path.join(d, 'fresh'));
    expect(holds(reviewProfile(profile, fresh))).toBe(false);
    expect(profileIdentity(profile)).toMatchObject({ policyDefault: 'approve', workspace: d });
  });
});
