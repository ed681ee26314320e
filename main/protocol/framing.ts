// Stdio framing for MCP: newline-delimited JSON (the MCP stdio transport) and LSP-style
// Content-Length framing (some servers and hosts still speak it). MCP Transports › stdio:
// a server MUST NOT write anything to stdout that is not a valid MCP message, and many do
// anyway (banners, debug prints). So anything that is not a JSON-RPC 2.0 message becomes a
// *fault* item, never an exception: one bad line cannot take a server (or the host) down
// (ARCHITECTURE.md, "Stdout vs stderr").
//
// The decoder works on Buffers, not strings: a Content-Length is a count of bytes, and a
// multibyte UTF-8 character may be split across two reads.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkJsonRpcMessage } from './jsonrpc-check';
import { depthProblem, depthReason, inexactId, MAX_JSON_DEPTH, scanJson } from './json-limits';
import type { Framing } from '../profiles/types';

export type WireFraming = 'line' | 'content-length';

export interface DecodedMessage {
  type: 'message';
  /** The parsed JSON exactly as it arrived (validated, not rewritten by the schema). */
  message: JSONRPCMessage;
  /** The JSON text of the message (without framing), for pass-through without re-serialisation. */
  text: string;
  /** Bytes this message took on the wire, framing included. */
  bytes: number;
  framing: WireFraming;
}

export interface DecodedFault {
  type: 'fault';
  /** What arrived, decoded as UTF-8; at most MAX_FAULT_RAW_BYTES, truncated with a marker. */
  raw: string;
  /** "not JSON: …", "not JSON-RPC 2.0: …", "message exceeds N bytes", … */
  reason: string;
  /** Bytes this fault took on the wire, framing included. */
  bytes: number;
  /** The framing it arrived in, when it was a complete frame. */
  framing?: WireFraming;
  /** For valid JSON that is not JSON-RPC: the parsed value (bounded by maxMessageBytes). */
  json?: unknown;
  /**
   * The stream is no longer in sync (a Content-Length the decoder cannot honour, a body that
   * runs into the next frame, a frame that never completed): what follows cannot be trusted.
   * A server's stdout in this state is ended and the server restarted; an agent's stdin resyncs.
   */
  fatal?: boolean;
  /** The raw text of the message's top-level id, when it could be read: the refusal answers with it. */
  rawId?: string;
  /** The refused message was a response (it has `result` or `error`). */
  response?: boolean;
}

export type DecodedItem = DecodedMessage | DecodedFault;

export interface FrameDecoderOptions {
  framing: Framing;
  /** Largest message accepted, in bytes (body only for Content-Length, line without terminator otherwise). */
  maxMessageBytes?: number;
  /**
   * A Content-Length above maxMessageBytes: `fatal` (default) reports the stream unsynchronised
   * at once; `skip` drops that many bytes as they stream in (an honest oversized frame), but
   * only up to SKIP_LIMIT_FACTOR × maxMessageBytes, beyond which it is fatal too.
   */
  oversizeContentLength?: 'fatal' | 'skip';
  /** Deepest JSON nesting accepted (default MAX_JSON_DEPTH). */
  maxDepth?: number;
}

/** An oversized Content-Length frame is skipped (not fatal) only up to this many times the limit. */
export const SKIP_LIMIT_FACTOR = 16;

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
export const MAX_FAULT_RAW_BYTES = 2048;
/** A Content-Length header block is a few dozen bytes; anything near this is not a header. */
const MAX_HEADER_BLOCK_BYTES = 8192;

const LF = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;

const HEADER_RE = /^([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*?)[ \t]*$/;
// Per message in `auto`: a header line starts a Content-Length frame. Content-Type may come
// first in LSP, so either header name opens one.
const FRAME_START_RE = /^[ \t]*content-(length|type)[ \t]*:/i;

type Mode =
  | 'line' //        between messages or inside a line (header line or JSON line)
  | 'discard-line' // an oversized line: drop bytes up to its newline
  | 'headers' //     inside a Content-Length header block
  | 'body' //        collecting a Content-Length body
  | 'skip-body'; //  dropping an oversized Content-Length body

export class FrameDecoder {
  private readonly framing: Framing;
  private readonly max: number;
  private readonly maxDepth: number;
  private readonly oversize: 'fatal' | 'skip';
  private mode: Mode = 'line';
  /** The last bytes of an oversized line being discarded (a response's id is usually at its end). */
  private discardTail: Buffer = Buffer.alloc(0);

  // Bytes of the current (incomplete) line or body, in arrival order.
  private parts: Buffer[] = [];
  private partBytes = 0;

  // Oversized line being discarded: its head (for the fault's raw text) and its length so far.
  private discardHead: Buffer = Buffer.alloc(0);
  private discardBytes = 0;
  private discardReason = '';

  // Content-Length frame in progress.
  private headerBytes = 0;
  private contentLength: number | undefined;
  private bodyRemaining = 0;

  constructor(options: FrameDecoderOptions) {
    this.framing = options.framing;
    this.max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
    this.oversize = options.oversizeContentLength ?? 'fatal';
    if (!Number.isInteger(this.max) || this.max <= 0) {
      throw new Error(`maxMessageBytes: expected a positive integer, got ${String(options.maxMessageBytes)}`);
    }
  }

  /** Bytes held while waiting for the rest of a message: never more than maxMessageBytes (+ a header block). */
  get bufferedBytes(): number {
    return this.partBytes + this.discardHead.length + this.discardTail.length;
  }

  /** A frame (line, header block or body) has begun and not yet ended. */
  get midFrame(): boolean {
    return this.mode !== 'line' || this.partBytes > 0;
  }

  /**
   * Gives up on the frame in progress (it did not complete within its deadline): returns the
   * fault for it, marked fatal, and starts afresh in line mode.
   */
  abandon(why: string): DecodedFault | undefined {
    if (!this.midFrame) return undefined;
    let item: DecodedFault;
    switch (this.mode) {
      case 'body': {
        const got = this.partBytes;
        item = fault(this.take(), `${why}: ${got} of ${this.contentLength ?? 0} Content-Length body bytes arrived`, this.headerBytes + got);
        break;
      }
      case 'skip-body':
        item = fault(Buffer.alloc(0), `${why}: ${this.bodyRemaining} bytes of an oversized Content-Length body never arrived`, 0);
        break;
      case 'discard-line':
        item = this.oversizedLineFault();
        item.reason = `${why}: ${item.reason}`;
        break;
      default: {
        const raw = this.take();
        item = fault(raw, `${why}: ${raw.length} bytes without the end of their ${this.mode === 'headers' ? 'header block' : 'line'}`, raw.length);
      }
    }
    item.fatal = true;
    this.reset();
    return item;
  }

  push(chunk: Buffer): DecodedItem[] {
    const out: DecodedItem[] = [];
    let pos = 0;
    while (pos < chunk.length) {
      switch (this.mode) {
        case 'body': {
          const take = Math.min(this.bodyRemaining, chunk.length - pos);
          this.keep(chunk, pos, pos + take);
          this.bodyRemaining -= take;
          pos += take;
          if (this.bodyRemaining === 0) {
            out.push(this.finishBody());
            // What a lying Content-Length swallowed is decoded again, before the rest of this chunk.
            if (this.swallowed) out.push(...this.takeSwallowed());
          }
          break;
        }
        case 'skip-body': {
          const take = Math.min(this.bodyRemaining, chunk.length - pos);
          this.bodyRemaining -= take;
          pos += take;
          if (this.bodyRemaining === 0) this.mode = 'line';
          break;
        }
        case 'discard-line': {
          const nl = chunk.indexOf(LF, pos);
          const end = nl === -1 ? chunk.length : nl + 1;
          this.discardBytes += end - pos;
          this.keepTail(chunk.subarray(pos, nl === -1 ? end : nl));
          pos = end;
          if (nl !== -1) {
            out.push(this.oversizedLineFault());
            this.mode = 'line';
          }
          break;
        }
        case 'line':
        case 'headers': {
          const nl = chunk.indexOf(LF, pos);
          if (nl === -1) {
            this.keep(chunk, pos, chunk.length);
            pos = chunk.length;
            this.checkPartialLine();
            break;
          }
          let line: Buffer;
          if (this.parts.length === 0) {
            line = chunk.subarray(pos, nl);
          } else {
            this.keep(chunk, pos, nl);
            line = this.take();
          }
          pos = nl + 1;
          if (this.mode === 'line' && line.length > this.max) {
            // The whole line arrived in one piece but is still too big.
            this.startDiscard(line, line.length + 1, `message exceeds ${this.max} bytes`);
            out.push(this.oversizedLineFault());
            this.mode = 'line';
            break;
          }
          const item = this.mode === 'line' ? this.onLine(line, 1) : this.onHeaderLine(line, 1);
          if (item) out.push(item);
          break;
        }
      }
    }
    return out;
  }

  /** The stream ended: flush what is pending (a last line without its newline is still a message). */
  end(): DecodedItem[] {
    const out: DecodedItem[] = [];
    switch (this.mode) {
      case 'line': {
        if (this.partBytes > 0) {
          const item = this.onLine(this.take(), 0);
          if (item) out.push(item);
        }
        break;
      }
      case 'discard-line':
        out.push(this.oversizedLineFault());
        break;
      case 'headers': {
        const raw = this.take();
        out.push(fault(raw, 'stream ended inside a Content-Length header block', this.headerBytes + raw.length));
        break;
      }
      case 'body': {
        const raw = this.take();
        out.push(
          fault(
            raw,
            `stream ended after ${raw.length} of ${this.contentLength ?? 0} Content-Length body bytes`,
            this.headerBytes + raw.length,
          ),
        );
        break;
      }
      case 'skip-body':
        break; // already reported when its header arrived
    }
    this.reset();
    return out;
  }

  private reset(): void {
    this.mode = 'line';
    this.parts = [];
    this.partBytes = 0;
    this.discardHead = Buffer.alloc(0);
    this.discardTail = Buffer.alloc(0);
    this.discardBytes = 0;
    this.discardReason = '';
    this.headerBytes = 0;
    this.contentLength = undefined;
    this.bodyRemaining = 0;
  }

  private keep(chunk: Buffer, start: number, end: number): void {
    if (end <= start) return;
    // Copy: a caller may reuse its chunk, and a small remainder must not pin a 64 KiB read.
    this.parts.push(Buffer.from(chunk.subarray(start, end)));
    this.partBytes += end - start;
  }

  private take(): Buffer {
    const buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.partBytes);
    this.parts = [];
    this.partBytes = 0;
    return buf;
  }

  /** Keep memory bounded while a line is still streaming in. */
  private checkPartialLine(): void {
    if (this.mode === 'line' && this.partBytes > this.max) {
      const held = this.take();
      this.startDiscard(held, held.length, `message exceeds ${this.max} bytes`);
    } else if (this.mode === 'headers' && this.headerBytes + this.partBytes > MAX_HEADER_BLOCK_BYTES) {
      const held = this.take();
      this.startDiscard(held, this.headerBytes + held.length, `Content-Length header block exceeds ${MAX_HEADER_BLOCK_BYTES} bytes`);
      this.headerBytes = 0;
      this.contentLength = undefined;
    }
  }

  private keepTail(piece: Buffer): void {
    if (piece.length >= TAIL_BYTES) this.discardTail = Buffer.from(piece.subarray(piece.length - TAIL_BYTES));
    else this.discardTail = Buffer.concat([this.discardTail, piece]).subarray(-TAIL_BYTES);
  }

  private startDiscard(held: Buffer, bytesSoFar: number, reason: string): void {
    this.discardTail = Buffer.from(held.subarray(Math.max(0, held.length - TAIL_BYTES)));
    this.discardHead = Buffer.from(held.subarray(0, MAX_FAULT_RAW_BYTES + REDACT_OVERLAP_BYTES));
    this.discardBytes = bytesSoFar;
    this.discardReason = reason;
    this.mode = 'discard-line';
  }

  /** The fault for a discarded line, emitted once its end is seen so its byte count is exact. */
  private oversizedLineFault(): DecodedFault {
    const item = fault(this.discardHead, this.discardReason, this.discardBytes, this.discardBytes);
    Object.assign(item, idOfCutMessage(this.discardHead, this.discardTail));
    this.discardHead = Buffer.alloc(0);
    this.discardTail = Buffer.alloc(0);
    this.discardBytes = 0;
    return item;
  }

  /** A complete line in 'line' mode; `terminator` is the byte count of its '\n' (0 at end of stream). */
  private onLine(line: Buffer, terminator: number): DecodedItem | undefined {
    const bytes = line.length + terminator;
    const body = line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
    if (isBlank(body)) return undefined; // blank lines between messages are noise, not faults

    if (this.framing !== 'line' && body[0] !== OPEN_BRACE && FRAME_START_RE.test(headText(body))) {
      this.mode = 'headers';
      this.headerBytes = 0;
      this.contentLength = undefined;
      return this.onHeaderLine(line, terminator);
    }
    if (this.framing === 'content-length') {
      return fault(body, 'expected a Content-Length header (framing is content-length)', bytes);
    }
    return validate(body, bytes, 'line', this.maxDepth);
  }

  private onHeaderLine(line: Buffer, terminator: number): DecodedItem | undefined {
    this.headerBytes += line.length + terminator;
    const body = line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;

    if (body.length === 0) {
      // End of the header block ("\r\n\r\n"; a bare "\n\n" is tolerated).
      const n = this.contentLength;
      const headerBytes = this.headerBytes;
      this.headerBytes = 0;
      if (n === undefined) {
        this.mode = 'line';
        return fault(Buffer.alloc(0), 'Content-Length header missing', headerBytes);
      }
      if (n > this.max) {
        if (this.oversize === 'skip' && n <= this.max * SKIP_LIMIT_FACTOR) {
          // Skip the body as it streams rather than buffer it; the fault is reported now.
          this.bodyRemaining = n;
          this.mode = 'skip-body';
          return fault(Buffer.alloc(0), `message exceeds ${this.max} bytes (Content-Length: ${n})`, headerBytes + n);
        }
        // Honouring it would mean reading (and dropping) up to n bytes, everything the peer
        // says from now on: the stream is out of sync. The owner ends it (or resyncs).
        this.mode = 'line';
        const item = fault(Buffer.alloc(0), `Content-Length ${n} exceeds the message limit of ${this.max} bytes; the stream is out of sync`, headerBytes);
        item.fatal = true;
        return item;
      }
      this.headerBytes = headerBytes;
      this.bodyRemaining = n;
      this.mode = 'body';
      if (n === 0) return this.finishBody();
      return undefined;
    }

    const m = this.headerBytes <= MAX_HEADER_BLOCK_BYTES ? HEADER_RE.exec(body.toString('utf8')) : null;
    if (!m) {
      const bytes = this.headerBytes;
      this.headerBytes = 0;
      this.contentLength = undefined;
      this.mode = 'line';
      return fault(body, 'malformed Content-Length header line', bytes);
    }
    if (m[1]!.toLowerCase() === 'content-length') {
      const value = m[2]!;
      if (!/^\d{1,15}$/.test(value)) {
        const bytes = this.headerBytes;
        this.headerBytes = 0;
        this.contentLength = undefined;
        this.mode = 'line';
        return fault(body, `invalid Content-Length: expected a byte count, got ${JSON.stringify(value)}`, bytes);
      }
      this.contentLength = Number(value);
    }
    // Other headers (Content-Type) are accepted and ignored: the body is UTF-8 JSON either way.
    return undefined;
  }

  private finishBody(): DecodedItem {
    const body = this.take();
    const bytes = this.headerBytes + body.length;
    const declared = this.contentLength ?? body.length;
    this.headerBytes = 0;
    this.contentLength = undefined;
    this.mode = 'line';
    const item = validate(body, bytes, 'content-length', this.maxDepth);
    if (item.type === 'fault' && item.reason.startsWith('not JSON:')) {
      // A body that is not JSON but holds the start of another frame: the Content-Length
      // lied (too long, or the body was missing) and swallowed what came next. Say so.
      const next = nextFrameStart(body);
      if (next !== -1) {
        item.reason = `Content-Length ${declared} does not match its body: the next frame starts ${next} bytes into it; the stream is out of sync`;
        item.fatal = true;
        this.swallowed = body.subarray(next);
      }
    }
    return item;
  }

  /** Bytes a lying Content-Length swallowed, handed back by push() to be decoded again. */
  private swallowed: Buffer | undefined;

  /** Re-decodes what a lying frame swallowed (bounded: each pass is shorter than the last). */
  takeSwallowed(): DecodedItem[] {
    const rest = this.swallowed;
    this.swallowed = undefined;
    return rest && rest.length > 0 ? this.push(rest) : [];
  }
}

/**
 * Byte offset of a `Content-Length: <n>` header inside `body`, else -1. Bodies are not
 * newline-terminated, so the next frame's header follows the last body byte directly.
 */
function nextFrameStart(body: Buffer): number {
  const m = /content-length[ \t]*:[ \t]*\d/i.exec(body.toString('latin1'));
  return m ? m.index : -1;
}

const TAIL_BYTES = 256;

/** The id (and response-ness) of a message cut for size, read from its head and tail. */
function idOfCutMessage(head: Buffer, tail: Buffer): Pick<DecodedFault, 'rawId' | 'response'> {
  const h = head.toString('utf8');
  const t = tail.toString('utf8');
  const response = /^\s*\{[^]*?"(result|error)"\s*:/.test(h.slice(0, 200)) && !/^\s*\{[^]*?"method"\s*:/.test(h.slice(0, 200));
  const ID = '(-?\\d{1,20}|"(?:[^"\\\\]|\\\\.){0,200}")';
  const atHead = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}`).exec(h);
  const atTail = new RegExp(`"id"\\s*:\\s*${ID}\\s*(?:,\\s*"jsonrpc"\\s*:\\s*"2\\.0"\\s*)?\\}\\s*\\r?$`).exec(t);
  const rawId = atHead?.[1] ?? atTail?.[1];
  return rawId !== undefined ? { rawId, response } : { response };
}

function validate(body: Buffer, bytes: number, framing: WireFraming, maxDepth = MAX_JSON_DEPTH): DecodedItem {
  const text = body.toString('utf8');
  const deep = depthProblem(text, maxDepth);
  if (deep) {
    const item = Object.assign(fault(body, depthReason(maxDepth), bytes), { framing, response: deep.response });
    return deep.rawId !== undefined ? Object.assign(item, { rawId: deep.rawId }) : item;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return Object.assign(fault(body, `not JSON: ${(err as Error).message}`, bytes), { framing });
  }
  const inexact = inexactId(text, value);
  if (inexact) {
    return Object.assign(fault(body, inexact.reason, bytes), { framing, rawId: inexact.rawId, response: scanJson(text).response });
  }
  const parsed = checkJsonRpcMessage(value);
  if (!parsed.success) {
    // The parsed value rides along: the stdio gateway answers some non-JSON-RPC input itself
    // (the legacy tool envelope, -32600 with the request's id).
    return Object.assign(fault(body, `not JSON-RPC 2.0: ${summarizeIssues(value, parsed.error.issues)}`, bytes), { framing, json: value });
  }
  // Hand on the JSON as it arrived, not the schema's output: the schema strips unknown keys
  // in places (error objects), and upstream results must pass through unchanged.
  return { type: 'message', message: value as JSONRPCMessage, text, bytes, framing };
}

function summarizeIssues(value: unknown, issues: readonly { message: string; path: PropertyKey[] }[]): string {
  if (Array.isArray(value)) return 'a batch (JSON array); MCP sends one message per frame';
  if (value === null || typeof value !== 'object') return `expected an object, got ${value === null ? 'null' : typeof value}`;
  if ((value as Record<string, unknown>).jsonrpc !== '2.0') return 'expected "jsonrpc": "2.0"';
  const first = issues[0];
  if (!first) return 'unknown shape';
  const path = first.path.map(String).join('.');
  return `not a request, notification or response${path ? ` (${path}: ${first.message})` : ` (${first.message})`}`;
}

/** Bytes kept past the fault text's cut, so a secret straddling the cut is still whole when redacted. */
export const REDACT_OVERLAP_BYTES = 1024;
const RAW_HEAD = Symbol('gatehouse.faultRawHead');

function fault(raw: Buffer, reason: string, bytes: number, totalRawBytes = raw.length): DecodedFault {
  const item: DecodedFault = { type: 'fault', raw: truncateRaw(raw, totalRawBytes), reason, bytes };
  if (totalRawBytes > MAX_FAULT_RAW_BYTES) {
    // Kept (hidden) for redactFaultRaw: the cut must come after the secrets are replaced.
    Object.defineProperty(item, RAW_HEAD, { value: { head: raw.subarray(0, MAX_FAULT_RAW_BYTES + REDACT_OVERLAP_BYTES), total: totalRawBytes } });
  }
  return item;
}

/**
 * Replaces secrets in a fault's text before it is cut (docs/gateway.md "Redaction before any cut"): the text is redacted from the
 * head kept past the cut, then cut, so a secret straddling the 2 KB cut leaves no fragment.
 */
export function redactFaultRaw(item: DecodedFault, redact: (text: string) => string): void {
  const kept = (item as unknown as Record<symbol, { head: Buffer; total: number } | undefined>)[RAW_HEAD];
  if (!kept) {
    item.raw = redact(item.raw);
    return;
  }
  const redacted = Buffer.from(redact(kept.head.toString('utf8')), 'utf8');
  item.raw = truncateRaw(redacted, Math.max(kept.total, redacted.length + 1));
}

/** At most MAX_FAULT_RAW_BYTES of UTF-8, cut on a character boundary, with a marker when cut. */
export function truncateRaw(raw: Buffer, totalBytes = raw.length): string {
  if (totalBytes <= MAX_FAULT_RAW_BYTES && raw.length === totalBytes) return raw.toString('utf8');
  const marker = ` … [truncated, ${totalBytes} bytes]`;
  let cut = Math.min(raw.length, MAX_FAULT_RAW_BYTES - Buffer.byteLength(marker));
  // Back up over UTF-8 continuation bytes so no character is split.
  while (cut > 0 && (raw[cut]! & 0xc0) === 0x80) cut--;
  return raw.toString('utf8', 0, cut) + marker;
}

function isBlank(buf: Buffer): boolean {
  for (const b of buf) if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  return true;
}

function headText(buf: Buffer): string {
  return buf.toString('latin1', 0, Math.min(buf.length, 32));
}

/** One message, framed for the wire. */
export function encodeMessage(message: JSONRPCMessage, framing: WireFraming): Buffer {
  return encodeText(JSON.stringify(message), framing);
}

/** Already-serialised JSON, framed for the wire (pass-through without re-serialising). */
export function encodeText(json: string, framing: WireFraming): Buffer {
  // MCP stdio: messages are newline-delimited and MUST NOT contain embedded newlines;
  // JSON.stringify never emits a raw newline, so a line is always one message.
  if (framing === 'line') return Buffer.from(json + '\n', 'utf8');
  const body = Buffer.from(json, 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}
