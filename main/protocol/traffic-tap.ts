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
import type { StderrLine, TrafficDirection, TrafficEvent, TrafficKind, TrafficRecord } from './types';

// Sizes for the buses' byte budgets: a message holds about its wire bytes twice (the parsed
// value and the JSON text kept for the audit writer), a line its UTF-16 characters.
const trafficSize = (ev: TrafficEvent): number => 2 * ev.bytes + 256;
const stderrSize = (l: StderrLine): number => 2 * l.line.length + 128;

export class TrafficTap extends BoundedBus<TrafficEvent> {
  constructor(options: BoundedBusOptions<TrafficEvent> = {}) {
    super({ name: 'traffic', sizeOf: trafficSize, ...options });
  }
}

export class StderrBus extends BoundedBus<StderrLine> {
  constructor(options: BoundedBusOptions<StderrLine> = {}) {
    super({ name: 'stderr', sizeOf: stderrSize, ...options });
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
  /**
   * Cross-hop correlation from the gateway: extra fields for a message's record (exchange,
   * tool, decision). What it returns for a request is also stamped on that request's response.
   * Called synchronously on the protocol path: it must be cheap and must not throw.
   */
  annotate?: (message: JSONRPCMessage, outbound: boolean, cls: MessageClass) => Annotation | undefined;
}

export type Annotation = Partial<Pick<TrafficRecord, 'exchange' | 'tool' | 'decision' | 'agentSession'>>;

type OpenRequest = { method: string; ts: number; note?: Annotation };

/** Requests remembered for response method/latency; beyond this the oldest are forgotten. */
const MAX_OPEN_REQUESTS = 10_000;

/**
 * Builds records for one hop. It remembers each open request's method and start time, so a
 * response carries the method it answers and the hop's latency (the gateway correlates
 * across hops; this is only one hop).
 */
class HopRecorder {
  // Requests we sent (answered inbound) and requests we received (answered outbound).
  private readonly sent = new Map<RequestId, OpenRequest>();
  private readonly received = new Map<RequestId, OpenRequest>();

  constructor(
    private readonly tap: TrafficTap,
    private readonly meta: TapMeta,
    private readonly redactor: Redactor | undefined,
  ) {}

  /** `text`, when given, is JSON.stringify(message), already made by the caller. */
  message(message: JSONRPCMessage, bytes: number, outbound: boolean, text?: string): void {
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
    const note = this.meta.annotate?.(message, outbound, cls);

    if (cls.kind === 'request' && cls.id !== undefined && cls.method !== undefined) {
      remember(outbound ? this.sent : this.received, cls.id, note ? { method: cls.method, ts, note } : { method: cls.method, ts });
    } else if ((cls.kind === 'response' || cls.kind === 'error') && cls.id !== undefined) {
      const open = outbound ? this.received : this.sent;
      const req = open.get(cls.id);
      if (req) {
        open.delete(cls.id);
        record.method = req.method;
        record.latencyMs = ts - req.ts;
        if (req.note) Object.assign(record, req.note);
      }
    }
    if (note) Object.assign(record, note);
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

function now(): number {
  return performance.timeOrigin + performance.now();
}
