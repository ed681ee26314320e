// The traffic tap: every message in and out of every server and agent session becomes a
// TrafficEvent (issue 2, §4) on a bounded bus that the UI and the audit writer drain in
// batches. Recording is one synchronous publish; the protocol path never waits for a reader.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { performance } from 'node:perf_hooks';
import type { Redactor } from '../secrets/redactor';
import { BoundedBus, type BoundedBusOptions } from './bounded-bus';
import type { DecodedFault, WireFraming } from './framing';
import type { FramedStreamObserver } from './framed-stream-transport';
import { attachJsonText, offerSendText } from './json-text';
import type { ExchangeStamp, StderrLine, TrafficDirection, TrafficEvent, TrafficKind, TrafficRecord } from './types';

export class TrafficTap extends BoundedBus<TrafficEvent> {
  constructor(options: BoundedBusOptions = {}) {
    super({ name: 'traffic', ...options });
  }
}

export class StderrBus extends BoundedBus<StderrLine> {
  constructor(options: BoundedBusOptions = {}) {
    super({ name: 'stderr', ...options });
  }
}

export interface MessageClass {
  kind: Exclude<TrafficKind, 'fault'>;
  method?: string;
  id?: string | number;
}

export function classifyMessage(msg: JSONRPCMessage | Record<string, unknown>): MessageClass {
  const m = msg as Record<string, unknown>;
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
  if (typeof m.method === 'string') {
    return id === undefined ? { kind: 'notification', method: m.method } : { kind: 'request', method: m.method, id };
  }
  const kind = 'error' in m ? 'error' : 'response';
  return id === undefined ? { kind } : { kind, id };
}

export interface TapMeta {
  session: string;
  server?: string;
  agentSession?: string;
  /** Direction of what this transport receives (e.g. `server_to_gateway`). */
  inbound: TrafficDirection;
  /** Direction of what this transport sends (e.g. `gateway_to_server`). */
  outbound: TrafficDirection;
}

type OpenRequest = { method: string; ts: number };

/** Requests remembered for response method/latency; beyond this the oldest are forgotten. */
const MAX_OPEN_REQUESTS = 10_000;

/**
 * Builds records for one hop. A message that belongs to an exchange is stamped by the code
 * that carries it (the exchange channel), which passes the exchange and, for a response, when
 * this hop's request went: the record gets exchange, tool, decision, method and latency from
 * there. Other requests (initialize, lists, ping) are paired here, per hop, for method and
 * latency only.
 */
export class HopRecorder {
  // Requests we sent (answered inbound) and requests we received (answered outbound).
  private readonly sent = new Map<RequestId, OpenRequest>();
  private readonly received = new Map<RequestId, OpenRequest>();

  constructor(
    private readonly tap: TrafficTap,
    private readonly meta: TapMeta,
    private readonly redactor: Redactor | undefined,
  ) {}

  /**
   * `text`, when given, is JSON.stringify(message), already made by the caller. `stamp`: the
   * exchange the message belongs to; `since`: for a response, when this hop's request crossed.
   */
  message(message: JSONRPCMessage, bytes: number, outbound: boolean, text?: string, stamp?: ExchangeStamp, since?: number): void {
    const ts = now();
    const cls = classifyMessage(message);
    const record: TrafficRecord = {
      ts,
      session: this.meta.session,
      direction: outbound ? this.meta.outbound : this.meta.inbound,
      kind: cls.kind,
      bytes,
      // Messages are treated as immutable once they cross a transport, so the tap holds the
      // object itself (no copy on the protocol path) unless redaction makes one.
      message: this.redactor ? this.redactor.redactJson(message) : message,
    };
    // The audit writer stores this text instead of serialising the message again; a redacted
    // copy is a different object and is serialised as before.
    if (text !== undefined && record.message === message) attachJsonText(record, message, text);
    if (this.meta.server !== undefined) record.server = this.meta.server;
    if (this.meta.agentSession !== undefined) record.agentSession = this.meta.agentSession;
    if (cls.id !== undefined) record.id = cls.id;
    if (cls.method !== undefined) record.method = cls.method;
    if (stamp) {
      record.exchange = stamp.id;
      if (stamp.tool !== undefined) record.tool = stamp.tool;
      if (stamp.decision !== undefined) record.decision = stamp.decision;
      if (record.agentSession === undefined && stamp.agentSession !== undefined) record.agentSession = stamp.agentSession;
      if (cls.kind === 'response' || cls.kind === 'error') {
        record.method = stamp.method;
        if (since !== undefined) record.latencyMs = ts - since;
      }
    } else if (cls.kind === 'request' && cls.id !== undefined && cls.method !== undefined) {
      remember(outbound ? this.sent : this.received, cls.id, { method: cls.method, ts });
    } else if ((cls.kind === 'response' || cls.kind === 'error') && cls.id !== undefined) {
      const open = outbound ? this.received : this.sent;
      const req = open.get(cls.id);
      if (req) {
        open.delete(cls.id);
        record.method = req.method;
        record.latencyMs = ts - req.ts;
      }
    }
    this.tap.publish(record);
  }

  fault(item: DecodedFault): void {
    const record: TrafficRecord = {
      ts: now(),
      session: this.meta.session,
      direction: this.meta.inbound,
      kind: 'fault',
      bytes: item.bytes,
      message: { raw: this.redactor ? this.redactor.redactString(item.raw) : item.raw },
      fault: item.reason,
    };
    if (this.meta.server !== undefined) record.server = this.meta.server;
    if (this.meta.agentSession !== undefined) record.agentSession = this.meta.agentSession;
    this.tap.publish(record);
  }
}

/** The observer for a FramedStreamTransport that records this hop's traffic into `tap`. */
export function transportObserver(tap: TrafficTap, meta: TapMeta, redactor?: Redactor): Required<FramedStreamObserver> {
  const hop = new HopRecorder(tap, meta, redactor);
  return {
    inbound: (message: JSONRPCMessage, bytes: number, _framing: WireFraming) => hop.message(message, bytes, false),
    outbound: (message: JSONRPCMessage, bytes: number, _framing: WireFraming, text?: string) => hop.message(message, bytes, true, text),
    fault: (item: DecodedFault) => hop.fault(item),
  };
}

/**
 * Taps a transport that is not a framed stream (the SDK's Streamable HTTP client and server
 * transports). Messages pass through unchanged and in order; the only added work is one
 * synchronous publish per message. Bytes are the JSON text's length: HTTP framing and SSE
 * envelopes are not the message.
 */
export class TappedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly hop: HopRecorder;

  constructor(
    readonly inner: Transport,
    tap: TrafficTap,
    meta: TapMeta,
    redactor?: Redactor,
  ) {
    this.hop = new HopRecorder(tap, meta, redactor);
    // Installed now, not in start(): an inner transport may deliver as soon as it exists
    // (a server transport handed a request before connect() finished).
    inner.onmessage = (message, extra) => {
      this.record(message, false);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const text = this.record(message, true);
    // A transport that serialises what it sends (the lean HTTP transport) takes this text
    // instead of making it again (json-text.ts).
    if (text !== undefined) offerSendText(message, text);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Records one message; returns its JSON text (made to count its bytes). */
  private record(message: JSONRPCMessage, outbound: boolean): string | undefined {
    try {
      const text = JSON.stringify(message);
      this.hop.message(message, Buffer.byteLength(text), outbound, text);
      return text;
    } catch (err) {
      // The tap must never break the hop it observes.
      try {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      } catch {}
      return undefined;
    }
  }
}

function remember(map: Map<RequestId, OpenRequest>, id: RequestId, value: OpenRequest): void {
  if (map.size >= MAX_OPEN_REQUESTS) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(id, value);
}

export function now(): number {
  return performance.timeOrigin + performance.now();
}
