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

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpEndpointOptions {
  gateway: Gateway;
  tap: TrafficTap;
  redactor: Redactor;
  /** 0 asks the OS for a free port. */
  port: number;
  token: string;
  /** Extra Origins allowed besides the endpoint's own (e.g. the Gatehouse UI's). */
  allowedOrigins?: string[];
  /** Sessions idle longer than this are closed (default 1 h). */
  idleTimeoutMs?: number;
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

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body exceeds ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What StreamableSession needs of a server-side Streamable HTTP transport (the SDK's, or a drop-in). */
type SessionTransport = Transport & {
  handleRequest(req: http.IncomingMessage, res: http.ServerResponse, parsedBody?: unknown): Promise<void>;
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
  async handle(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    if (req.method === 'GET') {
      this.getStreams += 1;
      res.once('close', () => (this.getStreams -= 1));
    }
    await this.inner.handleRequest(req, res, body);
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
  const idleTimeoutMs = opts.idleTimeoutMs ?? 60 * 60 * 1000;
  let port = opts.port;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const allowedOrigins = () =>
    new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...(opts.allowedOrigins ?? [])]);

  // Each session's SDK Server sits on an exchange channel, which records the session's traffic
  // and takes the calls the gateway forwards (session-setup.ts).
  const connectSession = async (inner: Transport, info: { id: string; transport: 'streamable-http' | 'sse'; terminal?: string }): Promise<void> => {
    const session = opts.gateway.openSession(info, { tap: opts.tap, redactor: opts.redactor });
    await session.connect(inner);
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // DNS rebinding: a foreign Host or Origin never gets further than this.
    const host = req.headers.host ?? '';
    if (!allowedHosts().has(host)) return rpcError(res, 403, -32000, `Forbidden: Host '${host}' is not allowed`);
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) return rpcError(res, 403, -32000, `Forbidden: Origin '${origin}' is not allowed`);
    const label = tokenLabel(req.headers.authorization, opts.token, extraTokens);
    if (label === undefined) {
      return rpcError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="gatehouse"' });
    }
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
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readBody(req);
      } catch (err) {
        return rpcError(res, 413, -32600, (err as Error).message);
      }
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
    }
    if (sid) {
      const session = sessions.get(sid);
      // A session is bound to the token that opened it: another token cannot ride on it.
      if (!session || !(session.transport instanceof StreamableSession) || session.label !== label) {
        return rpcError(res, 404, -32001, 'Session not found (it ended or never existed); initialize a new one');
      }
      session.lastActive = Date.now();
      return session.transport.handle(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, 'Bad Request: no valid Mcp-Session-Id; the first request must be initialize');
    }
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
    await connectSession(transport, { id, transport: 'streamable-http', ...(label ? { terminal: label } : {}) });
    await transport.handle(req, res, body);
  }

  async function handleLegacySse(res: http.ServerResponse, label: string): Promise<void> {
    const transport = new SSEServerTransport('/messages', res);
    const id = transport.sessionId;
    sessions.set(id, { id, label, transport, lastActive: Date.now() });
    await connectSession(transport, { id, transport: 'sse', ...(label ? { terminal: label } : {}) });
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
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req)).toString('utf8'));
    } catch {
      return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
    await session.transport.handlePostMessage(req, res, body);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) rpcError(res, 500, -32603, `Internal error: ${(err as Error).message}`);
      else res.end();
    });
  });
  // Streams (GET SSE) stay open for a long time; do not let Node's defaults cut them.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 65_000;

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
  }, 60_000);
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
