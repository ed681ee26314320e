// What a stdio server's stdout does wrong, and the transport that watches for it: a framed
// stream read at a bounded byte rate, whose notifications reach agents at a bounded rate, and
// whose fatal faults (a lying Content-Length, a frame that never completed) mean the stdout is
// out of sync and the run must end. managed-server.ts decides what ending means; this module
// only notices, counts and says so (rate-limited) in the server's log.
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Framing } from '../profiles/types';
import type { DecodedFault } from '../protocol/framing';
import { FramedStreamTransport } from '../protocol/framed-stream-transport';
import type { ExchangeChannel } from '../protocol/exchange-channel';

/** Sustained bytes per second read from one server's stdout (bursts up to 2 × its message limit). */
export const SERVER_INBOUND_BYTES_PER_SEC = 4 * 1024 * 1024;
/** Notification bytes per second one server may have relayed to agents (bursts of one max-size message). */
export const SERVER_NOTIFICATION_BYTES_PER_SEC = 1024 * 1024;
/** The budget notes are written at most this often. */
const NOTE_EVERY_MS = 10_000;

export interface StdoutFaultHooks {
  /** One line into the server's log (the run's stderr ring). */
  log(line: string): void;
  /** A message came from the server (it has spoken this run). */
  inbound(msg: JSONRPCMessage): void;
  /** A protocol fault was recorded (counted and shown by the caller). */
  fault(reason: string): void;
  /** The stdout is out of sync: the run must end. */
  unsynchronised(reason: string): void;
}

/** Per-server fault state across its runs (the throttle notes add up over the launch). */
export class StdoutFaults {
  /** Why the current run's stdout went out of sync, if it did (named when calls fail). */
  unsyncReason: string | undefined;
  private throttleNotedAt = 0;
  private throttledMs = 0;
  private droppedNotedAt = 0;

  /**
   * The framed transport for one run. `writeFraming` is the guess for `framing: auto` until
   * the server has spoken (the client speaks first).
   */
  transport(
    child: { stdout: Readable; stdin: Writable },
    opts: { framing: Framing; writeFraming?: 'content-length'; maxMessageBytes?: number; redact: (text: string) => string; channel: ExchangeChannel },
    hooks: StdoutFaultHooks,
  ): FramedStreamTransport {
    this.unsyncReason = undefined;
    const observer = opts.channel.observer;
    return new FramedStreamTransport(child.stdout, child.stdin, {
      framing: opts.framing,
      maxMessageBytes: opts.maxMessageBytes,
      // A server's stdout that is out of sync cannot be trusted again: end this run.
      oversizeContentLength: 'fatal',
      closeOnFatal: true,
      // A refused response (too deep, inexact id, too large) fails its request at once.
      answerRefusedResponses: true,
      // One server's flood is read at a bounded rate: it blocks in its own pipe, not us.
      inboundBytesPerSecond: SERVER_INBOUND_BYTES_PER_SEC,
      redact: opts.redact,
      onThrottle: (ms) => this.throttled(ms, hooks.log),
      // Its notifications reach the agents at a bounded byte rate; the rest are shown, not relayed.
      notificationBytesPerSecond: SERVER_NOTIFICATION_BYTES_PER_SEC,
      onNotificationsDropped: (n) => this.dropped(n, hooks.log),
      ...(opts.writeFraming ? { writeFraming: opts.writeFraming } : {}),
      observer: {
        inbound: (msg, bytes, framing) => {
          hooks.inbound(msg);
          observer.inbound(msg, bytes, framing);
        },
        outbound: (msg, bytes, framing) => observer.outbound(msg, bytes, framing),
        fault: (item: DecodedFault) => {
          observer.fault(item);
          hooks.fault(item.reason);
          if (item.fatal) {
            const reason = `stdout out of sync: ${item.reason}`;
            this.unsyncReason = reason;
            hooks.unsynchronised(reason);
          }
        },
      },
    });
  }

  /** Says (at most every 10 s, in the server's log) that its stdout is being read at the budget rate. */
  private throttled(ms: number, log: (line: string) => void): void {
    this.throttledMs += ms;
    const now = Date.now();
    if (now - this.throttleNotedAt < NOTE_EVERY_MS) return;
    this.throttleNotedAt = now;
    log(`[gatehouse] stdout over its byte budget (${SERVER_INBOUND_BYTES_PER_SEC / 1024 / 1024} MiB/s): reading paused ${this.throttledMs} ms so far; other servers are not affected`);
  }

  /** Says (at most every 10 s, in the server's log) that notifications over the budget were not relayed. */
  private dropped(count: number, log: (line: string) => void): void {
    const now = Date.now();
    if (now - this.droppedNotedAt < NOTE_EVERY_MS) return;
    this.droppedNotedAt = now;
    log(`[gatehouse] notifications over their byte budget (${SERVER_NOTIFICATION_BYTES_PER_SEC / 1024 / 1024} MiB/s) not relayed to agents: ${count} so far this run`);
  }
}
