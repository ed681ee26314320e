import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  encodeMessage,
  encodeText,
  FrameDecoder,
  MAX_FAULT_RAW_BYTES,
  REDACT_OVERLAP_BYTES,
  type DecodedFault,
  type DecodedItem,
  type DecodedMessage,
} from './framing';

const req = (id: number, text = 'héllo wörld — 日本語 🦊'): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text } },
});
const note: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };
const res: JSONRPCMessage = { jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: 'ü' }] } };

function cl(msg: unknown, extraHeaders = ''): Buffer {
  const body = Buffer.from(JSON.stringify(msg), 'utf8');
  return Buffer.concat([Buffer.from(`${extraHeaders}Content-Length: ${body.length}\r\n\r\n`), body]);
}
const line = (msg: unknown, eol = '\n'): Buffer => Buffer.from(JSON.stringify(msg) + eol, 'utf8');

function decodeAll(decoder: FrameDecoder, chunks: Buffer[]): DecodedItem[] {
  const out: DecodedItem[] = [];
  for (const c of chunks) out.push(...decoder.push(c));
  out.push(...decoder.end());
  return out;
}
const messages = (items: DecodedItem[]): JSONRPCMessage[] =>
  items.filter((i): i is DecodedMessage => i.type === 'message').map((i) => i.message);
const faults = (items: DecodedItem[]): DecodedFault[] => items.filter((i): i is DecodedFault => i.type === 'fault');

describe('FrameDecoder: newline-delimited', () => {
  it('reads lines, tolerates CRLF, skips blank lines, and counts wire bytes', () => {
    const input = Buffer.concat([line(req(1)), Buffer.from('\n\r\n  \n'), line(note, '\r\n'), line(res)]);
    const items = decodeAll(new FrameDecoder({ framing: 'line' }), [input]);
    expect(messages(items)).toEqual([req(1), note, res]);
    expect(items.every((i) => i.type === 'message' && i.framing === 'line')).toBe(true);
    expect((items[1] as DecodedMessage).bytes).toBe(line(note, '\r\n').length);
    expect((items[0] as DecodedMessage).text).toBe(JSON.stringify(req(1)));
  });

  it('treats a Content-Length header as a bad line when framing is fixed to line', () => {
    const items = decodeAll(new FrameDecoder({ framing: 'line' }), [Buffer.from('Content-Length: 2\r\n'), line(note)]);
    expect(faults(items).map((f) => f.reason)).toEqual([expect.stringMatching(/^not JSON: /)]);
    expect(messages(items)).toEqual([note]);
  });

  it('flushes a last line without a newline at end()', () => {
    const d = new FrameDecoder({ framing: 'auto' });
    expect(d.push(Buffer.from(JSON.stringify(note)))).toEqual([]);
    expect(messages(d.end())).toEqual([note]);
  });
});

describe('FrameDecoder: Content-Length', () => {
  it('reads LSP frames with Content-Type and case-insensitive headers; the length is bytes', () => {
    const a = cl(req(1), 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n');
    const body = Buffer.from(JSON.stringify(res));
    const b = Buffer.concat([Buffer.from(`content-length:${body.length}\r\n\r\n`), body]);
    const items = decodeAll(new FrameDecoder({ framing: 'content-length' }), [Buffer.concat([a, b])]);
    expect(messages(items)).toEqual([req(1), res]);
    expect(items.map((i) => i.bytes)).toEqual([a.length, b.length]);
    expect(items.every((i) => i.type === 'message' && i.framing === 'content-length')).toBe(true);
  });

  it('keeps a body with raw newlines (pretty-printed JSON) whole', () => {
    const body = Buffer.from(JSON.stringify(req(4), null, 2));
    const frame = Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
    expect(messages(decodeAll(new FrameDecoder({ framing: 'auto' }), [frame]))).toEqual([req(4)]);
  });

  it('flags a JSON line when framing is fixed to content-length, then still reads frames', () => {
    const items = decodeAll(new FrameDecoder({ framing: 'content-length' }), [line(note), cl(req(2))]);
    expect(faults(items)).toHaveLength(1);
    expect(faults(items)[0]!.reason).toMatch(/expected a Content-Length header/);
    expect(messages(items)).toEqual([req(2)]);
  });

  it('flags bad headers and a truncated body', () => {
    const d = new FrameDecoder({ framing: 'content-length' });
    const items = decodeAll(d, [
      Buffer.from('Content-Length: lots\r\n\r\n'),
      Buffer.from('Content-Type: x\r\n\r\n'),
      cl(req(3)),
      Buffer.from('Content-Length: 100\r\n\r\n{"jsonrpc"'),
    ]);
    expect(faults(items).map((f) => f.reason)).toEqual([
      expect.stringMatching(/^invalid Content-Length/),
      'Content-Length header missing',
      'stream ended after 10 of 100 Content-Length body bytes',
    ]);
    expect(messages(items)).toEqual([req(3)]);
  });
});

describe('FrameDecoder: auto', () => {
  const sample = Buffer.concat([
    line(req(1)),
    cl(res, 'Content-Type: application/json\r\n'),
    Buffer.from('\r\n'), // some writers end a frame with a newline
    line(note, '\r\n'),
    cl(req(2, '€uro ✓ 𝄞')),
    cl(req(3)),
    line(req(5, 'zwölf')),
  ]);
  const expected = [req(1), res, note, req(2, '€uro ✓ 𝄞'), req(3), req(5, 'zwölf')];
  const expectedFramings = ['line', 'content-length', 'line', 'content-length', 'content-length', 'line'];

  it('detects the framing per message', () => {
    const items = decodeAll(new FrameDecoder({ framing: 'auto' }), [sample]);
    expect(messages(items)).toEqual(expected);
    expect(items.map((i) => (i.type === 'message' ? i.framing : 'fault'))).toEqual(expectedFramings);
  });

  it('decodes the same whatever byte the stream is split at (multibyte UTF-8 included)', () => {
    for (let i = 0; i <= sample.length; i++) {
      const items = decodeAll(new FrameDecoder({ framing: 'auto' }), [sample.subarray(0, i), sample.subarray(i)]);
      expect(messages(items), `split at ${i}`).toEqual(expected);
      expect(faults(items), `split at ${i}`).toEqual([]);
    }
  });

  it('decodes the same fed one byte at a time, and the byte counts add up to the input', () => {
    const chunks = [...sample].map((b) => Buffer.from([b]));
    const items = decodeAll(new FrameDecoder({ framing: 'auto' }), chunks);
    expect(messages(items)).toEqual(expected);
    // Every byte belongs to a message except the stray CRLF after a frame.
    expect(items.reduce((n, i) => n + i.bytes, 0)).toBe(sample.length - 2);
  });

  it('flags garbage lines and still parses the next valid message', () => {
    const input = Buffer.concat([
      Buffer.from('server starting… ✓\n'),
      line(req(1)),
      Buffer.from('{"half": \n'),
      Buffer.from('{"jsonrpc":"2.0","hello":"world"}\n'),
      Buffer.from('[{"jsonrpc":"2.0","method":"x"}]\n'),
      Buffer.from('{"jsonrpc":"1.0","id":1,"result":{}}\n'),
      line(res),
    ]);
    for (const framing of ['auto', 'line'] as const) {
      const items = decodeAll(new FrameDecoder({ framing }), [input]);
      expect(messages(items)).toEqual([req(1), res]);
      const f = faults(items);
      expect(f.map((x) => x.reason.split(':')[0])).toEqual(['not JSON', 'not JSON', 'not JSON-RPC 2.0', 'not JSON-RPC 2.0', 'not JSON-RPC 2.0']);
      expect(f[0]!.raw).toBe('server starting… ✓');
      expect(f[0]!.bytes).toBe(Buffer.byteLength('server starting… ✓\n'));
      expect(f[3]!.reason).toMatch(/batch/);
      expect(f[4]!.reason).toMatch(/"jsonrpc": "2.0"/);
    }
  });

  it('hands on the JSON as it arrived, unknown fields included', () => {
    const withExtra = { jsonrpc: '2.0', id: 9, error: { code: -1, message: 'x', extra: { kept: true } } };
    const [item] = decodeAll(new FrameDecoder({ framing: 'auto' }), [line(withExtra)]);
    expect(item).toMatchObject({ type: 'message', message: withExtra });
  });
});

describe('FrameDecoder: bounded memory', () => {
  const CHUNK = 64 * 1024;
  const TOTAL = 50 * 1024 * 1024;

  it('turns an oversized line into one fault and discards the rest as it streams', () => {
    const max = 1024 * 1024;
    const d = new FrameDecoder({ framing: 'auto', maxMessageBytes: max });
    const chunk = Buffer.alloc(CHUNK, 'x'.charCodeAt(0));
    const items: DecodedItem[] = [];
    let peak = 0;
    for (let sent = 0; sent < TOTAL; sent += CHUNK) {
      items.push(...d.push(chunk));
      peak = Math.max(peak, d.bufferedBytes);
    }
    expect(peak).toBeLessThanOrEqual(max + CHUNK);
    // The head (for the fault's text) and a short tail (where a response's id is) are all it keeps.
    expect(d.bufferedBytes).toBeLessThanOrEqual(MAX_FAULT_RAW_BYTES + REDACT_OVERLAP_BYTES + 256);
    items.push(...d.push(Buffer.concat([Buffer.from('\n'), line(req(1))])));
    items.push(...d.end());
    expect(faults(items)).toHaveLength(1);
    const f = faults(items)[0]!;
    expect(f.reason).toBe(`message exceeds ${max} bytes`);
    expect(f.bytes).toBe(TOTAL + 1);
    expect(Buffer.byteLength(f.raw)).toBeLessThanOrEqual(MAX_FAULT_RAW_BYTES);
    expect(f.raw).toMatch(/truncated/);
    expect(messages(items)).toEqual([req(1)]);
  });

  it('refuses an oversized Content-Length body with one fault and skips it as it streams (skip mode)', () => {
    const d = new FrameDecoder({ framing: 'auto', oversizeContentLength: 'skip' }); // default 4 MiB
    const items: DecodedItem[] = [...d.push(Buffer.from(`Content-Length: ${TOTAL}\r\n\r\n`))];
    expect(faults(items).map((f) => f.reason)).toEqual([`message exceeds ${4 * 1024 * 1024} bytes (Content-Length: ${TOTAL})`]);
    const chunk = Buffer.alloc(CHUNK, '{'.charCodeAt(0));
    for (let sent = 0; sent < TOTAL; sent += CHUNK) {
      items.push(...d.push(chunk));
      expect(d.bufferedBytes).toBe(0);
    }
    items.push(...d.push(cl(req(2))), ...d.end());
    expect(faults(items)).toHaveLength(1);
    expect(messages(items)).toEqual([req(2)]);
  });

  it('refuses a line that arrives whole but is over the limit', () => {
    const d = new FrameDecoder({ framing: 'line', maxMessageBytes: 100 });
    const items = decodeAll(d, [Buffer.concat([line(req(1, 'x'.repeat(200))), line(note)])]);
    expect(faults(items).map((f) => f.reason)).toEqual(['message exceeds 100 bytes']);
    expect(messages(items)).toEqual([note]);
  });

  it('cuts fault text on a character boundary', () => {
    const garbage = Buffer.from('é'.repeat(5000) + '\n');
    const [f] = faults(decodeAll(new FrameDecoder({ framing: 'line' }), [garbage]));
    expect(Buffer.byteLength(f!.raw)).toBeLessThanOrEqual(MAX_FAULT_RAW_BYTES);
    expect(f!.raw).not.toContain('\uFFFD');
    expect(f!.raw).toMatch(/^é+ … \[truncated, 10000 bytes\]$/);
  });
});

describe('encodeMessage', () => {
  it('round-trips through the decoder in both framings', () => {
    for (const framing of ['line', 'content-length'] as const) {
      const buf = Buffer.concat([encodeMessage(req(1), framing), encodeText(JSON.stringify(res), framing)]);
      const items = decodeAll(new FrameDecoder({ framing }), [buf]);
      expect(messages(items)).toEqual([req(1), res]);
      expect(items.reduce((n, i) => n + i.bytes, 0)).toBe(buf.length);
    }
    expect(encodeMessage(note, 'content-length').toString()).toBe(
      `Content-Length: ${JSON.stringify(note).length}\r\n\r\n${JSON.stringify(note)}`,
    );
  });
});
