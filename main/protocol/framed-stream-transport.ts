// An MCP SDK Transport over a pair of byte streams: a child server's stdout/stdin, or
// process.stdin/stdout for the stdio gateway. Unlike the SDK's StdioClientTransport it reads
// both newline and Content-Length framing, turns bad stdout lines into observed faults
// instead of errors, bounds its memory, and reports exact wire byte counts to the tap.
import type { Readable, Writable } from 'node:stream';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Framing } from '../profiles/types';
import { encodeText, FrameDecoder, redactFaultRaw, type DecodedFault, type DecodedItem, type WireFraming } from './framing';
import { refusedResponse } from './refused-response';

export interface FramedStreamObserver {
  inbound?(message: JSONRPCMessage, bytes: number, framing: WireFraming): void;
  /** `text` is the message's JSON text as written (JSON.stringify of it), for the tap to keep. */
  outbound?(message: JSONRPCMessage, bytes: number, framing: WireFraming, text?: string): void;
  fault?(item: DecodedFault): void;
}

export interface FramedStreamTransportOptions {
  /** How to read: fixed, or `auto` (detected per message). */
  framing: Framing;
  maxMessageBytes?: number;
  /**
   * How to write. Fixed; or `mirror`: a response goes out in the framing its request came
   * in, anything we originate in the framing of the last message received (line before
   * any). Unset: the read framing when fixed, else the framing of the peer's first message.
   */
  writeFraming?: WireFraming | 'mirror';
  observer?: FramedStreamObserver;
  /** End the writable on close() (default true). */
  endWritableOnClose?: boolean;
  /** See FrameDecoderOptions: `fatal` (a server's stdout) or `skip` (an agent's stdin). */
  oversizeContentLength?: 'fatal' | 'skip';
  /**
   * A frame (line or Content-Length frame) begun but not completed within this long is a fatal
   * fault: a lying Content-Length, or a partial line nothing ever ends (default 10 s; 0 = off).
   */
  frameDeadlineMs?: number;
  /** Close the transport on a fatal fault (the reading side is out of sync). Default false. */
  closeOnFatal?: boolean;
  /**
   * When a response is refused (too deep, inexact id, oversized) and its id could be read, hand
   * the client an error response for that id instead, so the request it answers fails at once
   * rather than waiting for its timeout. For the client side of a server's stdio.
   */
  answerRefusedResponses?: boolean;
  /**
   * Bytes that may wait in the writable (the peer is not reading) before send() refuses with an
   * error instead of buffering more (default 16 MiB; 0 = no limit).
   */
  maxQueuedWriteBytes?: number;
  /**
   * Byte budget of what the peer may send (a token bucket): over it, reading pauses until the
   * budget refills, so the peer's writes block in its own pipe. One flooding server then costs
   * the host a bounded share of CPU and memory, and the others keep being served. 0 = no limit.
   */
  inboundBytesPerSecond?: number;
  /** Burst the bucket holds (default 2 × maxMessageBytes, at least 1 MiB). */
  inboundBurstBytes?: number;
  /**
   * A peer that reads slowly (an agent) gets notifications dropped, not buffered, once this many
   * bytes wait for it; responses and requests always go (every request gets its one answer).
   * Dropped notifications are counted (droppedNotifications). 0 = never drop.
   */
  dropNotificationsOverBytes?: number;
  /**
   * Byte budget of the notifications handed on (a token bucket, burst = one message of the
   * limit): past it a notification is recorded but not passed on, and counted. A server's flood
   * of log messages then reaches the agents at a bounded rate. 0 = no limit.
   */
  notificationBytesPerSecond?: number;
  /** Told when notifications are dropped for the budget (the running count). */
  onNotificationsDropped?: (count: number) => void;
  /** Replaces secrets in a fault's text before it is cut to its shown length. */
  redact?: (text: string) => string;
  /** Told each time reading pauses for the budget (how long, in ms). */
  onThrottle?: (pauseMs: number) => void;
}

export const DEFAULT_FRAME_DEADLINE_MS = 10_000;
/** How many budget bytes one byte of a fault costs (see deliver()). */
const FAULT_BYTE_COST = 16;
export const DEFAULT_MAX_QUEUED_WRITE_BYTES = 16 * 1024 * 1024;

/** Requests awaiting our response, for `mirror`; bounded so a peer that never gets answers cannot grow it. */
const MAX_TRACKED_REQUESTS = 10_000;

export class FramedStreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  sessionId?: string;

  private readonly decoder: FrameDecoder;
  private readonly options: FramedStreamTransportOptions;
  private started = false;
  private closed = false;
  private writeFailed: Error | undefined;
  private drainWait: Promise<void> | undefined;
  private corked = false;
  private detected: WireFraming | undefined;
  private lastReceived: WireFraming | undefined;
  private readonly requestFraming = new Map<RequestId, WireFraming>();
  private readonly frameDeadlineMs: number;
  private readonly maxQueuedWrite: number;
  private frameTimer: NodeJS.Timeout | undefined;
  /** Notifications not sent because the peer was not reading (dropNotificationsOverBytes). */
  droppedNotifications = 0;
  /** Notifications received but not passed on, over notificationBytesPerSecond. */
  notificationsOverBudget = 0;
  private noteTokens = Number.POSITIVE_INFINITY;
  private noteAt = 0;
  private readonly inboundRate: number;
  private readonly inboundBurst: number;
  private inboundTokens: number;
  private inboundAt = 0;
  private resumeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly readable: Readable,
    private readonly writable: Writable,
    options: FramedStreamTransportOptions,
  ) {
    this.options = options;
    this.decoder = new FrameDecoder({
      framing: options.framing,
      maxMessageBytes: options.maxMessageBytes,
      oversizeContentLength: options.oversizeContentLength,
    });
    this.frameDeadlineMs = options.frameDeadlineMs ?? DEFAULT_FRAME_DEADLINE_MS;
    this.maxQueuedWrite = options.maxQueuedWriteBytes ?? DEFAULT_MAX_QUEUED_WRITE_BYTES;
    this.inboundRate = options.inboundBytesPerSecond ?? 0;
    this.inboundBurst = options.inboundBurstBytes ?? Math.max(1024 * 1024, 2 * (options.maxMessageBytes ?? 4 * 1024 * 1024));
    this.inboundTokens = this.inboundBurst;
    // Error listeners go on at once: an 'error' event without a listener (EPIPE from a child
    // that already exited) is an uncaught exception that would take the whole host down.
    this.readable.on('error', this.onReadError);
    this.writable.on('error', this.onWriteError);
  }

  /** The framing of the peer's first message, once one has arrived. */
  get detectedFraming(): WireFraming | undefined {
    return this.detected;
  }

  async start(): Promise<void> {
    if (this.started) {
      throw new Error('FramedStreamTransport already started; Client/Server call start() on connect');
    }
    this.started = true;
    this.readable.on('data', this.onData);
    this.readable.on('end', this.onEnd);
    this.readable.on('close', this.onEnd);
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.closed) throw new Error('transport is closed');
    if (!this.writeFailed && (this.writable.destroyed || this.writable.writableEnded)) {
      // A child's stdin is destroyed as soon as the child exits, so the write would fail
      // without an 'error' event: report it the way an EPIPE is reported.
      this.onWriteError(streamClosedError());
    }
    if (this.writeFailed) throw this.writeFailed;
    const dropOver = this.options.dropNotificationsOverBytes ?? 0;
    if (dropOver > 0 && this.writable.writableLength > dropOver && 'method' in message && !('id' in message)) {
      this.droppedNotifications++;
      return;
    }
    if (this.maxQueuedWrite > 0 && this.writable.writableLength > this.maxQueuedWrite) {
      // The peer is not reading: refuse rather than hold an ever-growing buffer for it.
      throw new Error(
        `cannot send: ${this.writable.writableLength} bytes are already waiting for the peer to read (limit ${this.maxQueuedWrite}); it is not reading its input`,
      );
    }
    const framing = this.framingFor(message);
    const text = JSON.stringify(message);
    const buf = encodeText(text, framing);
    this.notify(() => this.options.observer?.outbound?.(message, buf.length, framing, text));
    // Node keeps write order even while the buffer is over its high-water mark; awaiting
    // 'drain' only slows the sender down, which is what backpressure asks for.
    if (!this.write(buf)) await this.waitForDrain();
  }

  /**
   * Writes one frame. Frames written in the same turn of the event loop (32 concurrent calls
   * answered from one read) go out in one writev at the end of the turn instead of one write
   * syscall each: the stream is corked on the first write and uncorked on process.nextTick,
   * which runs after the promise jobs that produce the other frames. Order is kept, and the
   * return value is write()'s (false = over the high-water mark, wait for 'drain').
   */
  private write(buf: Buffer): boolean {
    if (!this.corked && !this.writable.destroyed && !this.writable.writableEnded) {
      this.corked = true;
      this.writable.cork();
      process.nextTick(this.uncork);
    }
    return this.writable.write(buf);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    // end() already uncorked a stream that was ended in the meantime; uncork() of a stream
    // that is not corked is a no-op.
    if (this.writable.writableCorked > 0) this.writable.uncork();
  };

  /**
   * Writes a frame that is not a JSONRPCMessage the SDK would send: a JSON-RPC error with
   * `id: null` (parse error) or a legacy tool-envelope reply. Observed like any outbound frame.
   */
  async sendRaw(value: unknown, framing: WireFraming): Promise<void> {
    if (this.closed) throw new Error('transport is closed');
    if (this.writeFailed) throw this.writeFailed;
    const buf = encodeText(JSON.stringify(value), framing);
    this.notify(() => this.options.observer?.outbound?.(value as JSONRPCMessage, buf.length, framing));
    if (!this.write(buf)) await this.waitForDrain();
  }

  /**
   * Writes a frame given as JSON text (an answer that must carry an id exactly as the peer wrote
   * it, which a JSON value cannot: `9007199254740993`). Observed like any outbound frame.
   */
  async sendJsonText(json: string, framing: WireFraming): Promise<void> {
    if (this.closed) throw new Error('transport is closed');
    if (this.writeFailed) throw this.writeFailed;
    const buf = encodeText(json, framing);
    let shown: unknown;
    try {
      shown = JSON.parse(json);
    } catch {
      shown = { raw: json };
    }
    this.notify(() => this.options.observer?.outbound?.(shown as JSONRPCMessage, buf.length, framing, json));
    if (!this.write(buf)) await this.waitForDrain();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.options.endWritableOnClose !== false && !this.writable.destroyed && !this.writable.writableEnded) {
      // MCP lifecycle, Shutdown › stdio: the client SHOULD first close the server's input stream.
      try {
        this.writable.end();
      } catch {}
    }
    this.finish();
  }

  private framingFor(message: JSONRPCMessage): WireFraming {
    const fixed = this.options.writeFraming;
    if (fixed === 'line' || fixed === 'content-length') return fixed;
    if (fixed === 'mirror') {
      if (('result' in message || 'error' in message) && 'id' in message && message.id !== undefined) {
        const f = this.requestFraming.get(message.id);
        if (f) {
          this.requestFraming.delete(message.id);
          return f;
        }
      }
      return this.lastReceived ?? this.defaultFraming();
    }
    return this.options.framing === 'auto' ? (this.detected ?? 'line') : this.options.framing;
  }

  private defaultFraming(): WireFraming {
    return this.options.framing === 'content-length' ? 'content-length' : 'line';
  }

  private readonly onData = (chunk: Buffer | string): void => {
    if (this.closed) return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const items = this.decoder.push(buf);
    this.deliver(items);
    this.armFrameDeadline(items.length > 0);
    if (this.inboundRate > 0) this.spendInbound(buf.length);
  };

  /** True when `message` is a notification over the notification budget (it is counted, not passed on). */
  private overNotificationBudget(message: JSONRPCMessage, bytes: number): boolean {
    const rate = this.options.notificationBytesPerSecond ?? 0;
    if (rate <= 0 || !('method' in message) || 'id' in message) return false;
    const burst = Math.max(1024 * 1024, this.options.maxMessageBytes ?? 4 * 1024 * 1024);
    const now = performance.now();
    this.noteTokens = this.noteAt === 0 ? burst : Math.min(burst, this.noteTokens + ((now - this.noteAt) / 1000) * rate);
    this.noteAt = now;
    if (this.noteTokens >= bytes) {
      this.noteTokens -= bytes;
      return false;
    }
    this.notificationsOverBudget++;
    try {
      this.options.onNotificationsDropped?.(this.notificationsOverBudget);
    } catch {}
    return true;
  }

  /** Token bucket over inbound bytes; pauses the readable while the budget is overdrawn. */
  private spendInbound(bytes: number): void {
    const now = performance.now();
    if (this.inboundAt > 0) this.inboundTokens = Math.min(this.inboundBurst, this.inboundTokens + ((now - this.inboundAt) / 1000) * this.inboundRate);
    this.inboundAt = now;
    this.inboundTokens -= bytes;
    if (this.inboundTokens >= 0 || this.closed || this.resumeTimer) return;
    const pauseMs = Math.ceil((-this.inboundTokens / this.inboundRate) * 1000);
    this.readable.pause();
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      if (!this.closed) this.readable.resume();
    }, pauseMs);
    this.resumeTimer.unref();
    try {
      this.options.onThrottle?.(pauseMs);
    } catch {}
  }

  /** (Re)arms the deadline of the frame in progress; a completed frame restarts the clock. */
  private armFrameDeadline(progressed: boolean): void {
    if (this.frameDeadlineMs <= 0) return;
    if (this.closed || !this.decoder.midFrame || progressed) {
      if (this.frameTimer) clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
    }
    if (this.closed || !this.decoder.midFrame || this.frameTimer) return;
    this.frameTimer = setTimeout(() => {
      this.frameTimer = undefined;
      if (this.closed) return;
      const item = this.decoder.abandon(`frame not completed within ${this.frameDeadlineMs / 1000}s`);
      if (item) this.deliver([item]);
    }, this.frameDeadlineMs);
    this.frameTimer.unref();
  }

  private deliver(items: DecodedItem[]): void {
    for (const item of items) {
      if (this.closed) return;
      if (item.type === 'fault') {
        // A fault is recorded and shown, never forwarded; fatal only to this stream when it
        // leaves the stream out of sync (docs/gateway.md "Messages (both sides, stdio and HTTP)"), never to the host.
        // Garbage costs far more per byte than a message (an exception per line, a record, a
        // count): it is charged 16× against the inbound budget, so a flood of junk lines is read
        // at a sixteenth of the rate.
        if (this.inboundRate > 0) this.inboundTokens -= item.bytes * (FAULT_BYTE_COST - 1);
        const redact = this.options.redact;
        if (redact) this.notify(() => redactFaultRaw(item, redact));
        this.notify(() => this.options.observer?.fault?.(item));
        if (this.options.answerRefusedResponses && item.response && item.rawId !== undefined) {
          const answer = refusedResponse(item);
          if (answer) {
            try {
              this.onmessage?.(answer);
            } catch (err) {
              this.reportError(err);
            }
          }
        }
        if (item.fatal && this.options.closeOnFatal) {
          this.finish();
          return;
        }
        continue;
      }
      const { message, framing, bytes } = item;
      this.detected ??= framing;
      this.lastReceived = framing;
      if (this.options.writeFraming === 'mirror' && 'method' in message && 'id' in message) {
        if (this.requestFraming.size >= MAX_TRACKED_REQUESTS) {
          const oldest = this.requestFraming.keys().next();
          if (!oldest.done) this.requestFraming.delete(oldest.value);
        }
        this.requestFraming.set(message.id, framing);
      }
      this.notify(() => this.options.observer?.inbound?.(message, bytes, framing));
      if (this.overNotificationBudget(message, bytes)) continue;
      try {
        this.onmessage?.(message);
      } catch (err) {
        // Thrown from a 'data' listener this would be an uncaught exception: report instead.
        this.reportError(err);
      }
    }
  }

  private readonly onEnd = (): void => {
    if (this.closed) return;
    this.deliver(this.decoder.end());
    this.finish();
  };

  private readonly onReadError = (err: Error): void => {
    this.reportError(err);
  };

  private readonly onWriteError = (err: Error): void => {
    // EPIPE / ERR_STREAM_DESTROYED: the peer went away. Say so once; the readable's end
    // (or close()) is what closes the transport.
    if (this.writeFailed) return;
    this.writeFailed = err;
    this.reportError(err);
  };

  private waitForDrain(): Promise<void> {
    // One shared waiter: a hundred concurrent sends must not add a hundred 'drain' listeners.
    this.drainWait ??= new Promise<void>((resolve) => {
      const done = (): void => {
        this.writable.off('drain', done);
        this.writable.off('close', done);
        this.writable.off('error', done);
        this.drainWait = undefined;
        resolve();
      };
      this.writable.on('drain', done);
      this.writable.on('close', done);
      this.writable.on('error', done);
    });
    return this.drainWait;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.frameTimer) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.resumeTimer = undefined;
    this.readable.off('data', this.onData);
    this.readable.off('end', this.onEnd);
    this.readable.off('close', this.onEnd);
    // The error listeners stay: an EPIPE after close must still not crash the process.
    if (this.readable.listenerCount('data') === 0) this.readable.pause();
    this.requestFraming.clear();
    try {
      this.onclose?.();
    } catch (err) {
      this.reportError(err);
    }
  }

  private reportError(err: unknown): void {
    try {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    } catch {}
  }

  private notify(fn: () => void): void {
    // The tap is an observer: its bugs must not break the protocol path.
    try {
      fn();
    } catch (err) {
      this.reportError(err);
    }
  }
}

function streamClosedError(): Error {
  const err = new Error('cannot send: the output stream is closed (the peer has gone away)') as NodeJS.ErrnoException;
  err.code = 'ERR_STREAM_DESTROYED';
  return err;
}
