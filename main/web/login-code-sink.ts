// Where `gatehouse serve` puts its one-time login URLs, so that only the person can read them.
//
// A login code is the key to the approval boundary: whoever logs in can answer approvals. An
// agent once approved its own call by reading the code from `/proc/$PPID/fd/2` (serve's stderr
// was a file). So a code goes only where the agents Gatehouse starts cannot read it:
//  - a terminal (stderr is a TTY): the bytes go to the pty master, i.e. onto the screen. Another
//    process that opens the same /dev/pts/N reads the *keyboard* side, never what was written;
//  - the system browser (`--open`, used by `npm start` when there is a display): the URL is in
//    the opener's argv for the instant it runs (a sandboxed agent has its own PID namespace and
//    cannot see it; an unsandboxed same-user process could, as it could ptrace anything);
//  - otherwise a file `<dataDir>/web-login-url`, mode 0600 in the 0700 data dir, rewritten on
//    each rotation and removed at exit. The data dir is the place a sandboxed agent cannot see
//    (the sandbox hides it, with the relay socket), and other users cannot open it. stderr then
//    only says where to look: `gatehouse serve --print-login-url` (shown on a terminal only).
// Never: a non-terminal stderr, a log line, the audit store, an environment variable.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { spawn } from 'node:child_process';

export const LOGIN_URL_FILE = 'web-login-url';

export function loginUrlFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), LOGIN_URL_FILE);
}

export interface LoginCodeSinkOptions {
  dataDir: string;
  /** Where the terminal is, when there is one (default process.stderr). */
  stderr?: NodeJS.WriteStream | { isTTY?: boolean; write(s: string): unknown };
  /** Open the first URL in the system browser. */
  openBrowser?: boolean;
  /** Replaces the system opener (tests). */
  opener?: (url: string) => Promise<boolean>;
}

export interface LoginCodeSink {
  /** Each fresh login URL: the first one and after each use or expiry. */
  publish(url: string): void;
  /** Where codes go, for the banner ('terminal' | 'file'). */
  readonly route: 'terminal' | 'file';
  /** Removes the file (process 'exit' handlers: synchronous). */
  closeSync(): void;
}

export function createLoginCodeSink(opts: LoginCodeSinkOptions): LoginCodeSink {
  const stderr = opts.stderr ?? process.stderr;
  const terminal = stderr.isTTY === true;
  const file = loginUrlFile(opts.dataDir);
  let count = 0;
  let written: number | undefined; // inode of our file, so we never remove another serve's
  const line = (s: string) => void stderr.write(`gatehouse: ${s}\n`);

  const publish = (url: string) => {
    const first = count++ === 0;
    if (first && opts.openBrowser) {
      void (opts.opener ?? openInBrowser)(url).then((ok) => {
        line(ok ? 'opened the login URL in your browser' : 'could not open a browser for the login URL');
      });
    }
    if (terminal) {
      line(first ? `open ${url}` : `login link used or expired; a new one: ${url}`);
      return;
    }
    try {
      written = writePrivate(file, `${url}\n`);
    } catch (err) {
      line(`cannot write the login URL to ${file}: ${(err as Error).message}`);
      return;
    }
    if (first) {
      line(`stderr is not a terminal, so the login URL is not printed here (an agent could read it).`);
      line(`run \`gatehouse serve --print-login-url --data-dir ${path.dirname(file)}\` in a terminal, or read ${file} (0600)`);
    }
  };

  return {
    publish,
    route: terminal ? 'terminal' : 'file',
    closeSync() {
      try {
        if (written !== undefined && fs.lstatSync(file).ino === written) fs.unlinkSync(file);
      } catch {}
    },
  };
}

/** Writes `text` to `file` as a fresh 0600 file (temp + rename in the same 0700 folder); returns its inode. */
function writePrivate(file: string, text: string): number {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, st.mode & 0o700);
  // A random suffix: a temp file left by a crash (or another process with a reused pid) never
  // blocks the next publish.
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  // O_EXCL|O_NOFOLLOW: never write through a file or link someone else put there.
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return fs.lstatSync(file).ino;
}

/** The current login URL of the serve of this data dir, or why there is none. */
export function readLoginUrl(dataDir: string): { url: string } | { error: string } {
  const file = loginUrlFile(dataDir);
  let text: string;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) return { error: `${file} is not a regular file` };
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { error: `${file} belongs to another user` };
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return {
      error: `no login URL in ${file}: no gatehouse serve runs with this data dir, or it runs on a terminal (it prints its login URLs there)`,
    };
  }
  if (!/^http:\/\/127\.0\.0\.1:\d+\/login\?code=[A-Za-z0-9_-]+$/.test(text)) return { error: `${file} does not hold a login URL` };
  return { url: text };
}

function openInBrowser(url: string): Promise<boolean> {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  return new Promise((resolve) => {
    try {
      const child = spawn(command, [url], { stdio: 'ignore', detached: process.platform !== 'win32' });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
