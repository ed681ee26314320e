// The channel beneath an SDK peer (a server's Client upstream, an agent session's Server
// downstream). The SDK peer keeps the lifecycle (initialize, ping, list requests,
// list_changed); the gateway sends the requests it forwards through the channel itself, with
// ids it assigns, and their responses come back to it here without the SDK seeing them.
// Requests the gateway answers itself (a downstream tools/call) are taken off the wire here
// too. Because the channel carries every message of its hop, it is also the one that records
// them: each traffic record is stamped with the exchange the channel knows it belongs to.
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
import { offerSendText } from './json-text';
import { HopRecorder, now, type TapMeta, type TrafficTap } from './traffic-tap';
import type { ExchangeStamp } from './types';

/** A JSON-RPC response as it came back: `result` or `error`, never both. */
export type RpcReply =
  | { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: RequestId; error: { code: number; message: string; data?: unknown } };

/** How an inbound request is routed: its exchange, and `handle` when the gateway answers it (the peer never sees it). */
export interface InboundRequestRoute {
  /** Absent for a request the gateway answers itself that is no exchange (a new-era tools/list). */
  stamp?: ExchangeStamp;
  handle?: (message: JSONRPCRequest, extra?: MessageExtraInfo) => void;
  /** Called when the answer to it goes out (whoever made it: the SDK peer may refuse the request itself). */
  answered?: (message: JSONRPCMessage) => void;
}

/** How an inbound notification is routed: its exchange, a handler, and whether the peer still gets it. */
export interface InboundNotificationRoute {
  stamp?: ExchangeStamp;
  handle?: () => void;
  /** Taken here: the SDK peer does not see it. */
  consume?: boolean;
}

export interface ChannelRoutes {
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
  since: number;
  resolve: (reply: RpcReply) => void;
  reject: (err: Error) => void;
}

interface Served {
  stamp?: ExchangeStamp;
  since: number;
  handle?: InboundRequestRoute['handle'];
  answered?: InboundRequestRoute['answered'];
}

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
  private readonly served = new Map<RequestId, Served>();
  private readonly notes = new WeakMap<object, InboundNotificationRoute>();
  private readonly outStamps = new WeakMap<object, ExchangeStamp>();
  private nextId = 0;
  private closed = false;
  private negotiated: string | undefined;

  constructor(private readonly opts: ExchangeChannelOptions) {
    this.recorder = new HopRecorder(opts.tap, opts.meta, opts.redactor, opts.redactOutbound !== undefined && opts.redactOutbound === opts.redactor);
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
        const text = safeStringify(message);
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
        since: now(),
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
      this.write(message, send).catch((err: unknown) => {
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
    if (options.stamp) this.outStamps.set(message, options.stamp);
    return this.write(message, options.relatedRequestId !== undefined ? { relatedRequestId: options.relatedRequestId } : undefined);
  }

  // ---- recording and routing ----------------------------------------------------------------

  private write(original: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const inner = this.need();
    // The one place a message leaves toward an agent: results, errors, notifications and
    // server→client requests alike. Unchanged (the same object) when it holds no secret.
    const message = this.opts.redactOutbound ? this.opts.redactOutbound.redactJson(original) : original;
    if (message !== original) {
      const stamp = this.outStamps.get(original);
      if (stamp) this.outStamps.set(message, stamp);
    }
    if (!this.opts.observed) {
      const text = safeStringify(message);
      this.observeOutbound(message, text === undefined ? 0 : Buffer.byteLength(text), text);
      // A transport that serialises what it sends (the lean HTTP transport) takes this text.
      if (text !== undefined) offerSendText(message, text);
    }
    return inner.send(message, options);
  }

  private observeInbound(message: JSONRPCMessage, bytes: number, text?: string): void {
    const m = message as Record<string, unknown>;
    const id = m.id as RequestId | undefined;
    try {
      if (typeof m.method === 'string') {
        if (id !== undefined && id !== null) {
          const route = this.opts.routes?.request?.(message as JSONRPCRequest);
          if (route) {
            if (route.stamp) route.stamp.requestBytes = bytes;
            this.remember(this.served, id, { stamp: route.stamp, since: now(), handle: route.handle, answered: route.answered });
            return this.recorder.message(message, bytes, false, text, route.stamp);
          }
        } else {
          const route = this.opts.routes?.notification?.(message as JSONRPCNotification);
          if (route) {
            this.notes.set(message, route);
            return this.recorder.message(message, bytes, false, text, route.stamp);
          }
        }
        return this.recorder.message(message, bytes, false, text);
      }
      const p = id !== undefined && id !== null ? this.pending.get(id) : undefined;
      this.recorder.message(message, bytes, false, text, p?.stamp, p?.since);
    } catch (err) {
      // Recording and routing must never break the hop.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private observeOutbound(message: JSONRPCMessage, bytes: number, text?: string): void {
    const m = message as Record<string, unknown>;
    const id = m.id as RequestId | undefined;
    if (typeof m.method === 'string') {
      if (id !== undefined && id !== null) {
        const p = this.pending.get(id);
        return this.recorder.message(message, bytes, true, text, p?.stamp);
      }
      return this.recorder.message(message, bytes, true, text, this.outStamps.get(message));
    }
    const s = id !== undefined && id !== null ? this.served.get(id) : undefined;
    if (s) {
      this.served.delete(id!);
      if (s.stamp) s.stamp.responseBytes = bytes;
    }
    this.recorder.message(message, bytes, true, text, s?.stamp, s?.since);
    s?.answered?.(message);
  }

  private dispatch(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const m = message as Record<string, unknown>;
    const id = m.id as RequestId | undefined;
    if (typeof m.method === 'string') {
      if (id !== undefined && id !== null) {
        const s = this.served.get(id);
        if (s?.handle) return s.handle(message as JSONRPCRequest, extra);
      } else {
        const route = this.notes.get(message);
        route?.handle?.();
        if (route?.consume) return;
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
    this.served.clear();
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
