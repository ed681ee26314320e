// A new-era (MCP 2026-07-28) request over Streamable HTTP: one POST, no session. The request
// goes through a channel of its own (recorded in Traffic like any other hop) over a one-shot
// transport that writes the answer to that POST: plain JSON when the answer is the only
// message, an SSE stream when notifications (progress, a listen stream's) come first.
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { ExchangeChannel, type InboundRequestRoute, type OutboundScreen } from '../protocol/exchange-channel';
import { sendText, type RawTextInfo, type TextSendOptions } from '../protocol/json-text';
import type { TrafficTap } from '../protocol/traffic-tap';
import type { Redactor } from '../secrets/redactor';
import { checkHeaders, isEraFault, statusForError } from './era';
import { labelledTap, tokenTag } from './agent-label';
import type { NewEraHandler } from './new-era-handler';

/** The transport under one new-era POST: delivers its one request, writes what the channel sends. */
class OneShotTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private sse = false;
  private ended = false;
  private readonly statuses = new Map<RequestId, number>();
  private readonly closers: Array<() => void> = [];
  readonly done: Promise<void>;
  private finish!: () => void;

  constructor(
    private readonly res: http.ServerResponse,
    private readonly requestId: RequestId,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    res.once('close', () => this.closed());
  }

  deliver(message: JSONRPCRequest, rawText?: string): void {
    this.onmessage?.(message, rawText !== undefined ? ({ rawText } satisfies RawTextInfo as MessageExtraInfo) : undefined);
  }

  status(id: RequestId, status: number): void {
    this.statuses.set(id, status);
  }

  onClosed(fn: () => void): void {
    if (this.ended) fn();
    else this.closers.push(fn);
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.ended) return;
    const m = message as { id?: RequestId; result?: unknown; error?: { code: number } };
    const isAnswer = m.id === this.requestId && (m.result !== undefined || m.error !== undefined);
    // The channel made this text as it sent the message (its send options carry it): not serialised again.
    const text = sendText(message, options as TextSendOptions | undefined);
    if (isAnswer && !this.sse) {
      const status = this.statuses.get(this.requestId) ?? (m.error ? statusForError(m.error.code) : 200);
      this.res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      this.res.end(text);
      return this.closed();
    }
    if (!this.sse) {
      this.sse = true;
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    }
    this.res.write(`event: message\ndata: ${text}\n\n`);
    if (isAnswer) {
      this.res.end();
      this.closed();
    }
  }

  async close(): Promise<void> {
    if (!this.res.writableEnded) this.res.end();
    this.closed();
  }

  private closed(): void {
    if (this.ended) return;
    this.ended = true;
    for (const fn of this.closers.splice(0)) fn();
    this.onclose?.();
    this.finish();
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export interface NewEraHttpOptions {
  handler: NewEraHandler;
  tap: TrafficTap;
  redactor: Redactor;
  /** The gateway's data screen (main/data/outbound-screen.ts), as on a session's channel. */
  screen?: OutboundScreen;
  session: string;
  /** The token label ('' for the main token): who may resume the calls this request holds. */
  label: string;
  /** The POST body as read: the request's channel records it instead of serialising it again. */
  text?: string;
}

/** Answers one new-era POST (the caller has checked Host, Origin and the token). */
export async function serveNewEraHttp(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, opts: NewEraHttpOptions): Promise<void> {
  if (req.method !== 'POST') {
    // 2026-07-28 has no GET stream (subscriptions/listen replaces it) and no session to DELETE.
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Method Not Allowed: a ${req.headers['mcp-protocol-version']} client only POSTs (subscriptions/listen replaces the GET stream)` }, id: null }));
    return;
  }
  const msg = body as Partial<JSONRPCRequest> | undefined;
  if (!msg || Array.isArray(body) || typeof msg !== 'object' || typeof msg.method !== 'string') {
    return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: a 2026-07-28 POST carries one JSON-RPC request or notification' }, id: null });
  }
  if (msg.id === undefined || msg.id === null) {
    // A notification (notifications/cancelled…): nothing to hold it against without a session.
    res.writeHead(202).end();
    return;
  }
  const request = msg as JSONRPCRequest;
  const headerVersion = typeof req.headers['mcp-protocol-version'] === 'string' ? req.headers['mcp-protocol-version'] : undefined;
  const headers = checkHeaders(req.headers, request.method, request.params);
  if (isEraFault(headers)) {
    return sendJson(res, headers.status, { jsonrpc: '2.0', error: { code: headers.code, message: headers.message }, id: request.id });
  }
  // One stateless agent per token and launch: the launch's id in it keeps two launches that share
  // a data directory (a gateway restarted, several launches of one host) from claiming the same
  // agent row in the audit store.
  const agentSession = `stateless-${opts.label || 'main'}-${opts.session.slice(0, 8)}`;
  const tag = tokenTag(opts.label);
  const transport = new OneShotTransport(res, request.id);
  const channel: ExchangeChannel = new ExchangeChannel({
    // Each stateless request names its client in `_meta`: its record and its answer carry the name
    // (a per-agent token's name instead, as for every other call: agent-label.ts agentNaming).
    tap: labelledTap(opts.tap, () => (tag.agent !== undefined ? { agentName: tag.agent } : {}), opts.redactor, () => tag.agent),
    meta: { session: opts.session, agentSession, inbound: 'agent_to_gateway', outbound: 'gateway_to_agent' },
    redactor: opts.redactor,
    // What the agent gets is redacted here, as on a session's channel (session-setup.ts).
    redactOutbound: opts.redactor,
    ...(opts.screen ? { screenOutbound: opts.screen } : {}),
    idPrefix: `gatehouse-${randomUUID().slice(0, 8)}-`,
    routes: {
      ledger: opts.handler.ledger,
      request: (m): InboundRequestRoute =>
        opts.handler.route(m, channel, {
          caller: `http:${opts.label}`,
          agentSession,
          headerVersion,
          forwardHeaders: headers.forwardHeaders,
          status: (id, status) => transport.status(id, status),
          onClosed: (fn) => transport.onClosed(fn),
          perRequest: true,
          ...tag,
        }),
    },
  });
  channel.attach(transport);
  transport.deliver(request, opts.text);
  await transport.done;
}
