// A new person's first hour (README, "Set up"): a fresh `git clone` of this checkout's HEAD, a
// temporary HOME, and a PATH with what Node and a C toolchain bring but no bwrap, no chromium and
// no apt-get (GATEHOUSE_BWRAP points at a missing file too). Then the two commands, nothing before.
//
// Real: git clone, npm and its `pretest` hook, scripts/preflight.mjs, scripts/start.mjs, the build
// (esbuild + Vite) in the clone, the headless shell answering on 127.0.0.1.
// Stood in: the `npm ci` that start.mjs runs when node_modules is missing (GATEHOUSE_NPM). The
// stand-in records how it was called and symlinks this checkout's node_modules (and the native
// addon's build), so CI does not download 400 packages a second time.
// /etc/os-release is a Debian one written here (GATEHOUSE_OS_RELEASE), so the command the block
// names does not depend on the machine the suite runs on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/supervisor';
import { tempDir } from '../support/temp';

let tmp: ReturnType<typeof tempDir>;
let clone: string;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

/** The first `name` on this process's PATH (for the reduced PATH's symlinks). */
function which(name: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

beforeAll(() => {
  tmp = tempDir('gatehouse-fresh-');
  clone = path.join(tmp.dir, 'clone');
  const head = spawnSync('git', ['-C', repoRoot, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  for (const args of [['clone', '--quiet', '--no-checkout', repoRoot, clone], ['-C', clone, 'checkout', '--quiet', head]]) {
    const r = spawnSync('git', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  }
  const bin = path.join(tmp.dir, 'bin');
  mkdirSync(bin);
  for (const tool of ['node', 'npm', 'sh', 'cc', 'c++', 'make', 'python3', 'git']) {
    const at = which(tool);
    if (at) symlinkSync(at, path.join(bin, tool));
  }
  const npmStandIn = path.join(tmp.dir, 'npm-stand-in');
  writeFileSync(
    npmStandIn,
    [
      '#!/bin/sh',
      `printf '%s\\n' "$*" "ELECTRON_SKIP_BINARY_DOWNLOAD=$ELECTRON_SKIP_BINARY_DOWNLOAD" "cwd=$(pwd)" > '${path.join(tmp.dir, 'npm-called')}'`,
      `/bin/ln -s '${path.join(repoRoot, 'node_modules')}' node_modules`,
      `if [ -e '${path.join(repoRoot, 'native', 'peercred', 'build')}' ]; then /bin/ln -s '${path.join(repoRoot, 'native', 'peercred', 'build')}' native/peercred/build; fi`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const osRelease = path.join(tmp.dir, 'os-release');
  writeFileSync(osRelease, 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nID=debian\n');
  mkdirSync(path.join(tmp.dir, 'home'));
  // Only these: nothing of this process's environment (GATEHOUSE_CHROMIUM, DISPLAY…) leaks in.
  env = {
    PATH: bin,
    HOME: path.join(tmp.dir, 'home'),
    GATEHOUSE_BWRAP: path.join(tmp.dir, 'no-bwrap-here'),
    GATEHOUSE_OS_RELEASE: osRelease,
    GATEHOUSE_NPM: npmStandIn,
    GATEHOUSE_DATA_DIR: path.join(tmp.dir, 'data'),
    npm_config_cache: path.join(tmp.dir, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const gone = new Promise((r) => child.once('exit', r));
    // Its own process group (detached): npm, start.mjs and the shell it serves, all of them.
    process.kill(-child.pid!, 'SIGTERM');
    await gone;
  }
  tmp?.cleanup();
});

function start(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(path.join(tmp.dir, 'bin', 'npm'), args, { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe('a fresh clone without bubblewrap or Chromium', () => {
  it('npm test stops in its preflight with the install block, before installing or running anything', async () => {
    const run = start(['test']);
    const code = await run.exited;
    const out = run.output();
    expect(code, out).not.toBe(0);
    expect(out).toMatch(/is missing what Gatehouse needs:/);
    expect(out).toMatch(/- bubblewrap: not found at .*no-bwrap-here \(GATEHOUSE_BWRAP\)/);
    expect(out).toMatch(/- Chromium: no chromium on PATH/);
    // What it has (cc, make, python3 are on this PATH) is not listed.
    expect(out).not.toMatch(/- python3:|- a C toolchain/);
    expect(out).toMatch(/install with:\n\s+(sudo )?apt-get update && (sudo )?apt-get install -y bubblewrap chromium\n/);
    // It stopped there: no install, no lint, no test runner.
    expect(existsSync(path.join(tmp.dir, 'npm-called'))).toBe(false);
    expect(existsSync(path.join(clone, 'node_modules'))).toBe(false);
    expect(out).not.toMatch(/eslint|vitest/);
  }, 120_000);

  it('npm start installs the dependencies itself, says the block, and serves the headless shell', async () => {
    const run = start(['start']);
    const urlFile = path.join(tmp.dir, 'data', 'web-login-url');
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        try {
          const m = /^(http:\/\/127\.0\.0\.1:\d+)\/login\?code=\S+/.exec(readFileSync(urlFile, 'utf8'));
          if (m) {
            clearInterval(timer);
            resolve(m[1]!);
          }
        } catch {}
      }, 100);
      void run.exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`npm start exited (${code}) before serving:\n${run.output()}`));
      });
    });
    const out = run.output();
    // The install step was reached, the way .ci/run installs (no Electron download in npm ci).
    const called = readFileSync(path.join(tmp.dir, 'npm-called'), 'utf8').split('\n');
    expect(called[0]).toBe('ci --no-audit --no-fund');
    expect(called[1]).toBe('ELECTRON_SKIP_BINARY_DOWNLOAD=1');
    expect(out).toMatch(/installing Gatehouse's dependencies from its lockfile/);
    // The block comes first, before anything is built or launched.
    const block = out.indexOf('is missing what Gatehouse needs:');
    expect(block, out).toBeGreaterThanOrEqual(0);
    expect(out.indexOf('building')).toBeGreaterThan(block);
    expect(out).toMatch(/- bubblewrap: not found at .*no-bwrap-here/);
    expect(out).toMatch(/install with:\n\s+(sudo )?apt-get update && (sudo )?apt-get install -y bubblewrap\n/);
    // Chromium is for the tests only: npm start does not ask for it.
    expect(out).not.toMatch(/- Chromium/);
    expect(out).toMatch(/not starting Electron: .*no display/);
    expect(out).toMatch(/running the headless shell instead/);
    const res = await fetch(`${url}/`, { redirect: 'manual' });
    expect(res.status).toBeLessThan(500);
  }, 240_000);
});
