// The gateway's Streamable HTTP endpoint (MCP 2025-11-25, basic/transports), loopback only.
//
// Every request must carry `Authorization: Bearer <token>`. Host and Origin are checked before
// anything else: the spec says servers MUST validate Origin to prevent DNS rebinding, and a
// rebinding page reaches us with a foreign Host. Legacy HTTP+SSE clients (2024-11-05) get the
// compatibility endpoints `/sse` + `/messages`.
import http from 'node:http';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
// A lean transport straight on node:http (same options and handleRequest as the SDK's): the SDK's
// converts every request to a web Request/Response through @hono/node-server, measured at
// 25–40% of the gateway's CPU per call (bench/RESULTS.md).
import { LeanStreamableHTTPServerTransport as StreamableHTTPServerTransport } from './lean-http-transport';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { TrafficTap } from '../protocol/traffic-tap';
import type { Redactor } from '../secrets/redactor';
import type { Gateway } from './gateway';
import { isNewEraRequest } from './era';
import { serveNewEraHttp } from './new-era-http';
import { agentTokenLabel, tokenTag } from './agent-label';
import { answerBodyError, applyConnectionLimits, DEFAULT_HTTP_LIMITS, HttpBodyError, parseRpcText, readLimitedBody, type HttpLimits } from './http-limits';

export interface HttpEndpointOptions {
  gateway: Gateway;
  tap: TrafficTap;
  redactor: Redactor;
  /** 0 asks the OS for a free port. */
  port: number;
  token: string;
  /** Extra Origins allowed besides the endpoint's own (e.g. the Gatehouse UI's). */
  allowedOrigins?: string[];
  /** Sessions idle longer than this are closed (default 30 min; also `limits.sessionIdleMs`). */
  idleTimeoutMs?: number;
  /** Size, time and count limits (http-limits.ts; documented in docs/gateway.md). */
  limits?: Partial<HttpLimits>;
  /** A minted per-agent token's agent name (agent-tokens.ts); sessions it opens are tagged with it. */
  agentToken?: (token: string) => string | undefined;
}


export interface HttpEndpoint {
  url: string;
  port: number;
  close(): Promise<void>;
  sessionCount(): number;
  /**
   * An extra bearer token tagged with `label` (a terminal id): agent sessions opened with it are
   * attributed to that terminal, and it stops working when revoked (the terminal ended).
   */
  issueToken(label: string): { token: string; revoke(): void };
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header?.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice(7).trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** Which token (by label; '' for the main token) a request presents, or undefined. */
function tokenLabel(header: string | undefined, main: string, extra: Map<string, string>): string | undefined {
  if (tokenMatches(header, main)) return '';
  // Each comparison is constant-time; the set of extra tokens is small (one per terminal).
  let found: string | undefined;
  for (const [token, label] of extra) if (tokenMatches(header, token)) found = label;
  return found;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function rpcError(res: http.ServerResponse, status: number, code: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}


/** What StreamableSession needs of a server-side Streamable HTTP transport (the SDK's, or a drop-in). */
type SessionTransport = Transport & {
  handleRequest(req: http.IncomingMessage, res: http.ServerResponse, parsedBody?: unknown, rawText?: string): Promise<void>;
};

/**
 * One Streamable HTTP session between the SDK's transport and the gateway's Server.
 *
 * A server→client message sent without a related request (the gateway's sampling, elicitation
 * and roots requests, its logging and list_changed notifications) goes, in the SDK transport,
 * to the standalone GET stream, and is silently dropped when the client has none open (yet): a
 * client that calls a tool right after initializing, before its GET stream is up, would wait
 * for a sampling request that never comes. MCP lets the server send requests and notifications
 * on a POST's SSE stream before its response (basic/transports, "Sending Messages to the
 * Server"), so while no GET stream is open, such a message goes on the stream of the client's
 * most recent request still awaiting its response.
 */
class StreamableSession implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** Client requests still owed a response (each has its POST stream open), oldest first. */
  private readonly pending = new Set<RequestId>();
  /** GET (standalone SSE) streams currently open. */
  private getStreams = 0;

  constructor(
    readonly inner: SessionTransport,
    ended: () => void,
  ) {
    inner.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message)) this.pending.add(message.id);
      else if ('method' in message && message.method === 'notifications/cancelled') {
        // A cancelled request gets no response: it is owed nothing any more (and its stream is
        // not where a later server request should go).
        const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (cancelled !== undefined) this.pending.delete(cancelled);
      }
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      this.pending.clear();
      ended();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Hands one HTTP request to the transport, counting the GET streams it holds open. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, text?: string): Promise<void> {
    if (req.method === 'GET') {
      this.getStreams += 1;
      res.once('close', () => (this.getStreams -= 1));
    }
    await this.inner.handleRequest(req, res, body, text);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) this.pending.delete(message.id);
    } else if (options?.relatedRequestId === undefined && this.getStreams === 0 && this.pending.size > 0) {
      const latest = [...this.pending].at(-1)!;
      return this.inner.send(message, { ...options, relatedRequestId: latest });
    }
    return this.inner.send(message, options);
  }
}

interface HttpSession {
  id: string;
  /** The token label that opened the session; later requests must present the same one. */
  label: string;
  transport: StreamableSession | SSEServerTransport;
  lastActive: number;
}

export async function startHttpEndpoint(opts: HttpEndpointOptions): Promise<HttpEndpoint> {
  const sessions = new Map<string, HttpSession>();
  /** Per-terminal tokens (token → terminal id). */
  const extraTokens = new Map<string, string>();
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...(opts.idleTimeoutMs !== undefined ? { sessionIdleMs: opts.idleTimeoutMs } : {}), ...opts.limits };
  const idleTimeoutMs = limits.sessionIdleMs;
  // Set once the server exists: marks a socket as authenticated (it is not closed as idle).
  let authenticated: (req: http.IncomingMessage) => void = () => {};

  /** Reads and parses a POST body; answers (413, 408, 400 with the id as written) and returns undefined on failure. */
  async function readRpcBody(req: http.IncomingMessage, res: http.ServerResponse): Promise<{ body: unknown; text: string } | undefined> {
    let raw: Buffer;
    try {
      raw = await readLimitedBody(req, limits);
    } catch (err) {
      if (err instanceof HttpBodyError) answerBodyError(res, err, !req.readableEnded);
      else if (!res.headersSent) rpcError(res, 400, -32700, `Parse error: the body could not be read (${(err as Error).message})`);
      return undefined;
    }
    try {
      // Decoded once: the text goes on with the parsed body (the tap records it, not a re-serialisation).
      const text = raw.toString('utf8');
      return { body: parseRpcText(text), text };
    } catch (err) {
      if (!(err instanceof HttpBodyError)) throw err;
      answerBodyError(res, err, false);
      return undefined;
    }
  }

  /** Opening one more session for `label`: beyond the cap, the token's least recently active session is closed. */
  function makeRoomFor(label: string): void {
    const own = [...sessions.values()].filter((x) => x.label === label);
    if (own.length < limits.maxSessionsPerToken) return;
    own.sort((a, b) => a.lastActive - b.lastActive);
    for (const old of own.slice(0, own.length - limits.maxSessionsPerToken + 1)) {
      sessions.delete(old.id);
      void old.transport.close().catch(() => {});
    }
  }
  let port = opts.port;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const allowedOrigins = () =>
    new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...(opts.allowedOrigins ?? [])]);

  // Each session's SDK Server sits on an exchange channel, which records the session's traffic
  // and takes the calls the gateway forwards (session-setup.ts).
  const connectSession = async (inner: Transport, info: { id: string; transport: 'streamable-http' | 'sse'; terminal?: string; agent?: string }): Promise<void> => {
    const session = opts.gateway.openSession(info, { tap: opts.tap, redactor: opts.redactor });
    await session.connect(inner);
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // DNS rebinding: a foreign Host or Origin never gets further than this.
    // A refused request closes its connection: an unauthenticated socket is not kept alive.
    const host = req.headers.host ?? '';
    if (!allowedHosts().has(host)) return rpcError(res, 403, -32000, `Forbidden: Host '${host}' is not allowed`, { connection: 'close' });
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) return rpcError(res, 403, -32000, `Forbidden: Origin '${origin}' is not allowed`, { connection: 'close' });
    let label = tokenLabel(req.headers.authorization, opts.token, extraTokens);
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice(7).trim() : undefined;
    if (label === undefined && bearer && opts.agentToken) {
      const agent = opts.agentToken(bearer);
      if (agent !== undefined) label = agentTokenLabel(agent);
    }
    if (label === undefined) {
      return rpcError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="gatehouse"', connection: 'close' });
    }
    authenticated(req);
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname === '/mcp') return handleStreamable(req, res, label);
    if (url.pathname === '/sse' && req.method === 'GET') return handleLegacySse(res, label);
    if (url.pathname === '/messages' && req.method === 'POST') return handleLegacyMessage(req, res, url, label);
    return rpcError(res, 404, -32000, `Not found: ${url.pathname} (the MCP endpoint is /mcp)`);
  }

  async function handleStreamable(req: http.IncomingMessage, res: http.ServerResponse, label: string): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const sid = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    let body: unknown;
    let text: string | undefined;
    if (req.method === 'POST') {
      const read = await readRpcBody(req, res);
      if (!read) return;
      body = read.body;
      text = read.text;
    }
    if (sid) {
      const session = sessions.get(sid);
      // A session is bound to the token that opened it: another token cannot ride on it.
      if (!session || !(session.transport instanceof StreamableSession) || session.label !== label) {
        return rpcError(res, 404, -32001, 'Session not found (it ended or never existed); initialize a new one');
      }
      session.lastActive = Date.now();
      return session.transport.handle(req, res, body, text);
    }
    // MCP 2026-07-28 beside 2025-11-25: a request without a session whose version (header, or _meta) is new-era is served statelessly.
    const headerVersion = req.headers['mcp-protocol-version'];
    if (isNewEraRequest(req.method === 'POST' ? body : { method: req.method }, typeof headerVersion === 'string' ? headerVersion : undefined)) {
      return serveNewEraHttp(req, res, body, { handler: opts.gateway.newEra(), tap: opts.tap, redactor: opts.redactor, screen: opts.gateway.outboundScreen, session: opts.gateway.session, label, ...(text !== undefined ? { text } : {}) });
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, 'Bad Request: no valid Mcp-Session-Id; the first request must be initialize');
    }
    makeRoomFor(label);
    const id = randomUUID();
    const transport = new StreamableSession(
      new StreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessioninitialized: () => {
          sessions.set(id, { id, label, transport, lastActive: Date.now() });
        },
      }),
      () => sessions.delete(id),
    );
    await connectSession(transport, { id, transport: 'streamable-http', ...tokenTag(label) });
    await transport.handle(req, res, body, text);
    // Refused before it initialized (a wrong Accept header, a bad body): the gateway session that
    // connectSession opened for it must not stay behind (found in review).
    if (!sessions.has(id)) await transport.close();
  }

  async function handleLegacySse(res: http.ServerResponse, label: string): Promise<void> {
    makeRoomFor(label);
    const transport = new SSEServerTransport('/messages', res);
    const id = transport.sessionId;
    sessions.set(id, { id, label, transport, lastActive: Date.now() });
    await connectSession(transport, { id, transport: 'sse', ...tokenTag(label) });
    // The channel took over the transport's onclose: chain on it.
    const tappedClose = transport.onclose;
    transport.onclose = () => {
      sessions.delete(id);
      tappedClose?.();
    };
  }

  async function handleLegacyMessage(req: http.IncomingMessage, res: http.ServerResponse, url: URL, label: string): Promise<void> {
    const session = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (!session || !(session.transport instanceof SSEServerTransport) || session.label !== label) return rpcError(res, 404, -32001, 'Session not found');
    session.lastActive = Date.now();
    const read = await readRpcBody(req, res);
    if (!read) return;
    await session.transport.handlePostMessage(req, res, read.body);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) rpcError(res, 500, -32603, `Internal error: ${(err as Error).message}`);
      else res.end();
    });
  });
  // Streams (GET SSE) stay open for a long time; do not let Node's defaults cut them. Slow
  // bodies are cut by readLimitedBody, slow header blocks by headersTimeout (http-limits.ts).
  server.requestTimeout = 0;
  server.keepAliveTimeout = 65_000;
  authenticated = applyConnectionLimits(server, limits);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const s of sessions.values()) {
      if (now - s.lastActive > idleTimeoutMs) void s.transport.close().catch(() => {});
    }
  }, Math.max(1_000, Math.min(60_000, Math.floor(idleTimeoutMs / 4))));
  sweeper.unref();

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    sessionCount: () => sessions.size,
    issueToken(label: string) {
      const token = generateToken();
      extraTokens.set(token, label);
      return {
        token,
        revoke: () => {
          extraTokens.delete(token);
          // Sessions opened with a revoked token end with it.
          for (const sess of sessions.values()) if (sess.label === label) void sess.transport.close().catch(() => {});
        },
      };
    },
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => {})));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
