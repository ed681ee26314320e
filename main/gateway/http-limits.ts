// Limits of the gateway's HTTP endpoint, in one place so docs/gateway.md ("HTTP endpoint") can name
// them: a body too large gets 413 with a JSON-RPC error (not a reset), a body or header block
// that trickles in too slowly is cut (slowloris), connections are capped, a socket that never
// authenticates is closed, and each token may hold a bounded number of sessions.
import type http from 'node:http';
import type net from 'node:net';
import { depthProblem, depthReason, errorResponseText, inexactId } from '../protocol/json-limits';

export interface HttpLimits {
  /** Largest POST body, in bytes. */
  maxBodyBytes: number;
  /** The whole body must arrive within this long after the headers. */
  bodyTimeoutMs: number;
  /** The header block must arrive within this long (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** Open TCP connections at once; more are refused by the server. */
  maxConnections: number;
  /** A socket that has not presented a valid token within this long is closed. */
  unauthenticatedSocketMs: number;
  /** Sessions one token may hold; opening one more closes that token's least recently active. */
  maxSessionsPerToken: number;
  /** A session with no request for this long is closed. */
  sessionIdleMs: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  maxBodyBytes: 4 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  maxConnections: 256,
  unauthenticatedSocketMs: 10_000,
  maxSessionsPerToken: 64,
  sessionIdleMs: 30 * 60_000,
};

const ENV_NAMES: Record<keyof HttpLimits, string> = {
  maxBodyBytes: 'GATEHOUSE_HTTP_MAX_BODY_BYTES',
  bodyTimeoutMs: 'GATEHOUSE_HTTP_BODY_TIMEOUT_MS',
  headersTimeoutMs: 'GATEHOUSE_HTTP_HEADERS_TIMEOUT_MS',
  maxConnections: 'GATEHOUSE_HTTP_MAX_CONNECTIONS',
  unauthenticatedSocketMs: 'GATEHOUSE_HTTP_UNAUTHENTICATED_SOCKET_MS',
  maxSessionsPerToken: 'GATEHOUSE_HTTP_MAX_SESSIONS_PER_TOKEN',
  sessionIdleMs: 'GATEHOUSE_HTTP_SESSION_IDLE_MS',
};

/** The limits set in the environment (GATEHOUSE_HTTP_*, see docs/gateway.md); a bad value is reported and ignored. */
export function httpLimitsFromEnv(env: NodeJS.ProcessEnv, report: (msg: string) => void = (m) => process.stderr.write(`gatehouse: ${m}\n`)): Partial<HttpLimits> {
  const out: Partial<HttpLimits> = {};
  for (const [key, name] of Object.entries(ENV_NAMES) as Array<[keyof HttpLimits, string]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const v = Number(raw);
    if (!Number.isInteger(v) || v <= 0) {
      report(`${name}: expected a positive integer, got ${JSON.stringify(raw)}; using the default (${DEFAULT_HTTP_LIMITS[key]})`);
      continue;
    }
    out[key] = v;
  }
  return out;
}

/** An HTTP failure that answers with a status and a JSON-RPC error body. */
export class HttpBodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** The body's JSON-RPC id, as written (raw text), when it could be read. */
    readonly rawId?: string,
  ) {
    super(message);
  }
}

/**
 * Reads a POST body within the size and time limits. Over the size limit: 413, after the rest
 * of the body has been read and dropped (so the client reads our answer instead of a reset),
 * unless the rest is itself absurd (then the connection is closed after the answer).
 */
export function readLimitedBody(req: http.IncomingMessage, limits: Pick<HttpLimits, 'maxBodyBytes' | 'bodyTimeoutMs'>): Promise<Buffer> {
  const max = limits.maxBodyBytes;
  const tooLarge = (): HttpBodyError => new HttpBodyError(413, -32600, `Payload Too Large: the request body exceeds ${max} bytes (the gateway's limit)`);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) over = true;
    const timer = setTimeout(() => {
      cleanup();
      reject(new HttpBodyError(408, -32600, `Request Timeout: the body did not arrive within ${limits.bodyTimeoutMs / 1000}s`));
    }, limits.bodyTimeoutMs);
    timer.unref();
    const cleanup = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) over = true;
      // Dropping is bounded too: a client streaming gigabytes is cut off after the answer.
      if (over && size > max * 4) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      if (!over) chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      if (over) reject(tooLarge());
      else resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Parses a JSON-RPC POST body: refuses nesting past the limit before parsing, and ids JSON
 * cannot carry exactly after it (both -32600 with the id as written); -32700 when not JSON.
 */
export function parseRpcBody(raw: Buffer): unknown {
  return parseRpcText(raw.toString('utf8'));
}

/** parseRpcBody for a body already decoded (the caller keeps the text: the tap records it as read). */
export function parseRpcText(text: string): unknown {
  const deep = depthProblem(text);
  if (deep) throw new HttpBodyError(400, -32600, `Invalid Request: ${depthReason()}`, deep.rawId);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpBodyError(400, -32700, 'Parse error: the body is not JSON');
  }
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) {
    if (Array.isArray(value)) {
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id === 'number' && !Number.isSafeInteger(id)) {
        throw new HttpBodyError(400, -32600, `Invalid Request: a batch member's id cannot be carried exactly (JSON-RPC ids must be strings or integers within ±${Number.MAX_SAFE_INTEGER})`);
      }
      continue;
    }
    const inexact = inexactId(text, item);
    if (inexact) throw new HttpBodyError(400, -32600, `Invalid Request: ${inexact.reason}`, inexact.rawId);
  }
  return value;
}

/** Answers an HttpBodyError: its status, a JSON-RPC error body with the id as written, and `connection: close` when the body was not drained. */
export function answerBodyError(res: http.ServerResponse, err: HttpBodyError, close: boolean): void {
  const body = errorResponseText(err.rawId, err.code, err.message);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  if (close) headers.connection = 'close';
  res.writeHead(err.status, headers);
  res.end(body);
}

/**
 * Applies the connection-level limits to a server: header timeout, connection cap, and the
 * close of sockets that never authenticate. Returns `authenticated(req)`, which the request
 * handler calls once a request on a socket presented a valid token.
 */
export function applyConnectionLimits(server: http.Server, limits: HttpLimits): (req: http.IncomingMessage) => void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.maxConnections = limits.maxConnections;
  const timers = new WeakMap<net.Socket, NodeJS.Timeout>();
  server.on('connection', (socket: net.Socket) => {
    const timer = setTimeout(() => socket.destroy(), limits.unauthenticatedSocketMs);
    timer.unref();
    timers.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  return (req) => {
    const timer = timers.get(req.socket);
    if (timer) {
      clearTimeout(timer);
      timers.delete(req.socket);
    }
  };
}
