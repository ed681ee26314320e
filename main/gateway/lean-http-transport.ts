// A lean server-side Streamable HTTP transport (MCP 2025-11-25, basic/transports) for one
// session, written directly on node:http. It is a drop-in for the SDK's
// StreamableHTTPServerTransport as http-endpoint.ts uses it (same constructor options, same
// `handleRequest(req, res, parsedBody)`), without the per-request conversion of Node's
// req/res into web Request/Response (@hono/node-server) and without the repeated zod parses
// the SDK runs to classify every message it sends. Measured in bench/ (see RESULTS.md).
//
// Behaviour follows the SDK's webStandardStreamableHttp.js (status codes, headers, error
// bodies), with two deliberate differences:
//  - A POST carrying requests is answered with `application/json` when the response is the
//    only thing the server sends for it, and switches to `text/event-stream` as soon as the
//    server sends a message related to one of its requests before the response (progress,
//    logging, sampling...). The stream then ends after the last response. (The SDK picks one
//    mode for the whole transport; both are allowed by the spec, the client must accept both.)
//  - JSON-RPC batches are refused (400, -32600) once the session negotiated 2025-06-18 or later,
//    the versions that removed batching; 2025-03-26 sessions may still send them.
// No event store: streams are not resumable, as with the SDK transport without an eventStore.
import type http from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { parseJsonRpcMessage } from '../protocol/jsonrpc-check';
import { sendText, type RawTextInfo, type TextSendOptions } from '../protocol/json-text';

export { parseJsonRpcMessage };

export const DEFAULT_MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_BATCH_SIZE = 100;
/** Unread bytes on a stream past which notifications to that client are dropped (answers never are). */
export const SLOW_CLIENT_NOTIFICATION_BYTES = 4 * 1024 * 1024;
const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** The first protocol version without JSON-RPC batching. */
const NO_BATCH_VERSION = '2025-06-18';

export interface LeanTransportOptions {
  /** Stateful mode: issues the session id on initialize. Undefined = stateless (no session checks). */
  sessionIdGenerator?: (() => string) | undefined;
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** Largest POST body read when no parsed body is handed in (default 4 MiB). */
  maxRequestBodySize?: number;
  /** SSE comment keep-alive interval for open streams (default 15 s; 0 = off). */
  keepAliveMs?: number;
}

type Res = http.ServerResponse;

/** One POST that carried requests: answered as JSON, or as SSE once something else must go first. */
interface PostExchange {
  res: Res;
  /** Request ids of this POST still awaiting their response. */
  pending: Set<RequestId>;
  /** Responses held back while still in JSON mode, in request order. */
  held: JSONRPCMessage[];
  mode: 'json' | 'sse' | 'done';
  keepAlive?: NodeJS.Timeout;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

function isResponse(m: JSONRPCMessage): boolean {
  return 'id' in m && ('result' in m || 'error' in m) && !('method' in m);
}

function isRequest(m: JSONRPCMessage): m is Extract<JSONRPCMessage, { method: string; id: RequestId }> {
  return 'method' in m && 'id' in m && m.id !== undefined;
}

function isInitialize(m: JSONRPCMessage): boolean {
  return isRequest(m) && m.method === 'initialize';
}

function writeJsonError(res: Res, status: number, code: number, message: string, headers?: Record<string, string>): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function sseEvent(message: JSONRPCMessage, text = JSON.stringify(message)): string {
  return `event: message\ndata: ${text}\n\n`;
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Reads a body up to `max` bytes; undefined when it is larger (the rest is not read). */
function readBody(req: http.IncomingMessage, max: number): Promise<string | undefined> {
  if (Number(req.headers['content-length']) > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    req.on('error', reject);
  });
}

export class LeanStreamableHTTPServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  sessionId?: string;

  private readonly opts: LeanTransportOptions;
  private readonly maxBody: number;
  private readonly keepAliveMs: number;
  private started = false;
  private closed = false;
  private initialized = false;
  private initializeId: RequestId | undefined;
  /** The version the server answered initialize with. */
  private negotiatedVersion: string | undefined;
  private readonly exchanges = new Map<RequestId, PostExchange>();
  private standalone: { res: Res; keepAlive?: NodeJS.Timeout } | undefined;

  constructor(options: LeanTransportOptions = {}) {
    this.opts = options;
    this.maxBody = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
    if (!Number.isFinite(this.maxBody) || this.maxBody <= 0) throw new RangeError(`maxRequestBodySize must be a positive number of bytes, got ${String(options.maxRequestBodySize)}`);
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  }

  /** The protocol version negotiated on initialize, once answered. */
  get protocolVersion(): string | undefined {
    return this.negotiatedVersion;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
  }

  /**
   * Handles one HTTP request of this session. `parsedBody` is the POST body already parsed
   * by the caller (the endpoint reads it to find initialize); otherwise it is read here.
   */
  async handleRequest(req: http.IncomingMessage & { auth?: AuthInfo }, res: Res, parsedBody?: unknown, rawText?: string): Promise<void> {
    if (this.closed) return this.fail(res, 404, -32001, 'Session not found');
    switch (req.method) {
      case 'POST':
        return this.handlePost(req, res, parsedBody, rawText);
      case 'GET':
        return this.handleGet(req, res);
      case 'DELETE':
        return this.handleDelete(req, res);
      default:
        this.report('Method not allowed.');
        return writeJsonError(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // JSON.stringify(message); the channel in front of this transport made it already (its send options carry it).
    const text = sendText(message, options as TextSendOptions | undefined);
    const response = isResponse(message);
    const requestId = response ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (response && requestId !== undefined && requestId === this.initializeId) {
      const v = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof v === 'string') this.negotiatedVersion = v;
      this.initializeId = undefined;
    }
    if (requestId === undefined) {
      if (response) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      // Server-initiated: the GET stream if one is open, else dropped (no event store).
      const s = this.standalone;
      // A client that is not reading its stream gets notifications dropped past a byte budget.
      if (s && !s.res.writableEnded && !(s.res.writableLength > SLOW_CLIENT_NOTIFICATION_BYTES && !('id' in message))) s.res.write(sseEvent(message, text));
      return;
    }
    const ex = this.exchanges.get(requestId);
    if (!ex) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    if (!response) {
      // A notification for a client that is not reading is dropped, not buffered without end.
      if (!('id' in message) && ex.mode === 'sse' && ex.res.writableLength > SLOW_CLIENT_NOTIFICATION_BYTES) return;
      // Related to a request still in flight: the answer becomes a stream from here on.
      if (ex.mode === 'json') this.toSse(ex);
      if (ex.mode === 'sse' && !ex.res.writableEnded) ex.res.write(sseEvent(message, text));
      return;
    }
    ex.pending.delete(requestId);
    this.exchanges.delete(requestId);
    if (ex.mode === 'done') throw new Error(`No connection established for request ID: ${String(requestId)}`);
    if (ex.mode === 'sse') {
      if (!ex.res.writableEnded) ex.res.write(sseEvent(message, text));
      if (ex.pending.size === 0) this.finish(ex);
      return;
    }
    ex.held.push(message);
    if (ex.pending.size > 0) return;
    const body = ex.held.length === 1 && ex.held[0] === message ? text : JSON.stringify(ex.held.length === 1 ? ex.held[0] : ex.held);
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    ex.mode = 'done';
    if (!ex.res.writableEnded && !ex.res.destroyed) {
      ex.res.writeHead(200, headers);
      ex.res.end(body);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ex of new Set(this.exchanges.values())) {
      if (ex.mode === 'json' && !ex.res.headersSent) writeJsonError(ex.res, 404, -32001, 'Session not found');
      this.finish(ex);
    }
    this.exchanges.clear();
    this.endStandalone();
    this.onclose?.();
  }

  // ---- POST ---------------------------------------------------------------------------------

  private async handlePost(req: http.IncomingMessage & { auth?: AuthInfo }, res: Res, parsedBody: unknown, rawText: string | undefined): Promise<void> {
    const accept = header(req, 'accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.fail(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(header(req, 'content-type'))) {
      return this.fail(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    let raw = parsedBody;
    let text = rawText;
    if (raw === undefined) {
      try {
        text = await readBody(req, this.maxBody);
      } catch {
        return this.fail(res, 400, -32700, 'Parse error: Invalid JSON');
      }
      if (text === undefined) return this.fail(res, 413, -32000, `Payload Too Large: Request body must not exceed ${this.maxBody} bytes`);
      try {
        raw = JSON.parse(text);
      } catch {
        return this.fail(res, 400, -32700, 'Parse error: Invalid JSON');
      }
    }
    const batch = Array.isArray(raw);
    const items: unknown[] = batch ? (raw as unknown[]) : [raw];
    if (batch && items.length > MAX_BATCH_SIZE) {
      return this.fail(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    const messages: JSONRPCMessage[] = [];
    for (const item of items) {
      const m = parseJsonRpcMessage(item);
      if (!m) return this.fail(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
      messages.push(m);
    }
    if (this.closed) return this.fail(res, 404, -32001, 'Session not found');

    const init = messages.find(isInitialize) as Extract<JSONRPCMessage, { id: RequestId }> | undefined;
    if (init) {
      if (this.initialized && this.sessionId !== undefined) return this.fail(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return this.fail(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.opts.sessionIdGenerator?.();
      this.initialized = true;
      this.initializeId = init.id;
      if (this.sessionId !== undefined && this.opts.onsessioninitialized) await this.opts.onsessioninitialized(this.sessionId);
    } else {
      if (!this.checkSession(req, res) || !this.checkProtocolVersion(req, res)) return;
      if (batch) {
        const version = header(req, 'mcp-protocol-version') ?? this.negotiatedVersion ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
        if (version >= NO_BATCH_VERSION) {
          return this.fail(res, 400, -32600, `Invalid Request: JSON-RPC batches are not supported in protocol version ${version}; send one message per POST`);
        }
      }
    }
    if (this.closed) return this.fail(res, 404, -32001, 'Session not found');

    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers, url: new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`) } };
    if (req.auth) extra.authInfo = req.auth;
    // One message per POST: its channel records the body as it came (json-text.ts, RawTextInfo).
    if (!batch && text !== undefined) (extra as RawTextInfo).rawText = text;
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      // Notifications and responses only: accepted, nothing comes back on this request.
      res.writeHead(202);
      res.end();
      for (const m of messages) this.onmessage?.(m, extra);
      return;
    }
    const ex: PostExchange = { res, pending: new Set(requests.map((r) => r.id)), held: [], mode: 'json' };
    for (const id of ex.pending) this.exchanges.set(id, ex);
    res.on('close', () => {
      // The client went away before every response was written: later sends for these
      // requests fail the way the SDK's do (there is no event store to replay from).
      if (ex.mode === 'done') return;
      this.finish(ex);
    });
    for (const m of messages) this.onmessage?.(m, extra);
  }

  private toSse(ex: PostExchange): void {
    ex.mode = 'sse';
    const headers: Record<string, string> = { ...SSE_HEADERS };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    ex.res.writeHead(200, headers);
    ex.res.flushHeaders();
    for (const held of ex.held) ex.res.write(sseEvent(held));
    ex.held = [];
    ex.keepAlive = this.armKeepAlive(ex.res);
  }

  private finish(ex: PostExchange): void {
    const wasOpen = ex.mode !== 'done';
    ex.mode = 'done';
    if (ex.keepAlive) clearInterval(ex.keepAlive);
    ex.keepAlive = undefined;
    // Ids never answered stay mapped to this (done) exchange: a response that arrives later
    // fails with "No connection established", as the SDK's does; close() forgets them.
    if (wasOpen && ex.res.headersSent && !ex.res.writableEnded) ex.res.end();
  }

  // ---- GET / DELETE -------------------------------------------------------------------------

  private handleGet(req: http.IncomingMessage, res: Res): void {
    if (!header(req, 'accept')?.includes('text/event-stream')) {
      return this.fail(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    }
    if (!this.checkSession(req, res) || !this.checkProtocolVersion(req, res)) return;
    if (this.standalone) return this.fail(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    const headers: Record<string, string> = { ...SSE_HEADERS };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    res.writeHead(200, headers);
    res.flushHeaders();
    const stream = { res, keepAlive: this.armKeepAlive(res) };
    this.standalone = stream;
    res.on('close', () => {
      if (stream.keepAlive) clearInterval(stream.keepAlive);
      if (this.standalone === stream) this.standalone = undefined;
    });
  }

  private endStandalone(): void {
    const s = this.standalone;
    if (!s) return;
    this.standalone = undefined;
    if (s.keepAlive) clearInterval(s.keepAlive);
    if (!s.res.writableEnded) s.res.end();
  }

  private async handleDelete(req: http.IncomingMessage, res: Res): Promise<void> {
    if (!this.checkSession(req, res) || !this.checkProtocolVersion(req, res)) return;
    try {
      if (this.sessionId !== undefined) await this.opts.onsessionclosed?.(this.sessionId);
      res.writeHead(200);
      res.end();
    } finally {
      await this.close();
    }
  }

  // ---- checks -------------------------------------------------------------------------------

  private checkSession(req: http.IncomingMessage, res: Res): boolean {
    if (this.opts.sessionIdGenerator === undefined) return true;
    if (!this.initialized) {
      this.fail(res, 400, -32000, 'Bad Request: Server not initialized');
      return false;
    }
    const sid = header(req, 'mcp-session-id');
    if (!sid) {
      this.fail(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return false;
    }
    if (sid !== this.sessionId) {
      this.fail(res, 404, -32001, 'Session not found');
      return false;
    }
    return true;
  }

  private checkProtocolVersion(req: http.IncomingMessage, res: Res): boolean {
    // Absent: assume the negotiated version (2025-03-26 when none), as the spec says.
    const v = header(req, 'mcp-protocol-version');
    if (v !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(v)) {
      this.fail(res, 400, -32000, `Bad Request: Unsupported protocol version: ${v} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
      return false;
    }
    return true;
  }

  private fail(res: Res, status: number, code: number, message: string): void {
    this.report(message);
    writeJsonError(res, status, code, message);
  }

  private report(message: string): void {
    try {
      this.onerror?.(new Error(message));
    } catch {}
  }

  private armKeepAlive(res: Res): NodeJS.Timeout | undefined {
    if (this.keepAliveMs <= 0) return undefined;
    const timer = setInterval(() => {
      if (res.writableEnded || res.destroyed) clearInterval(timer);
      else res.write(': keepalive\n\n');
    }, this.keepAliveMs);
    timer.unref();
    return timer;
  }
}

/**
 * The drop-in for http-endpoint.ts: one session's transport, constructed the way the endpoint
 * constructs the SDK's (`sessionIdGenerator`, `onsessioninitialized`), driven with
 * `handleRequest(req, res, parsedBody)`.
 */
export function createLeanSession(options: LeanTransportOptions): LeanStreamableHTTPServerTransport {
  return new LeanStreamableHTTPServerTransport(options);
}
