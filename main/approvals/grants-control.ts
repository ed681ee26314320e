// The grants control socket, host side (docs/agents.md, "Session grants from a terminal"): a
// running host (`gatehouse serve`, `gatehouse launch`, the desktop app) listens on
// `<dataDir>/grants.sock` so that `gatehouse grants list|revoke` in a terminal can see and take
// back the "allow for this session" grants its approval broker holds. Wire: grants-wire.ts.
//
// Why this socket is safe to open:
//  - It can only take power away or show it: `list` and `revoke`, nothing else. No message grants
//    anything or answers an approval (an agent must never be able to answer its own approvals,
//    docs/security.md); an unknown verb is refused and closes the connection.
//  - The socket is 0600 in the data directory (0700): other users cannot connect, and a peer of
//    another uid is refused anyway (SO_PEERCRED, ./peer-credentials.ts).
//  - Sandboxed servers and agents must not reach it either, not even to revoke (a revoke is a
//    person's decision) or to read which calls were waved through. Under bubblewrap, Seatbelt
//    and containers the data directory is not there at all (docs/sandbox.md). Under the reduced
//    Landlock kind a known socket path stays connectable (Landlock ABI ≤ 7 has no right for
//    connect), so the host also refuses every peer the kernel says runs with no_new_privs:
//    every Gatehouse sandbox sets it (bubblewrap does, the Landlock launcher must before
//    landlock_restrict_self, and seccomp needs it), it is inherited by every child and can
//    never be cleared. A person's terminal does not have it. A peer whose credentials cannot be
//    had (the addon not built) is refused on Linux for the same reason: it could be sandboxed.
//  - Bounded: 8 connections, 4 KiB per line, 30 s of silence ends a connection.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { SessionGrant } from '../../common/host-api-shapes';
import { parseLine } from './relay-wire';
import { GRANTS_MAX_LINE_BYTES, GrantsRequestSchema, grantsSocketPath, type GrantsRequest, type GrantsResponse } from './grants-wire';
import { peerCredentials, type PeerCredentials } from './peer-credentials';
import { listenPrivate, prepareSocketPath, readSocketLines, removeOwnSocket, sealSocketFile } from './socket-file';

export interface GrantsControlHost {
  broker: { listGrants(): SessionGrant[]; revokeGrant(id: string): SessionGrant | undefined };
  dataDir: string;
}

export interface GrantsControlOptions {
  /** Default: grantsSocketPath(host.dataDir). */
  socketPath?: string;
  /** Replaces the kernel's answer (tests of the unverified path). */
  peerCredentials?: (socket: net.Socket) => PeerCredentials;
  /** Why a peer must be refused as sandboxed, or undefined (default: sandboxedPeer). */
  sandboxed?: (pid: number) => string | undefined;
  /** One line per noteworthy event (stderr in the shells). */
  log?: (line: string) => void;
  idleMs?: number;
}

export interface GrantsControl {
  /** Where it listens; undefined when it could not (the reason was logged). */
  readonly path: string | undefined;
  close(): Promise<void>;
  /** For process 'exit' handlers: drops every connection and removes the socket file, synchronously. */
  closeSync(): void;
}

const MAX_CONNECTIONS = 8;

/**
 * Why the process `pid` counts as sandboxed, from the kernel's /proc/<pid>/status: no_new_privs
 * set (every Gatehouse sandbox kind sets it). Undefined for a plain process. A seccomp filter
 * alone is not a sign: Docker puts one on every container, a person's shell in one included,
 * and a Gatehouse sandbox's filter comes with no_new_privs anyway.
 * On a platform without /proc it answers undefined (macOS: Seatbelt refuses every Unix socket
 * connect to a sandboxed process, docs/sandbox.md).
 */
export function sandboxedPeer(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch (err) {
    return `cannot read /proc/${pid}/status (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (/^NoNewPrivs:\s*1\s*$/m.test(status)) return `pid ${pid} runs with no_new_privs, as every Gatehouse sandbox does`;
  return undefined;
}

/** Starts listening for `gatehouse grants`. Never throws for an unusable socket path: logs why and returns an inert control. */
export async function startGrantsControl(host: GrantsControlHost, opts: GrantsControlOptions = {}): Promise<GrantsControl> {
  const log = opts.log ?? (() => {});
  const socketPath = opts.socketPath ?? grantsSocketPath(host.dataDir);
  const credentialsOf = opts.peerCredentials ?? peerCredentials;
  const sandboxed = opts.sandboxed ?? sandboxedPeer;
  const windows = process.platform === 'win32';
  const myUid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const sockets = new Set<net.Socket>();

  const inert = (why: string): GrantsControl => {
    log(`gatehouse: grants control off (gatehouse grants cannot reach this host): ${why}`);
    return { path: undefined, close: async () => {}, closeSync: () => {} };
  };
  if (!windows) {
    // The socket's own folder (the desktop app puts it in the CLI's data dir, not its userData).
    const prepared = await prepareSocketPath(socketPath, path.dirname(socketPath), `another Gatehouse host of this data dir already answers gatehouse grants on ${socketPath}`);
    if (prepared !== true) return inert(prepared);
  }

  const answer = (req: GrantsRequest): GrantsResponse => {
    if (req.verb === 'list') return { ok: true, grants: host.broker.listGrants() };
    const ids = 'all' in req ? host.broker.listGrants().map((g) => g.id) : [req.id];
    const revoked: SessionGrant[] = [];
    for (const id of ids) {
      const g = host.broker.revokeGrant(id);
      if (g) revoked.push(g);
    }
    if (revoked.length > 0) log(`gatehouse: ${revoked.length} session grant${revoked.length === 1 ? '' : 's'} revoked from a terminal (gatehouse grants revoke): ${revoked.map((g) => g.tool).join(', ')}`);
    return { ok: true, revoked };
  };

  /** Undefined when the peer may talk to us, else why not (sent to it before closing). */
  const refusal = (socket: net.Socket): string | undefined => {
    if (windows) return undefined; // a named pipe's ACL is the user's; no Gatehouse sandbox runs on Windows
    const peer = credentialsOf(socket);
    if (!peer.verified) return process.platform === 'linux' ? `refused: cannot tell who is connecting (${peer.reason})` : undefined;
    if (myUid !== undefined && peer.uid !== myUid) return `refused: uid ${peer.uid} is not this host's user`;
    const boxed = sandboxed(peer.pid);
    return boxed ? `refused: a sandboxed process cannot use this socket (${boxed})` : undefined;
  };

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const send = (msg: GrantsResponse) => {
      if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(msg)}\n`);
    };
    const refused = refusal(socket);
    if (refused) {
      log(`gatehouse: grants control ${refused}`);
      send({ ok: false, error: refused });
      socket.end();
      return;
    }
    socket.setTimeout(opts.idleMs ?? 30_000, () => socket.destroy());
    readSocketLines(socket, GRANTS_MAX_LINE_BYTES, (line) => {
      const req = parseLine(GrantsRequestSchema, line);
      if (!req) {
        send({ ok: false, error: 'expected {"verb":"list"}, {"verb":"revoke","id":ID} or {"verb":"revoke","all":true}' });
        socket.end();
        return false;
      }
      send(answer(req));
      return true;
    });
  });
  server.maxConnections = MAX_CONNECTIONS;

  try {
    await listenPrivate(server, socketPath, windows);
  } catch (err) {
    return inert(`cannot listen on ${socketPath}: ${(err as Error).message}`);
  }
  const inode = windows ? undefined : sealSocketFile(socketPath);

  let closing: Promise<void> | undefined;
  return {
    path: socketPath,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        if (!windows) removeOwnSocket(socketPath, inode);
      });
      return closing;
    },
    closeSync() {
      for (const s of sockets) s.destroy();
      server.close();
      if (!windows) removeOwnSocket(socketPath, inode);
    },
  };
}
