// Runs the real headless shell for a spec: `node out/cli.mjs serve --port 0` with its own temp
// data and profile dirs. Its stderr is a pipe, not a terminal, so it prints no login code there
// (main/web/login-code-sink.ts): the spec reads the 0600 `<dataDir>/web-login-url` it keeps
// instead (a fresh URL after each use), as a person would with `serve --print-login-url`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base } from '@playwright/test';
import { pinProfile } from '../../support/trust';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LOGIN_URL = /^http:\/\/127\.0\.0\.1:\d+\/login\?code=\S+$/;

export interface ServeHandle {
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly dataDir: string;
  /** GATEHOUSE_PROFILES_DIR of this server (profiles written with `profiles` live here). */
  readonly profilesDir: string;
  /** A scratch folder of this server's temp dir (test workspaces), removed on stop. */
  readonly scratchDir: string;
  /** A login URL nobody has used yet (waits for the server to print the next one). */
  freshLoginUrl(): Promise<string>;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /**
   * Profiles to write into the server's profiles dir before it starts: file name → YAML.
   * `${scratch}` in the text is replaced by the scratch folder (for test workspaces).
   */
  profiles?: Record<string, string>;
  /**
   * Profiles (file names of `profiles`) left unapproved. Every other one is pre-approved before
   * the server starts: its launch identities pinned through the real trust store into this
   * server's data dir (tests/support/trust.ts), as `gatehouse trust accept` would.
   */
  unapproved?: string[];
  /** Run another build's `out/` (bench:ui compares builds); default: this checkout's. */
  outDir?: string;
}

export async function startServe(opts: ServeOptions = {}): Promise<ServeHandle> {
  const out = opts.outDir ?? path.join(ROOT, 'out');
  const cli = path.join(out, 'cli.mjs');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  if (!existsSync(path.join(out, 'renderer', 'index.html'))) throw new Error('out/renderer/index.html is missing: run npm run build first');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-e2e-'));
  const dataDir = path.join(tmp, 'data');
  const profilesDir = path.join(tmp, 'profiles');
  const scratchDir = path.join(tmp, 'scratch');
  mkdirSync(scratchDir, { recursive: true });
  if (opts.profiles) {
    mkdirSync(profilesDir, { recursive: true });
    for (const [name, text] of Object.entries(opts.profiles)) {
      const file = path.join(profilesDir, name);
      writeFileSync(file, text.replaceAll('${scratch}', scratchDir));
      if (!opts.unapproved?.includes(name)) pinProfile(dataDir, file, { ...process.env, GATEHOUSE_PROFILES_DIR: profilesDir, ...opts.env });
    }
  }
  const child: ChildProcess = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, ...(opts.args ?? [])], {
    cwd: tmp,
    env: {
      ...process.env,
      // Isolated from the user's own profiles and state; the bundled demo is still listed.
      GATEHOUSE_PROFILES_DIR: profilesDir,
      XDG_STATE_HOME: path.join(tmp, 'state'),
      GATEHOUSE_TOKEN: '',
      ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const urls: string[] = [];
  let handedOut = 0;
  const waiters = new Set<() => void>();
  const urlFile = path.join(dataDir, 'web-login-url');
  const readUrlFile = () => {
    let text = '';
    try {
      text = readFileSync(urlFile, 'utf8').trim();
    } catch {}
    if (LOGIN_URL.test(text) && urls.at(-1) !== text) urls.push(text);
  };
  const poll = setInterval(() => {
    readUrlFile();
    for (const w of [...waiters]) w();
  }, 50);
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
    for (const w of [...waiters]) w();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => {
    clearInterval(poll);
    for (const w of [...waiters]) w();
  });

  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = () => {
        // Only the newest printed code works: older ones were used or replaced.
        readUrlFile();
        if (urls.length > handedOut) {
          waiters.delete(check);
          handedOut = urls.length;
          resolve(urls[urls.length - 1]!);
        } else if (child.exitCode !== null) {
          waiters.delete(check);
          reject(new Error(`gatehouse serve exited (${child.exitCode}):\n${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });

  const first = await next();
  handedOut = 0; // the first URL is still unused: hand it out to the first test that asks
  const origin = new URL(first).origin;
  return {
    origin,
    dataDir,
    profilesDir,
    scratchDir,
    freshLoginUrl: next,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** A `serve` fixture: one headless shell per worker, stopped after the last test. */
export const test = base.extend<object, { serve: ServeHandle }>({
  serve: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const handle = await startServe();
      await use(handle);
      await handle.stop();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
});

export { expect } from '@playwright/test';
