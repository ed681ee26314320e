// The channel beneath an SDK peer (a server's Client upstream, an agent session's Server
// downstream). The SDK peer keeps the lifecycle (initialize, ping, list requests,
// list_changed); the gateway sends the requests it forwards through the channel itself, with
// ids it assigns, and their responses come back to it here without the SDK seeing them.
// Requests the gateway answers itself (a downstream tools/call) are taken off the wire here
// too. Because the channel carries every message of its hop, it is also the one that records
// them: each traffic record is stamped with its exchange, which the channel asks the exchange
// table for (routes.ledger, docs/gateway.md "One table pairs"); it pairs nothing itself and
// keeps only the promises of the requests it sent.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Redactor } from '../secrets/redactor';
import type { DecodedFault, WireFraming } from './framing';
import type { FramedStreamObserver } from './framed-stream-transport';
import type { RawTextInfo, TextSendOptions } from './json-text';
import { HopRecorder, now, type TapMeta, type TrafficTap } from './traffic-tap';
import type { ExchangeLedger, ExchangeStamp, HopSide } from './types';

/** A JSON-RPC response as it came back: `result` or `error`, never both. */
export type RpcReply =
  | { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: RequestId; error: { code: number; message: string; data?: unknown } };

/** How an inbound request is routed: its exchange, and `handle` when the gateway answers it (the peer never sees it). */
export interface InboundRequestRoute {
  /** Absent for a request the gateway answers itself that is no exchange (a new-era tools/list). */
  stamp?: ExchangeStamp;
  handle?: (message: JSONRPCRequest, extra?: MessageExtraInfo) => void;
}

/** How an inbound notification is routed: its exchange, a handler, and whether the peer still gets it. */
export interface InboundNotificationRoute {
  stamp?: ExchangeStamp;
  handle?: () => void;
  /** Taken here: the SDK peer does not see it. */
  consume?: boolean;
}

export interface ChannelRoutes {
  /** The exchange table: where every leg finds its exchange. Without it nothing is stamped. */
  ledger?: ExchangeLedger;
  request?(message: JSONRPCRequest): InboundRequestRoute | undefined;
  notification?(message: JSONRPCNotification): InboundNotificationRoute | undefined;
}

export interface ExchangeChannelOptions {
  tap: TrafficTap;
  meta: TapMeta;
  redactor?: Redactor;
  /**
   * Redact every message this channel sends (an agent's hop: docs/security.md, "Secrets"). Set
   * by the gateway's downstream channels only: what goes to a server must keep its values.
   */
  redactOutbound?: Redactor;
  /**
   * Screens every message this channel sends (an agent's hop): configured secrets redacted and
   * detected credentials masked (main/data/outbound-screen.ts). Takes the place of
   * `redactOutbound` for what is sent; messages keep their order on the wire.
   */
  screenOutbound?: OutboundScreen;
  /**
   * The inner transport is a framed stream that reports every message with its wire size
   * through `channel.observer`; otherwise the channel serialises and measures each message.
   */
  observed?: boolean;
  routes?: ChannelRoutes;
  /** Prefix of the ids the gateway assigns (string ids never clash with the SDK's numbers). */
  idPrefix?: string;
  /** What a request in flight is rejected with when the transport closes (names the peer). */
  closedMessage?: string | (() => string);
}

/**
 * What a downstream channel asks of the data screen. `screen` answers at once (the message to
 * send: the same object when nothing changed) unless the message may hold something to mask;
 * then a promise of the masked message and what was found. `found` gets those findings with the
 * exchange the sent message was stamped with (none for a message of no exchange).
 */
export interface OutboundScreen {
  screen(message: JSONRPCMessage): JSONRPCMessage | Promise<{ message: JSONRPCMessage; findings: unknown[] }>;
  found(stamp: ExchangeStamp | undefined, message: JSONRPCMessage, findings: unknown[], agentSession?: string): void;
}

export interface ChannelRequestOptions {
  stamp: ExchangeStamp;
  signal?: AbortSignal;
  /** Downstream Streamable HTTP: the agent request this one is sent in the stream of. */
  relatedRequestId?: RequestId;
  /** Extra HTTP headers for this request (a new-era upstream: the agent's `Mcp-Param-*`). */
  headers?: Record<string, string>;
  /** A question for a new-era agent (the input bridge's session): the key a new-era server gave it. */
  inputKey?: string;
}

interface Pending {
  stamp: ExchangeStamp;
  resolve: (reply: RpcReply) => void;
  reject: (err: Error) => void;
}

let hopCounter = 0;

/** Requests remembered without an answer; beyond this the oldest are failed (a peer that never answers). */
const MAX_OPEN = 10_000;

export class ExchangeChannel implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** For a framed inner transport: pass as its observer (it reports wire sizes and the text it wrote). */
  readonly observer: Required<FramedStreamObserver>;

  private inner: Transport | undefined;
  private readonly recorder: HopRecorder;
  private readonly pending = new Map<RequestId, Pending>();
  /** This channel's key in the ledger (one per channel instance: ids repeat across runs and requests). */
  private readonly hop: string;
  private readonly ledger: ExchangeLedger | undefined;
  /**
   * Hand-offs within one synchronous step: the route of the message being read, from the
   * observer (which sees it first) to dispatch; the stamp of the message being written, from
   * write() to the observer (a framed transport reports it from inside send()).
   */
  private reading: { message: object; route: InboundRequestRoute | InboundNotificationRoute } | undefined;
  private writing: { message: object; stamp: ExchangeStamp } | undefined;
  /** What the screen found in the message being written, for observeOutbound (which knows its exchange). */
  private screened: { message: object; findings: unknown[] } | undefined;
  /** The last send still waiting on a screen: later messages queue behind it, so the wire keeps their order. */
  private screening: Promise<void> | undefined;
  private nextId = 0;
  private closed = false;
  private negotiated: string | undefined;

  constructor(private readonly opts: ExchangeChannelOptions) {
    this.recorder = new HopRecorder(opts.tap, opts.meta, opts.redactor, opts.redactOutbound !== undefined && opts.redactOutbound === opts.redactor);
    this.ledger = opts.routes?.ledger;
    this.hop = `${opts.meta.session}\u0000${opts.meta.agentSession ?? ''}\u0000${opts.meta.server ?? ''}\u0000${++hopCounter}`;
    this.observer = {
      inbound: (message: JSONRPCMessage, bytes: number, _framing: WireFraming) => this.observeInbound(message, bytes),
      outbound: (message: JSONRPCMessage, bytes: number, _framing: WireFraming, text?: string) => this.observeOutbound(message, bytes, text),
      fault: (item: DecodedFault) => this.recorder.fault(item),
    };
  }

  /** Puts the channel on its transport (before the SDK peer connects to the channel). */
  attach(inner: Transport): this {
    this.inner = inner;
    inner.onmessage = (message, extra) => {
      if (!this.opts.observed) {
        // The body as it came (an HTTP POST of one message), else the message serialised.
        const text = (extra as RawTextInfo | undefined)?.rawText ?? safeStringify(message);
        this.observeInbound(message, text === undefined ? 0 : Buffer.byteLength(text), text);
      }
      this.dispatch(message, extra);
    };
    inner.onclose = () => this.onInnerClose();
    inner.onerror = (error) => this.onerror?.(error);
    return this;
  }

  get sessionId(): string | undefined {
    return this.inner?.sessionId;
  }

  /** Requests sent through the channel that still wait for their answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  // ---- the SDK peer's side (Transport) ------------------------------------------------------

  start(): Promise<void> {
    return this.need().start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.write(message, options);
  }

  close(): Promise<void> {
    return this.need().close();
  }

  setProtocolVersion(version: string): void {
    this.negotiated = version;
    this.inner?.setProtocolVersion?.(version);
  }

  /** The protocol version the SDK peer negotiated on this hop (it tells its transport). */
  get protocolVersion(): string | undefined {
    return this.negotiated;
  }

  /** SDK v2 peers: the inner transport's per-request stream and supported versions, passed through. */
  get hasPerRequestStream(): boolean | undefined {
    return (this.inner as { hasPerRequestStream?: boolean } | undefined)?.hasPerRequestStream;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    (this.inner as { setSupportedProtocolVersions?: (v: string[]) => void } | undefined)?.setSupportedProtocolVersions?.(versions);
  }

  // ---- the gateway's side -------------------------------------------------------------------

  /**
   * Sends a request with an id the channel assigns; resolves with the reply as it came. Rejects
   * with ConnectionClosed when the transport closes first, or the signal's reason on abort
   * (after telling the peer with notifications/cancelled).
   */
  request(method: string, params: Record<string, unknown> | undefined, options: ChannelRequestOptions, onId?: (id: RequestId) => void): Promise<RpcReply> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    const id = `${this.opts.idPrefix ?? 'gatehouse-'}${++this.nextId}`;
    onId?.(id);
    return new Promise<RpcReply>((resolve, reject) => {
      const signal = options.signal;
      let onAbort: (() => void) | undefined;
      const done = () => {
        if (onAbort) signal?.removeEventListener('abort', onAbort);
      };
      this.remember(this.pending, id, {
        stamp: options.stamp,
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
      if (signal) {
        if (signal.aborted) return this.cancel(id, signal.reason);
        onAbort = () => this.cancel(id, signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      }
      const message = { jsonrpc: '2.0' as const, id, method, ...(params !== undefined ? { params } : {}) };
      // Options for the transport only when there are any (most forwarded requests have none).
      const send: TransportSendOptions | undefined =
        options.relatedRequestId === undefined && !options.headers
          ? undefined
          : ({
              ...(options.relatedRequestId !== undefined ? { relatedRequestId: options.relatedRequestId } : {}),
              ...(options.headers ? { headers: options.headers } : {}),
            } as TransportSendOptions);
      this.write(message, send, options.stamp).catch((err: unknown) => {
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        p.reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  /** Gives up on a request: the peer is told (MCP basic/utilities/cancellation), the caller gets `reason`. */
  cancel(id: RequestId, reason: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    const why = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled';
    void this.notify('notifications/cancelled', { requestId: id, reason: why }, { stamp: p.stamp }).catch(() => {});
    p.reject(reason instanceof Error ? reason : new McpError(ErrorCode.RequestTimeout, why));
  }

  /** Answers an inbound request the gateway took (see InboundRequestRoute.handle). */
  respond(id: RequestId, reply: { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.write({ jsonrpc: '2.0', id, ...reply } as JSONRPCMessage);
  }

  notify(method: string, params: Record<string, unknown> | undefined, options: { stamp?: ExchangeStamp; relatedRequestId?: RequestId } = {}): Promise<void> {
    if (this.closed) return Promise.resolve();
    const message = { jsonrpc: '2.0' as const, method, ...(params !== undefined ? { params } : {}) };
    return this.write(message, options.relatedRequestId !== undefined ? { relatedRequestId: options.relatedRequestId } : undefined, options.stamp);
  }

  // ---- recording and routing ----------------------------------------------------------------

  private write(original: JSONRPCMessage, options?: TransportSendOptions, stamp?: ExchangeStamp): Promise<void> {
    // The one place a message leaves toward an agent: results, errors, notifications and
    // server→client requests alike. Unchanged (the same object) when it holds no secret.
    const screen = this.opts.screenOutbound;
    if (!screen) return this.put(this.opts.redactOutbound ? this.opts.redactOutbound.redactJson(original) : original, options, stamp);
    const out = screen.screen(original);
    // The common case: nothing to scan and nothing queued, sent in this very turn.
    if (!(out instanceof Promise) && !this.screening) return this.put(out, options, stamp);
    const prev = this.screening ?? Promise.resolve();
    const sent = prev.then(async () => {
      const done = out instanceof Promise ? await out : { message: out, findings: [] };
      if (this.closed) return;
      return this.put(done.message, options, stamp, done.findings);
    });
    const tail = sent.then(
      () => {},
      () => {},
    );
    this.screening = tail;
    void tail.then(() => {
      if (this.screening === tail) this.screening = undefined;
    });
    return sent;
  }

  /** Sends a screened message (and records it, with what the screen found). */
  private put(message: JSONRPCMessage, options?: TransportSendOptions, stamp?: ExchangeStamp, findings?: unknown[]): Promise<void> {
    const inner = this.need();
    this.screened = findings?.length ? { message, findings } : undefined;
    try {
      return this.transmit(inner, message, options, stamp);
    } finally {
      this.screened = undefined;
    }
  }

  private transmit(inner: Transport, message: JSONRPCMessage, options?: TransportSendOptions, stamp?: ExchangeStamp): Promise<void> {
    if (!this.opts.observed) {
      const text = safeStringify(message);
      this.observeOutbound(message, text === undefined ? 0 : Buffer.byteLength(text), text, stamp);
      // A transport that serialises what it sends (the lean HTTP transport) takes this text.
      return inner.send(message, text === undefined ? options : ({ ...options, jsonText: text } satisfies TextSendOptions as TransportSendOptions));
    }
    // A framed transport reports what it writes from inside send(), before its first await.
    this.writing = stamp ? { message, stamp } : undefined;
    try {
      return inner.send(message, options);
    } finally {
      this.writing = undefined;
    }
  }

  /** Which exchange a message belongs to, from the ledger; `side`: where a request came from. */
  private stampOf(m: Record<string, unknown>, side: HopSide, given: ExchangeStamp | undefined): { stamp?: ExchangeStamp; since?: number; answer?: boolean } {
    const ledger = this.ledger;
    const id = m.id as RequestId | undefined | null;
    if (typeof m.method === 'string') {
      if (id !== undefined && id !== null) return { stamp: ledger ? ledger.request(this.hop, side, id, m.method, given, now()) : given };
      if (given || !ledger || m.method !== 'notifications/cancelled') return { stamp: given };
      // A cancel travels the same way as the request it names (MCP basic/utilities/cancellation).
      const named = (m.params as { requestId?: RequestId } | undefined)?.requestId;
      return { stamp: named !== undefined ? ledger.find(this.hop, side, named)?.stamp : undefined };
    }
    if (id === undefined || id === null || !ledger) return {};
    // An answer: to a request that came from the other side.
    const entry = ledger.answer(this.hop, side === 'in' ? 'out' : 'in', id);
    return entry ? { stamp: entry.stamp, since: entry.since, answer: true } : {};
  }

  private record(message: JSONRPCMessage, bytes: number, outbound: boolean, text: string | undefined, found: { stamp?: ExchangeStamp; since?: number; answer?: boolean }): void {
    const stamp = found.stamp;
    const seq = this.recorder.message(message, bytes, outbound, text, stamp, found.since, (late) => stamp?.legs?.push(late));
    if (found.stamp) {
      const error = (message as { error?: { message?: unknown } }).error;
      this.ledger?.leg(found.stamp, seq, found.answer ? (error ? { error: String(error.message ?? 'error') } : {}) : undefined);
    }
  }

  private observeInbound(message: JSONRPCMessage, bytes: number, text?: string): void {
    const m = message as Record<string, unknown>;
    const id = m.id as RequestId | undefined;
    try {
      let route: InboundRequestRoute | InboundNotificationRoute | undefined;
      if (typeof m.method === 'string') {
        route = id !== undefined && id !== null ? this.opts.routes?.request?.(message as JSONRPCRequest) : this.opts.routes?.notification?.(message as JSONRPCNotification);
        this.reading = route ? { message, route } : undefined;
      }
      const found = this.stampOf(m, 'in', route?.stamp);
      if (found.stamp && typeof m.method === 'string' && id !== undefined && id !== null) found.stamp.requestBytes = bytes;
      this.record(message, bytes, false, text, found);
    } catch (err) {
      // Recording and routing must never break the hop.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private observeOutbound(message: JSONRPCMessage, bytes: number, text?: string, stamp?: ExchangeStamp): void {
    const m = message as Record<string, unknown>;
    const given = stamp ?? (this.writing?.message === message ? this.writing.stamp : undefined);
    const found = this.stampOf(m, 'out', given);
    if (found.answer && found.stamp) found.stamp.responseBytes = bytes;
    if (this.screened?.message === message) this.opts.screenOutbound?.found(found.stamp, message, this.screened.findings, this.opts.meta.agentSession);
    this.record(message, bytes, true, text, found);
  }

  private dispatch(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const m = message as Record<string, unknown>;
    const id = m.id as RequestId | undefined;
    if (typeof m.method === 'string') {
      const route = this.reading?.message === message ? this.reading.route : undefined;
      this.reading = undefined;
      if (id !== undefined && id !== null) {
        const handle = (route as InboundRequestRoute | undefined)?.handle;
        if (handle) return handle(message as JSONRPCRequest, extra);
      } else {
        const note = route as InboundNotificationRoute | undefined;
        note?.handle?.();
        if (note?.consume) return;
      }
      return this.onmessage?.(message, extra);
    }
    const p = id !== undefined && id !== null ? this.pending.get(id) : undefined;
    if (p) {
      this.pending.delete(id!);
      return p.resolve(message as RpcReply);
    }
    this.onmessage?.(message, extra);
  }

  private onInnerClose(): void {
    this.closed = true;
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.ledger?.closedHop(this.hop);
    const m = this.opts.closedMessage;
    const closedText = (typeof m === 'function' ? m() : m) ?? 'Connection closed';
    for (const p of pending) p.reject(new McpError(ErrorCode.ConnectionClosed, closedText));
    this.onclose?.();
  }

  private remember<V>(map: Map<RequestId, V>, id: RequestId, value: V): void {
    if (map.size >= MAX_OPEN) {
      const oldest = map.entries().next();
      if (!oldest.done) {
        map.delete(oldest.value[0]);
        const v = oldest.value[1] as Partial<Pending>;
        v.reject?.(new McpError(ErrorCode.InternalError, `forgotten: more than ${MAX_OPEN} requests open on this channel`));
      }
    }
    map.set(id, value);
  }

  private need(): Transport {
    if (!this.inner) throw new Error('ExchangeChannel: attach() a transport first');
    return this.inner;
  }
}

function safeStringify(message: unknown): string | undefined {
  try {
    return JSON.stringify(message);
  } catch {
    return undefined;
  }
}
