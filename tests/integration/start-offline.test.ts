// `npm start` with the Electron binary missing and no network: one line says so, and the headless
// shell serves the app. The network is "absent" through electron's own mirror variable pointed at a
// port nothing listens on (ELECTRON_MIRROR=http://127.0.0.1:9/); the binary is "missing" through
// electron's ELECTRON_OVERRIDE_DIST_PATH pointed at an empty folder, so this holds on a machine
// where Electron is installed too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/supervisor';
import { tempDir } from '../support/temp';

let tmp: ReturnType<typeof tempDir>;
let child: ChildProcess | undefined;

beforeAll(() => {
  tmp = tempDir('gatehouse-start-');
  mkdirSync(path.join(tmp.dir, 'empty-dist'));
  // With a display, serve opens the login URL in the system browser (`xdg-open`, detached). A real
  // one would outlive the test and keep writing into its $HOME (the temp dir): ENOTEMPTY at
  // cleanup in CI, and a browser left running. A stand-in on PATH takes the call instead.
  mkdirSync(path.join(tmp.dir, 'bin'));
  writeFileSync(path.join(tmp.dir, 'bin', 'xdg-open'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
  tmp?.cleanup();
});

describe('npm start without the Electron binary, offline', () => {
  it('says so in one line and serves the app headless', async () => {
    child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs')], {
      cwd: repoRoot,
      env: {
        PATH: `${path.join(tmp.dir, 'bin')}:${process.env.PATH}`,
        HOME: tmp.dir,
        DISPLAY: ':99', // a display "exists", so the missing binary is the only obstacle
        ELECTRON_MIRROR: 'http://127.0.0.1:9/',
        ELECTRON_OVERRIDE_DIST_PATH: path.join(tmp.dir, 'empty-dist'),
        electron_config_cache: path.join(tmp.dir, 'electron-cache'),
        GATEHOUSE_DATA_DIR: path.join(tmp.dir, 'data'),
        GATEHOUSE_NO_BUILD: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    // The login URL is never printed to a non-terminal stderr (main/web/login-code-sink.ts): it
    // lands in the data dir's 0600 file, which is where this test reads it.
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
      }, 50);
      child!.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`npm start exited (${code}) before serving:\n${out}`));
      });
    });
    expect(out).not.toMatch(/login\?code=/);
    const electronLines = out.split('\n').filter((l) => /electron/i.test(l));
    expect(electronLines, out).toHaveLength(1);
    expect(electronLines[0]).toMatch(/^gatehouse: offline: Electron could not be downloaded \(.+\); serving the app headless instead/);
    expect(out).not.toMatch(/downloading Electron/);
    // It really serves: the login page answers.
    const res = await fetch(`${url}/`, { redirect: 'manual' });
    expect(res.status).toBeLessThan(500);
  }, 120_000);
});
