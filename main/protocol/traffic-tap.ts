// The traffic tap: every message in and out of every server and agent session becomes a
// TrafficEvent (main/protocol/types.ts) on a bounded bus that the UI and the audit writer drain in
// batches. Recording is one synchronous publish; the protocol path never waits for a reader.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { performance } from 'node:perf_hooks';
import type { Redactor } from '../secrets/redactor';
import { BoundedBus, type BoundedBusOptions } from './bounded-bus';
import type { DecodedFault } from './framing';
import { attachJsonText } from './json-text';
import type { ExchangeStamp, StderrLine, TrafficDirection, TrafficEvent, TrafficKind, TrafficRecord } from './types';

// Sizes for the buses' byte budgets: a message holds about its wire bytes twice (the parsed
// value and the JSON text kept for the audit writer), a line its UTF-16 characters.
const trafficSize = (ev: TrafficEvent): number => 2 * ev.bytes + 256;
const stderrSize = (l: StderrLine): number => 2 * l.line.length + 128;

export class TrafficTap extends BoundedBus<TrafficEvent> {
  /**
   * Checks a record before it is published (the data scanner's credential masking,
   * main/data/traffic-screen.ts): undefined publishes it now, a promise publishes what it resolves to.
   */
  screen?: (record: Omit<TrafficEvent, 'seq'>) => Promise<Omit<TrafficEvent, 'seq'>> | undefined;

  constructor(options: BoundedBusOptions<TrafficEvent> = {}) {
    super({ name: 'traffic', sizeOf: trafficSize, ...options });
  }

  /** publish(), after the screen when one is set. */
  publishScreened(record: Omit<TrafficEvent, 'seq'>, late?: (seq: number) => void): number | undefined {
    const later = this.screen?.(record);
    if (!later) return this.publish(record).seq;
    // Screened off the path: its seq is known once it is published (`late`), after later messages perhaps.
    void later.then((r) => late?.(this.publish(r).seq));
    return undefined;
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
}

/**
 * Builds the records of one hop. Every message that belongs to an exchange is stamped by the
 * channel that carries it (exchange-channel.ts, which asks the exchange table): the record gets
 * exchange, tool, decision, the request's method and, for an answer, its latency on this hop.
 * The recorder pairs nothing itself.
 */
export class HopRecorder {
  constructor(
    private readonly tap: TrafficTap,
    private readonly meta: TapMeta,
    private readonly redactor: Redactor | undefined,
    /** What this hop sends was redacted by that same redactor already (an agent's channel): not walked twice. */
    private readonly outboundRedacted = false,
  ) {}

  /**
   * `text`, when given, is JSON.stringify(message), already made by the caller. `stamp`: the
   * exchange the message belongs to; `since`: for an answer, when this hop's request crossed.
   * Returns the record's seq, or undefined when it is screened first (then `late` gets it).
   */
  message(message: JSONRPCMessage, bytes: number, outbound: boolean, text?: string, stamp?: ExchangeStamp, since?: number, late?: (seq: number) => void): number | undefined {
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
      message: this.redactor && !(outbound && this.outboundRedacted) ? this.redactor.redactJson(message) : message,
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
      if (stamp.parent !== undefined) record.parent = stamp.parent;
      if (stamp.tool !== undefined) record.tool = stamp.tool;
      if (stamp.decision !== undefined) record.decision = stamp.decision;
      if (record.agentSession === undefined && stamp.agentSession !== undefined) record.agentSession = stamp.agentSession;
      if (cls.kind === 'response' || cls.kind === 'error') {
        record.method = stamp.method;
        if (since !== undefined) record.latencyMs = Math.max(0, ts - since);
      }
    }
    return this.tap.publishScreened(record, late);
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

export function now(): number {
  return performance.timeOrigin + performance.now();
}
