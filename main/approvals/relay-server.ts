// The approvals relay, window side: a running Gatehouse window (`gatehouse serve`, the desktop
// app) listens on `<dataDir>/approvals.sock` so that `gatehouse gateway` processes started by
// other MCP hosts (Claude Desktop, Cursor…) can put their APPROVAL requests in this window's
// inbox and get the person's answer back, and their servers' questions (sampling, elicitation)
// too, which show in the inbox like the window's own. Wire format: relay-wire.ts.
//
// Why reaching this socket grants nothing:
//  - The relay can only *submit* requests and questions and receive their outcomes and answers.
//    No message answers a request or a question, grants anything or lists other requests; an
//    unknown `type` (an "answer", an "approve"…) is malformed and closes the connection. Each
//    connection only ever hears the outcomes and answers of its own requests and questions.
//  - Answers come only from the window's own approvers: its UI, through the host API
//    (Electron IPC checked against our window's frame, or the web shell's cookie-authenticated
//    WebSocket), or a terminal. None of their credentials pass through here or sit in any file
//    an agent is given. So any process that can connect to the socket, even an agent running as
//    the same user, can at most make a person look at a request; it cannot approve one through
//    it. (A same-user process outside the sandbox can replace the socket file itself and play the
//    window to the gateways that connect next: docs/security.md, "What remains".)
//  - Who is asking comes from the kernel, not from the peer: its pid and uid are read from the
//    socket (SO_PEERCRED / getpeereid, ./peer-credentials.ts) when it connects. `hello.pid` is
//    ignored, so a card can never claim to come from a process it does not. A peer of another
//    uid is refused before it says anything. When the credentials cannot be had (addon not
//    built, another platform) the card says "unverified gateway", never a pid it declared.
//  - The socket lives in the data directory (created 0700) and is itself 0600, so other users
//    cannot connect at all; the gateway side also checks the socket is owned by its own user
//    before it trusts outcomes from it (relaying-broker.ts). Under the Linux sandbox, agents and
//    servers do not see the data directory at all (docs/security.md).
//  - Bounded, so a flood costs a person one line and the window a few MiB: per connection
//    16 waiting requests and questions and 1 MiB of their lines; in all 64 and 4 MiB; 32
//    connections; 1 MiB per line. The excess is refused at once (the gateway denies the call
//    with the reason) and counted in ONE inbox notice per peer ("refused N requests from
//    gateway pid P: limit …"), never shown as cards. Timeouts are capped by this host, and
//    everything is cancelled when the connection drops.
import net from 'node:net';
import type { ApprovalBroker, ApprovalOutcome, ApprovalRequest, AskRequest, AskResult } from './broker';
import {
  ClientMessageSchema,
  parseLine,
  RELAY_LIMITS,
  RELAY_MAX_LINE_BYTES,
  relayLimitReason,
  relaySocketPath,
  type RelayLimits,
  type ClientMessage,
  type ServerMessage,
} from './relay-wire';
import { peerCredentials, type PeerCredentials } from './peer-credentials';
import { listenPrivate, prepareSocketPath, readSocketLines, removeOwnSocket, sealSocketFile } from './socket-file';

/** The longest a remote gateway may make the window wait for one answer. */
export const RELAY_MAX_TIMEOUT_MS = 15 * 60_000;

export interface ApprovalRelayHost {
  broker: ApprovalBroker;
  dataDir: string;
}

export interface ApprovalRelayOptions {
  /** Default: relaySocketPath(host.dataDir). */
  socketPath?: string;
  /** Cap on a request's timeout (default RELAY_MAX_TIMEOUT_MS). */
  maxTimeoutMs?: number;
  /** Pending requests and bytes, per connection and in all (default RELAY_LIMITS). */
  limits?: Partial<RelayLimits>;
  maxLineBytes?: number;
  /** Replaces the kernel's answer (tests of the unverified path). */
  peerCredentials?: (socket: net.Socket) => PeerCredentials;
  /** One line per noteworthy event (stderr in the shells). */
  log?: (line: string) => void;
}

export interface ApprovalRelay {
  /** Where it listens; undefined when it could not (the reason was logged). */
  readonly path: string | undefined;
  /** Gateways connected now. */
  connections(): number;
  close(): Promise<void>;
  /** For process 'exit' handlers: drops every connection and removes the socket file, synchronously. */
  closeSync(): void;
}

interface Connection {
  socket: net.Socket;
  peer: PeerCredentials;
  label?: string;
  /** Each waiting request: its canceller and the bytes of its line. */
  pending: Map<string, { ac: AbortController; bytes: number }>;
  bytes: number;
}

/**
 * Starts listening for remote gateways. Never throws for an unusable socket path: it logs why and
 * returns a relay with `path: undefined` (the window still works; remote approvals fail closed).
 */
export async function startApprovalRelay(host: ApprovalRelayHost, opts: ApprovalRelayOptions = {}): Promise<ApprovalRelay> {
  const log = opts.log ?? (() => {});
  const socketPath = opts.socketPath ?? relaySocketPath(host.dataDir);
  const maxTimeoutMs = opts.maxTimeoutMs ?? RELAY_MAX_TIMEOUT_MS;
  const limits: RelayLimits = { ...RELAY_LIMITS, ...opts.limits };
  const maxLine = opts.maxLineBytes ?? RELAY_MAX_LINE_BYTES;
  const credentialsOf = opts.peerCredentials ?? peerCredentials;
  const myUid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const total = { pending: 0, bytes: 0 };
  const windows = process.platform === 'win32';
  const broker = host.broker;
  const conns = new Set<Connection>();
  const labels = new Set<string>();

  const inert = (why: string): ApprovalRelay => {
    log(`gatehouse: approvals relay off: ${why}`);
    return { path: undefined, connections: () => 0, close: async () => {}, closeSync: () => {} };
  };

  if (!windows) {
    const prepared = await prepareSocketPath(socketPath, host.dataDir, `another Gatehouse window already relays approvals on ${socketPath}`);
    if (prepared !== true) return inert(prepared);
  }

  const send = (c: Connection, msg: ServerMessage) => {
    if (!c.socket.destroyed && c.socket.writable) c.socket.write(`${JSON.stringify(msg)}\n`);
  };

  /** Which limit a new line of `bytes` would cross, if any. */
  const overLimit = (c: Connection, bytes: number): string | undefined => {
    if (c.pending.size + 1 > limits.perConnectionPending) return `${limits.perConnectionPending} pending per gateway`;
    if (c.bytes + bytes > limits.perConnectionBytes) return `${mib(limits.perConnectionBytes)} pending per gateway`;
    if (total.pending + 1 > limits.totalPending) return `${limits.totalPending} pending in all`;
    if (total.bytes + bytes > limits.totalBytes) return `${mib(limits.totalBytes)} pending in all`;
    return undefined;
  };

  const refuse = (c: Connection, limit: string) => {
    const who = c.peer.verified ? `gateway pid ${c.peer.pid}` : 'an unverified gateway';
    const key = `relay-refused:${c.peer.verified ? c.peer.pid : 'unverified'}`;
    broker.notices.bump(key, 1, (n) => `refused ${n} request${n === 1 ? '' : 's'} from ${who}: limit ${limit}`);
  };

  const track = (c: Connection, id: string, bytes: number): AbortController => {
    const ac = new AbortController();
    c.pending.set(id, { ac, bytes });
    c.bytes += bytes;
    total.pending++;
    total.bytes += bytes;
    return ac;
  };

  /** Forgets one waiting request; true when it was still this one (not cancelled or replaced). */
  const settle = (c: Connection, id: string, ac?: AbortController): boolean => {
    const p = c.pending.get(id);
    if (!p || (ac && p.ac !== ac)) return false;
    c.pending.delete(id);
    c.bytes -= p.bytes;
    total.pending--;
    total.bytes -= p.bytes;
    return true;
  };

  const onMessage = (c: Connection, msg: ClientMessage, bytes: number): boolean => {
    switch (msg.type) {
      case 'hello': {
        if (c.label !== undefined) return false;
        // The label names the remote gateway in the inbox and scopes the grants a person makes
        // for it; kept unique among live connections so two gateways never share grants. The pid
        // is the kernel's (SO_PEERCRED), never msg.pid, which the peer could set to anything.
        const base = c.peer.verified ? `gateway:${c.peer.pid}` : 'gateway:unverified';
        let label = base;
        for (let n = 2; labels.has(label); n++) label = `${base}#${n}`;
        c.label = label;
        labels.add(label);
        send(c, { type: 'welcome', approvers: broker.approvers().length, questions: true });
        return true;
      }
      case 'request': {
        if (c.label === undefined || c.pending.has(msg.id)) return false;
        const limit = overLimit(c, bytes);
        if (limit) {
          refuse(c, limit);
          send(c, { type: 'outcome', id: msg.id, outcome: { approved: false, how: 'denied', reason: relayLimitReason(limit) } });
          return true;
        }
        const ac = track(c, msg.id, bytes);
        const { session: _theirs, ...rest } = msg.request;
        const req: ApprovalRequest = { ...rest, session: c.label };
        void broker.request(req, { timeoutMs: Math.min(msg.timeoutMs, maxTimeoutMs), signal: ac.signal }).then((outcome: ApprovalOutcome) => {
          // A cancelled request (or a dropped connection) has already been forgotten.
          if (!settle(c, msg.id, ac)) return;
          send(c, { type: 'outcome', id: msg.id, outcome });
        });
        return true;
      }
      case 'ask': {
        // A server's question, asked in this window's inbox like its own (same bounds, label,
        // cancel and disconnect handling as a request); the answer is the broker's ask() result.
        if (c.label === undefined || c.pending.has(msg.id)) return false;
        const limit = overLimit(c, bytes);
        if (limit) {
          refuse(c, limit);
          send(c, { type: 'answer', id: msg.id, result: { answered: false, how: 'declined', reason: relayLimitReason(limit) } });
          return true;
        }
        const ac = track(c, msg.id, bytes);
        const { session: _theirs, ...rest } = msg.request;
        const req: AskRequest = { ...rest, session: c.label };
        void broker.ask(req, { timeoutMs: Math.min(msg.timeoutMs, maxTimeoutMs), signal: ac.signal }).then((result: AskResult) => {
          if (!settle(c, msg.id, ac)) return;
          send(c, { type: 'answer', id: msg.id, result });
        });
        return true;
      }
      case 'cancel': {
        if (c.label === undefined) return false;
        const p = c.pending.get(msg.id);
        if (p && settle(c, msg.id)) p.ac.abort();
        return true;
      }
    }
  };

  const server = net.createServer((socket) => {
    const peer = windows ? ({ verified: false, reason: 'named pipes carry no peer credentials here' } as const) : credentialsOf(socket);
    if (peer.verified && myUid !== undefined && peer.uid !== myUid) {
      log(`gatehouse: approvals relay refused a connection from uid ${peer.uid} (pid ${peer.pid}): only uid ${myUid} may use it`);
      socket.destroy();
      return;
    }
    const c: Connection = { socket, peer, pending: new Map(), bytes: 0 };
    conns.add(c);
    readSocketLines(socket, maxLine, (line) => {
      const msg = parseLine(ClientMessageSchema, line);
      // Anything malformed, out of order or unknown ends the conversation.
      if (msg && onMessage(c, msg, Buffer.byteLength(line))) return true;
      socket.destroy();
      return false;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      conns.delete(c);
      const pending = [...c.pending.entries()];
      for (const [id] of pending) settle(c, id);
      for (const [, p] of pending) p.ac.abort();
      if (c.label !== undefined) {
        labels.delete(c.label);
        broker.clearLaunch(c.label);
      }
    });
  });
  // Each connection may hold a partial line of up to maxLine bytes: 32 × 1 MiB bounds that too.
  server.maxConnections = limits.maxConnections;

  const offApprovers = broker.onApproversChange((count) => {
    for (const c of conns) if (c.label !== undefined) send(c, { type: 'approvers', count });
  });

  try {
    await listenPrivate(server, socketPath, windows);
  } catch (err) {
    offApprovers();
    return inert(`cannot listen on ${socketPath}: ${(err as Error).message}`);
  }
  const inode = windows ? undefined : sealSocketFile(socketPath);

  let closing: Promise<void> | undefined;
  return {
    path: socketPath,
    connections: () => conns.size,
    close() {
      closing ??= new Promise<void>((resolve) => {
        offApprovers();
        server.close(() => resolve());
        for (const c of conns) c.socket.destroy();
      });
      return closing;
    },
    closeSync() {
      offApprovers();
      for (const c of conns) c.socket.destroy();
      server.close();
      // Only our own socket file: never one a later window put there.
      if (!windows) removeOwnSocket(socketPath, inode);
    },
  };
}

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
