// A host-side Unix socket in the data directory, born 0600 (the approvals relay, relay-server.ts,
// and the grants control socket, grants-control.ts): the folder checked (0700, ours), a stale
// socket cleared, a live one left to the host that answers on it, and on exit only our own file
// removed. Named pipes on Windows need none of this.
import fs from 'node:fs';
import net from 'node:net';
import { LineSplitter } from './relay-wire';

/** The umask is process-wide; narrowed only for the synchronous bind so the socket is born 0600. */
export function listenPrivate(server: net.Server, socketPath: string, windows: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    let old: number | undefined;
    try {
      if (!windows) old = process.umask(0o177);
    } catch {
      old = undefined; // worker threads cannot set the umask; chmod below still applies
    }
    try {
      server.listen(socketPath, () => {
        server.off('error', onError);
        resolve();
      });
    } finally {
      if (old !== undefined) process.umask(old);
    }
  });
}

/**
 * Makes the data dir (0700) and clears a stale socket: one nothing answers on. A socket that
 * answers belongs to another host of this data dir, which keeps it (`busy` says so). Returns
 * true or why not.
 */
export async function prepareSocketPath(socketPath: string, dataDir: string, busy: string): Promise<true | string> {
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const st = fs.statSync(dataDir);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return `${dataDir} belongs to another user`;
    // Others who can write the folder could replace the socket with their own.
    if ((st.mode & 0o022) !== 0) return `${dataDir} is writable by other users (chmod 700 it)`;
  } catch (err) {
    return `cannot use ${dataDir}: ${(err as Error).message}`;
  }
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socketPath);
  } catch {
    return true; // nothing there
  }
  if (!st.isSocket()) return `${socketPath} exists and is not a socket`;
  const answered = await new Promise<boolean>((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (answered) return busy;
  try {
    fs.unlinkSync(socketPath);
  } catch (err) {
    return `cannot remove the stale ${socketPath}: ${(err as Error).message}`;
  }
  return true;
}

/** After listening: 0600 again (a umask that could not be narrowed) and the inode, to remove only our own file. */
export function sealSocketFile(socketPath: string): number | undefined {
  try {
    fs.chmodSync(socketPath, 0o600);
    return fs.lstatSync(socketPath).ino;
  } catch {
    return undefined;
  }
}

/** Removes the socket file if it is still the one we bound (never one a later host put there). */
export function removeOwnSocket(socketPath: string, inode: number | undefined): void {
  try {
    if (inode !== undefined && fs.lstatSync(socketPath).ino === inode) fs.unlinkSync(socketPath);
  } catch {}
}

/**
 * Hands each line a peer sends on `socket` to `each`, blank lines skipped; a line longer than
 * `maxLine` bytes ends the connection, and `each` returning false stops reading (it has ended it).
 */
export function readSocketLines(socket: net.Socket, maxLine: number, each: (line: string) => boolean | void): void {
  const lines = new LineSplitter(maxLine);
  socket.on('data', (chunk: Buffer) => {
    if (socket.destroyed) return;
    const got = lines.push(chunk);
    if (got === 'overflow') return void socket.destroy();
    for (const line of got) {
      if (line.trim() === '') continue;
      if (each(line) === false) return;
    }
  });
}
