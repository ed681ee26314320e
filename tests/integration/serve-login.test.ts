// Where `gatehouse serve` shows its one-time login codes (main/web/login-code-sink.ts): on a
// terminal, or in a 0600 file of the data dir; never on a stderr that is a file or a pipe, which
// an agent of the same user could read through /proc/<pid>/fd/2.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir } from '../support/temp';
import { waitFor } from '../support/gateway';

type NodePty = typeof import('node-pty');
const pty = createRequire(import.meta.url)('node-pty') as NodePty;
const CODE = /login\?code=[A-Za-z0-9_-]+/;

let bundle: TestBundle;
let tmp: ReturnType<typeof tempDir>;
const stops: Array<() => Promise<void>> = [];

function env(dataDir: string): Record<string, string> {
  return { ...(process.env as Record<string, string>), GATEHOUSE_PROFILES_DIR: path.join(dataDir, '..', 'profiles'), XDG_STATE_HOME: path.join(dataDir, '..', 'state'), GATEHOUSE_TOKEN: '' };
}

function get(url: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      })
      .on('error', reject);
  });
}

function stopChild(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
}

beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'servelogin');
  tmp = tempDir('gh-servelogin-');
});

afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

afterAll(() => {
  bundle?.cleanup();
  tmp?.cleanup();
});

describe('gatehouse serve login codes', () => {
  it('stderr redirected to a file: no code in it; the code is in a 0600 file of the data dir, rotated after use, removed at exit', async () => {
    const dataDir = path.join(tmp.dir, 'file-case', 'data');
    const errFile = path.join(tmp.dir, 'file-case-stderr.txt');
    const fd = openSync(errFile, 'w');
    const child = spawn(process.execPath, [bundle.entry('cli'), 'serve', '--port', '0', '--data-dir', dataDir], { env: env(dataDir), stdio: ['ignore', 'ignore', fd] });
    closeSync(fd);
    stops.push(stopChild(child));
    const urlFile = path.join(dataDir, 'web-login-url');
    await waitFor(() => existsSync(urlFile) && readFileSync(errFile, 'utf8').includes('serving the app'), 'serve wrote its login URL file');
    expect(statSync(urlFile).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o077).toBe(0);
    const first = readFileSync(urlFile, 'utf8').trim();
    expect(first).toMatch(CODE);

    const login = await get(first);
    expect(login).toMatchObject({ status: 302, location: '/' });
    // Used once: a fresh code replaces it in the file, and still not on stderr.
    const second = await waitFor(() => {
      const t = readFileSync(urlFile, 'utf8').trim();
      return t !== first ? t : undefined;
    }, 'a fresh code after the use');
    expect(second).toMatch(CODE);
    expect((await get(first)).status).toBe(403);

    const stderr = readFileSync(errFile, 'utf8');
    expect(stderr).not.toMatch(CODE);
    expect(stderr).not.toContain(first.split('code=')[1]);
    expect(stderr).not.toContain(second.split('code=')[1]);
    expect(stderr).toContain('--print-login-url');

    // --print-login-url shows it only to a terminal: into a pipe it refuses and prints no code.
    const piped = spawnSync(process.execPath, [bundle.entry('cli'), 'serve', '--print-login-url', '--data-dir', dataDir], { env: env(dataDir), encoding: 'utf8' });
    expect(piped.status).toBe(1);
    expect(piped.stdout + piped.stderr).not.toMatch(CODE);
    expect(piped.stderr).toContain('not a terminal');
    const term = pty.spawn(process.execPath, [bundle.entry('cli'), 'serve', '--print-login-url', '--data-dir', dataDir], { env: env(dataDir), cols: 200, rows: 10 });
    let shown = '';
    term.onData((d) => (shown += d));
    const code = await new Promise<number>((r) => term.onExit((e) => r(e.exitCode)));
    expect(code).toBe(0);
    expect(shown).toContain(second);

    await stops.pop()!();
    expect(existsSync(urlFile), 'the file goes away with the serve').toBe(false);
  });

  it('--open (npm start with a display): the first URL goes to the system browser, not to stderr', async () => {
    const dataDir = path.join(tmp.dir, 'open-case', 'data');
    // A stand-in for the system opener (xdg-open): records the URL it was given.
    const bin = path.join(tmp.dir, 'open-case', 'bin');
    mkdirSync(bin, { recursive: true });
    const opened = path.join(tmp.dir, 'open-case', 'opened.txt');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(path.join(bin, 'xdg-open'), 0o755);
    const errFile = path.join(tmp.dir, 'open-case-stderr.txt');
    const fd = openSync(errFile, 'w');
    const child = spawn(process.execPath, [bundle.entry('cli'), 'serve', '--port', '0', '--open', '--data-dir', dataDir], {
      env: { ...env(dataDir), PATH: `${bin}:${process.env.PATH}` },
      stdio: ['ignore', 'ignore', fd],
    });
    closeSync(fd);
    stops.push(stopChild(child));
    await waitFor(() => existsSync(opened) && readFileSync(errFile, 'utf8').includes('opened the login URL in your browser'), 'the browser was asked to open the URL');
    const url = readFileSync(opened, 'utf8');
    expect(url).toMatch(CODE);
    expect((await get(url)).status).toBe(302);
    expect(readFileSync(errFile, 'utf8')).not.toMatch(CODE);
  });

  it('stderr on a terminal (pty): the login URL is shown there and no file is written', async () => {
    const dataDir = path.join(tmp.dir, 'pty-case', 'data');
    const term = pty.spawn(process.execPath, [bundle.entry('cli'), 'serve', '--port', '0', '--data-dir', dataDir], { env: env(dataDir), cols: 200, rows: 40 });
    let screen = '';
    term.onData((d) => (screen += d));
    let exited = false;
    term.onExit(() => (exited = true));
    stops.push(async () => {
      if (exited) return;
      const done = new Promise((r) => term.onExit(r));
      term.kill('SIGTERM');
      await done;
    });
    const m = await waitFor(() => /gatehouse: open (http:\/\/127\.0\.0\.1:\d+\/login\?code=[A-Za-z0-9_-]+)/.exec(screen), `the login URL on the terminal\n${screen}`);
    expect(existsSync(path.join(dataDir, 'web-login-url'))).toBe(false);
    expect((await get(m[1]!)).status).toBe(302);
    await waitFor(() => /a new one: http:\/\/127\.0\.0\.1:\d+\/login\?code=/.test(screen), 'the next code on the terminal');
  });
});
