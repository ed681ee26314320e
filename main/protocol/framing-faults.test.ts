// Framing that cannot wedge (docs/gateway.md "Messages (both sides, stdio and HTTP)"): lying Content-Lengths, missing bodies, frames that never
// complete, nesting beyond the limit and ids JSON cannot carry exactly.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FrameDecoder, type DecodedFault, type DecodedItem } from './framing';
import { FramedStreamTransport } from './framed-stream-transport';
import { errorResponseText, inexactId, MAX_JSON_DEPTH, numericIdExact, scanJson } from './json-limits';

const faults = (items: DecodedItem[]): DecodedFault[] => items.filter((i): i is DecodedFault => i.type === 'fault');
const messages = (items: DecodedItem[]): JSONRPCMessage[] => items.flatMap((i) => (i.type === 'message' ? [i.message] : []));
const req = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping' });
const cl = (msg: unknown, length?: number): Buffer => {
  const body = Buffer.from(JSON.stringify(msg));
  return Buffer.concat([Buffer.from(`Content-Length: ${length ?? body.length}\r\n\r\n`), body]);
};
const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);

describe('Content-Length that lies', () => {
  it('an absurd Content-Length is one fatal fault, not a skip that swallows everything after it', () => {
    const d = new FrameDecoder({ framing: 'auto' });
    const items = d.push(Buffer.from('Content-Length: 999999999999999\r\n\r\n'));
    expect(faults(items)).toHaveLength(1);
    expect(faults(items)[0]!.fatal).toBe(true);
    expect(faults(items)[0]!.reason).toMatch(/Content-Length 999999999999999 exceeds the message limit .* out of sync/);
    expect(d.midFrame).toBe(false);
    // In skip mode too, beyond 16x the limit.
    const s = new FrameDecoder({ framing: 'auto', oversizeContentLength: 'skip' });
    expect(faults(s.push(Buffer.from('Content-Length: 999999999999999\r\n\r\n')))[0]!.fatal).toBe(true);
  });

  it('a Content-Length 50 KB too long is reported fatal when the body runs into the next frame, and what it swallowed is decoded', () => {
    const d = new FrameDecoder({ framing: 'auto' });
    const first = Buffer.from(JSON.stringify(req(1)));
    const lie = Buffer.concat([Buffer.from(`Content-Length: ${first.length + 50_000}\r\n\r\n`), first]);
    const items: DecodedItem[] = [...d.push(lie)];
    expect(items).toHaveLength(0);
    // The next frames arrive and fill the lying body.
    const next = Buffer.concat(Array.from({ length: 2000 }, (_, i) => cl(req(i + 2))));
    items.push(...d.push(next));
    const f = faults(items);
    expect(f[0]!.fatal).toBe(true);
    expect(f[0]!.reason).toMatch(/does not match its body: the next frame starts/);
    // Not silent: the swallowed frames come back out.
    expect(messages(items).length).toBeGreaterThan(1000);
  });

  it('a missing body does not swallow the next message silently', () => {
    const d = new FrameDecoder({ framing: 'auto' });
    const items = [...d.push(Buffer.from('Content-Length: 60\r\n\r\n')), ...d.push(cl(req(7))), ...d.push(cl(req(8)))];
    expect(faults(items)).toHaveLength(1);
    expect(faults(items)[0]!.fatal).toBe(true);
    expect(messages(items)).toContainEqual(req(8));
  });

  it('a frame that never completes is abandoned as fatal', () => {
    const d = new FrameDecoder({ framing: 'auto' });
    d.push(Buffer.from('Content-Length: 300\r\n\r\n{"jsonrpc":"2.0"'));
    expect(d.midFrame).toBe(true);
    const f = d.abandon('frame not completed within 10s')!;
    expect(f.fatal).toBe(true);
    expect(f.reason).toMatch(/16 of 300 Content-Length body bytes/);
    expect(d.midFrame).toBe(false);
    expect(messages(d.push(cl(req(3))))).toEqual([req(3)]);
  });

  it('the transport ends a server stream whose frame misses its deadline, and closes on fatal faults', async () => {
    const out = new PassThrough();
    const t = new FramedStreamTransport(out, new PassThrough(), { framing: 'auto', frameDeadlineMs: 100, closeOnFatal: true });
    const seen: DecodedFault[] = [];
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    (t as unknown as { options: { observer: unknown } }).options.observer = { fault: (f: DecodedFault) => seen.push(f) };
    await t.start();
    out.write('Content-Length: 40\r\n\r\n{"jsonrpc"');
    await closed;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.fatal).toBe(true);
    expect(seen[0]!.reason).toMatch(/frame not completed within 0.1s/);
  });
});

describe('nesting limit', () => {
  it(`refuses a message nested deeper than ${MAX_JSON_DEPTH} before parsing, keeping its id`, () => {
    const d = new FrameDecoder({ framing: 'line' });
    const text = `{"jsonrpc":"2.0","id":41,"result":{"v":${deep(10_000)}}}\n`;
    const [f] = faults(d.push(Buffer.from(text)));
    expect(f!.reason).toMatch(/nested deeper than 128 levels/);
    expect(f!.rawId).toBe('41');
    expect(f!.response).toBe(true);
  });

  it('accepts nesting up to the limit', () => {
    const d = new FrameDecoder({ framing: 'line' });
    const text = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"v":${deep(MAX_JSON_DEPTH - 2)}}}\n`;
    expect(messages(d.push(Buffer.from(text)))).toHaveLength(1);
  });

  it('the scanner ignores brackets and quotes inside strings', () => {
    const s = scanJson(`{"a":"[[[[\\"{{{{","id":"x\\"y"}`);
    expect(s.depth).toBe(1);
    expect(s.rawId).toBe('"x\\"y"');
  });
});

describe('exact ids', () => {
  it.each(['9007199254740993', '1e30', '9007199254740992', '1.0000000000000001', '-9007199254740993'])('refuses id %s', (raw) => {
    const text = `{"jsonrpc":"2.0","id":${raw},"method":"ping"}`;
    const r = inexactId(text, JSON.parse(text));
    expect(r?.rawId).toBe(raw);
    const d = new FrameDecoder({ framing: 'line' });
    const [f] = faults(d.push(Buffer.from(text + '\n')));
    expect(f!.reason).toMatch(/cannot be carried exactly/);
    expect(f!.rawId).toBe(raw);
  });

  it.each(['7', '-3', '9007199254740991', '1e3', '7.0', '0'])('keeps id %s', (raw) => {
    const text = `{"jsonrpc":"2.0","id":${raw},"method":"ping"}`;
    expect(inexactId(text, JSON.parse(text))).toBeUndefined();
  });

  it('decimal check is exact', () => {
    expect(numericIdExact('1e3', 1000)).toBe(true);
    expect(numericIdExact('100.00e-2', 1)).toBe(true);
    expect(numericIdExact('1.5', 1.5)).toBe(false);
  });

  it('answers with the id exactly as written', () => {
    const text = errorResponseText('9007199254740993', -32600, 'Invalid Request');
    expect(text).toBe('{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32600,"message":"Invalid Request"}}');
    expect(errorResponseText('{"evil":1}', -32600, 'x')).toContain('"id":null');
  });
});

describe('refused responses answer their request', () => {
  it('a too-deep response becomes an error for its id on the client side', async () => {
    const out = new PassThrough();
    const t = new FramedStreamTransport(out, new PassThrough(), { framing: 'line', answerRefusedResponses: true });
    const got: JSONRPCMessage[] = [];
    t.onmessage = (m) => got.push(m);
    await t.start();
    out.write(`{"jsonrpc":"2.0","id":5,"result":{"v":${deep(5000)}}}\n`);
    await new Promise((r) => setImmediate(r));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ id: 5, error: { code: -32603 } });
    expect((got[0] as { error: { message: string } }).error.message).toMatch(/refused by the gateway: JSON nested deeper/);
  });

  it('an oversized response line answers its request when its id can be read from the tail', () => {
    const d = new FrameDecoder({ framing: 'line', maxMessageBytes: 1000 });
    const text = `{"result":{"content":[{"type":"text","text":"${'x'.repeat(5000)}"}]},"jsonrpc":"2.0","id":12}\n`;
    const [f] = faults([...d.push(Buffer.from(text.slice(0, 3000))), ...d.push(Buffer.from(text.slice(3000)))]);
    expect(f!.reason).toBe('message exceeds 1000 bytes');
    expect(f!.rawId).toBe('12');
    expect(f!.response).toBe(true);
  });
});
