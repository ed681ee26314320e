// The sandbox as an ordinary user (the suite runs as root here, and root takes other paths in
// bwrap: no user namespace needed, capabilities kept unless dropped). Like the tools tests, the
// code runs as `nobody` via setpriv, from a world-readable standalone bundle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from '../support/supervisor';
import { landlockLauncherPath } from '../../main/sandbox/availability';

const AS_ROOT = process.getuid?.() === 0;
let dir: string;
let bundle: string;

beforeAll(async () => {
  if (!AS_ROOT) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'gh-sbx-nobody-'));
  chmodSync(dir, 0o755);
  bundle = path.join(dir, 'run-sandboxed.mjs');
  await build({ absWorkingDir: repoRoot, entryPoints: ['tests/fixtures/sandbox/run-sandboxed.ts'], outfile: bundle, bundle: true, platform: 'node', target: 'node20', format: 'esm', logLevel: 'warning' });
  chmodSync(bundle, 0o644);
}, 60_000);
afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!AS_ROOT)('the sandbox for an unprivileged user (nobody)', () => {
  it('creates its namespaces without root, hides a readable canary, keeps writes to the workspace, no capabilities', () => {
    // A home outside /tmp (a private /tmp would hide it for other reasons), owned by nobody.
    const home = mkdtempSync('/var/tmp/gh-sbx-nobody-home-');
    try {
      const ws = path.join(home, 'proj');
      const data = path.join(home, '.local', 'state', 'gatehouse');
      mkdirSync(ws, { recursive: true });
      mkdirSync(data, { recursive: true });
      const canary = path.join(home, 'canary.txt');
      writeFileSync(canary, 'NOBODY-CANARY');
      execFileSync('chown', ['-R', '65534:65534', home]);
      const outside = path.join('/var/tmp', `gh-sbx-outside-${process.pid}`);
      const asNobody = (args: string[]) => execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...args], { encoding: 'utf8', cwd: dir });
      // Unconfined, nobody reads the canary: the sandbox is what stops it below.
      expect(asNobody(['cat', canary])).toBe('NOBODY-CANARY');
      const out = JSON.parse(asNobody([process.execPath, bundle, JSON.stringify({ workspace: ws, dataDir: data, home, canary, outside })])) as Record<string, unknown>;
      expect(out).toMatchObject({ uid: 65534, canary: 'ERR ENOENT', writeWorkspace: 'wrote', capEff: '0000000000000000', seccomp: '2' });
      expect(out.writeOutside).toMatch(/^ERR (EROFS|EACCES)/);
      expect(out.procs as number).toBeLessThan(5);
      expect(readFileSync(path.join(ws, 'in.txt'), 'utf8')).toBe('x');
      expect(existsSync(outside)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

// The reduced landlock kind as nobody (what a user on Ubuntu >= 23.10 gets): bwrap refused as
// AppArmor refuses it, the launcher copied into the world-readable folder.
const LAUNCHER = landlockLauncherPath(process.env);
describe.skipIf(!AS_ROOT || !existsSync(LAUNCHER))('the landlock sandbox for an unprivileged user (nobody)', () => {
  it('confines nobody: canary refused, writes only to the workspace, no capabilities, a seccomp filter', () => {
    const home = mkdtempSync('/var/tmp/gh-ll-nobody-home-');
    try {
      const ws = path.join(home, 'proj');
      const data = path.join(home, '.local', 'state', 'gatehouse');
      mkdirSync(ws, { recursive: true });
      mkdirSync(data, { recursive: true });
      const canary = path.join(home, 'canary.txt');
      writeFileSync(canary, 'NOBODY-CANARY');
      execFileSync('chown', ['-R', '65534:65534', home]);
      const launcher = path.join(dir, 'gatehouse-landlock');
      copyFileSync(LAUNCHER, launcher);
      chmodSync(launcher, 0o755);
      const outside = path.join('/var/tmp', `gh-ll-outside-${process.pid}`);
      const denied = path.join(repoRoot, 'tests', 'fixtures', 'sandbox', 'bwrap-apparmor-denied.sh');
      const env = ['env', `GATEHOUSE_BWRAP=${denied}`, `GATEHOUSE_LANDLOCK=${launcher}`];
      const asNobody = (args: string[]) => execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...env, ...args], { encoding: 'utf8', cwd: dir });
      expect(asNobody(['cat', canary])).toBe('NOBODY-CANARY');
      const out = JSON.parse(asNobody([process.execPath, bundle, JSON.stringify({ workspace: ws, dataDir: data, home, canary, outside })])) as Record<string, unknown>;
      expect(out).toMatchObject({ uid: 65534, canary: 'ERR EACCES', writeOutside: 'ERR EACCES', writeWorkspace: 'wrote', capEff: '0000000000000000', seccomp: '2' });
      expect(readFileSync(path.join(ws, 'in.txt'), 'utf8')).toBe('x');
      expect(existsSync(outside)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
