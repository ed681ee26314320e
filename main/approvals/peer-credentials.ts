// Who is on the other end of a Unix socket, as the kernel recorded it at connect() time:
// SO_PEERCRED on Linux, getpeereid + LOCAL_PEERPID on macOS. Node has no API for either and no
// maintained npm package offers it for Node 20 without a prebuilt download. Looked at:
// `unix-socket-credentials` (getsockopt through node-ffi/ref, unmaintained, does not build on
// current Node, Linux only with SO_PEERCRED hard-coded as 17); `node-unix-socket` (SEQPACKET,
// SO_REUSEPORT; no peer credentials). So native/peercred is a 60-line N-API addon that
// `npm install` builds with npm's own node-gyp (scripts/build-native.mjs). N-API is
// ABI-stable: the same binary loads in Node and Electron.
//
// Rejected alternatives: /proc/net/unix lists inodes but pairing a peer's inode needs
// sock_diag (netlink), which Node cannot reach; asking the peer (the old `hello.pid`) is what
// let a forged "gateway:4242" card appear. When the addon is missing or fails, the answer is
// `verified: false` and the caller must treat the peer as unverified — never fall back to a
// declared pid.
import { createRequire } from 'node:module';
import path from 'node:path';
import type net from 'node:net';
import { appRoot } from '../paths';

export type PeerCredentials = { verified: true; pid: number; uid: number; gid: number } | { verified: false; reason: string };

interface Addon {
  peerCred(fd: number): { pid: number; uid: number; gid: number };
}

let addon: Addon | { error: string } | undefined;

function load(): Addon | { error: string } {
  if (addon) return addon;
  if (process.platform !== 'linux' && process.platform !== 'darwin') return (addon = { error: `peer credentials are not implemented on ${process.platform}` });
  const file = path.join(appRoot(), 'native', 'peercred', 'build', 'Release', 'peercred.node');
  try {
    addon = createRequire(import.meta.url)(file) as Addon;
  } catch (err) {
    addon = { error: `the peer-credentials addon is not built (${file}: ${(err as Error).message.split('\n')[0]}); run npm install` };
  }
  return addon;
}

/** The kernel's record of the peer of a connected Unix socket, or why it cannot be had. */
export function peerCredentials(socket: net.Socket): PeerCredentials {
  const a = load();
  if ('error' in a) return { verified: false, reason: a.error };
  // libuv keeps the descriptor on the handle (Pipe.fd, POSIX only); there is no public accessor.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return { verified: false, reason: 'the socket has no file descriptor' };
  try {
    const c = a.peerCred(fd);
    return { verified: true, pid: c.pid, uid: c.uid, gid: c.gid };
  } catch (err) {
    return { verified: false, reason: (err as Error).message };
  }
}
