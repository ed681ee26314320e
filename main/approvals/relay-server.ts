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
//    the same user, can at most make a person look at a request; it cannot approve one.
//  - The socket lives in the data directory (created 0700) and is itself 0600, so other users
//    cannot connect at all; the gateway side also checks the socket is owned by its own user
//    before it trusts outcomes from it (relaying-broker.ts).
//  - Bounded: 64 waiting requests and questions per connection (more are denied at once), 1 MiB per line,
//    timeouts capped by this host, everything cancelled when the connection drops.
import fs from 'node:fs';
import net from 'node:net';
import type { ApprovalBroker, ApprovalOutcome, ApprovalRequest, AskRequest, AskResult } from './broker';
import {
  ClientMessageSchema,
  LineSplitter,
  parseLine,
  RELAY_MAX_LINE_BYTES,
  RELAY_MAX_PENDING,
  RELAY_QUEUE_FULL_REASON,
  relaySocketPath,
  type ClientMessage,
  type ServerMessage,
} from './relay-wire';

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
  maxPending?: number;
  maxLineBytes?: number;
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
  label?: string;
  pending: Map<string, AbortController>;
}

/**
 * Starts listening for remote gateways. Never throws for an unusable socket path: it logs why and
 * returns a relay with `path: undefined` (the window still works; remote approvals fail closed).
 */
export async function startApprovalRelay(host: ApprovalRelayHost, opts: ApprovalRelayOptions = {}): Promise<ApprovalRelay> {
  const log = opts.log ?? (() => {});
  const socketPath = opts.socketPath ?? relaySocketPath(host.dataDir);
  const maxTimeoutMs = opts.maxTimeoutMs ?? RELAY_MAX_TIMEOUT_MS;
  const maxPending = opts.maxPending ?? RELAY_MAX_PENDING;
  const maxLine = opts.maxLineBytes ?? RELAY_MAX_LINE_BYTES;
  const windows = process.platform === 'win32';
  const broker = host.broker;
  const conns = new Set<Connection>();
  const labels = new Set<string>();

  const inert = (why: string): ApprovalRelay => {
    log(`gatehouse: approvals relay off: ${why}`);
    return { path: undefined, connections: () => 0, close: async () => {}, closeSync: () => {} };
  };

  if (!windows) {
    const prepared = await prepareSocketPath(socketPath, host.dataDir);
    if (prepared !== true) return inert(prepared);
  }

  const send = (c: Connection, msg: ServerMessage) => {
    if (!c.socket.destroyed && c.socket.writable) c.socket.write(`${JSON.stringify(msg)}\n`);
  };

  const onMessage = (c: Connection, msg: ClientMessage): boolean => {
    switch (msg.type) {
      case 'hello': {
        if (c.label !== undefined) return false;
        // The label names the remote gateway in the inbox and scopes the grants a person makes
        // for it; kept unique among live connections so two gateways never share grants.
        let label = `gateway:${msg.pid}`;
        for (let n = 2; labels.has(label); n++) label = `gateway:${msg.pid}#${n}`;
        c.label = label;
        labels.add(label);
        send(c, { type: 'welcome', approvers: broker.approvers().length, questions: true });
        return true;
      }
      case 'request': {
        if (c.label === undefined || c.pending.has(msg.id)) return false;
        if (c.pending.size >= maxPending) {
          send(c, { type: 'outcome', id: msg.id, outcome: { approved: false, how: 'denied', reason: RELAY_QUEUE_FULL_REASON } });
          return true;
        }
        const ac = new AbortController();
        c.pending.set(msg.id, ac);
        const { session: _theirs, ...rest } = msg.request;
        const req: ApprovalRequest = { ...rest, session: c.label };
        void broker.request(req, { timeoutMs: Math.min(msg.timeoutMs, maxTimeoutMs), signal: ac.signal }).then((outcome: ApprovalOutcome) => {
          // A cancelled request (or a dropped connection) has already been forgotten.
          if (c.pending.get(msg.id) !== ac) return;
          c.pending.delete(msg.id);
          send(c, { type: 'outcome', id: msg.id, outcome });
        });
        return true;
      }
      case 'ask': {
        // A server's question, asked in this window's inbox like its own (same bounds, label,
        // cancel and disconnect handling as a request); the answer is the broker's ask() result.
        if (c.label === undefined || c.pending.has(msg.id)) return false;
        if (c.pending.size >= maxPending) {
          send(c, { type: 'answer', id: msg.id, result: { answered: false, how: 'declined', reason: RELAY_QUEUE_FULL_REASON } });
          return true;
        }
        const ac = new AbortController();
        c.pending.set(msg.id, ac);
        const { session: _theirs, ...rest } = msg.request;
        const req: AskRequest = { ...rest, session: c.label };
        void broker.ask(req, { timeoutMs: Math.min(msg.timeoutMs, maxTimeoutMs), signal: ac.signal }).then((result: AskResult) => {
          if (c.pending.get(msg.id) !== ac) return;
          c.pending.delete(msg.id);
          send(c, { type: 'answer', id: msg.id, result });
        });
        return true;
      }
      case 'cancel': {
        if (c.label === undefined) return false;
        const ac = c.pending.get(msg.id);
        if (ac) {
          c.pending.delete(msg.id);
          ac.abort();
        }
        return true;
      }
    }
  };

  const server = net.createServer((socket) => {
    const c: Connection = { socket, pending: new Map() };
    conns.add(c);
    const lines = new LineSplitter(maxLine);
    socket.on('data', (chunk: Buffer) => {
      if (socket.destroyed) return;
      const got = lines.push(chunk);
      if (got === 'overflow') return void socket.destroy();
      for (const line of got) {
        if (line.trim() === '') continue;
        const msg = parseLine(ClientMessageSchema, line);
        // Anything malformed, out of order or unknown ends the conversation.
        if (!msg || !onMessage(c, msg)) return void socket.destroy();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      conns.delete(c);
      const pending = [...c.pending.values()];
      c.pending.clear();
      for (const ac of pending) ac.abort();
      if (c.label !== undefined) {
        labels.delete(c.label);
        broker.clearLaunch(c.label);
      }
    });
  });
  server.maxConnections = 256;

  const offApprovers = broker.onApproversChange((count) => {
    for (const c of conns) if (c.label !== undefined) send(c, { type: 'approvers', count });
  });

  try {
    await listen(server, socketPath, windows);
  } catch (err) {
    offApprovers();
    return inert(`cannot listen on ${socketPath}: ${(err as Error).message}`);
  }
  let inode: number | undefined;
  if (!windows) {
    try {
      fs.chmodSync(socketPath, 0o600);
      inode = fs.lstatSync(socketPath).ino;
    } catch {}
  }

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
      try {
        if (!windows && inode !== undefined && fs.lstatSync(socketPath).ino === inode) fs.unlinkSync(socketPath);
      } catch {}
    },
  };
}

/** The umask is process-wide; narrowed only for the synchronous bind so the socket is born 0600. */
function listen(server: net.Server, socketPath: string, windows: boolean): Promise<void> {
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
 * answers belongs to another window of this data dir, which keeps it. Returns true or why not.
 */
async function prepareSocketPath(socketPath: string, dataDir: string): Promise<true | string> {
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
  if (answered) return `another Gatehouse window already relays approvals on ${socketPath}`;
  try {
    fs.unlinkSync(socketPath);
  } catch (err) {
    return `cannot remove the stale ${socketPath}: ${(err as Error).message}`;
  }
  return true;
}
