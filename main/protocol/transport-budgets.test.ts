// Byte budgets of a framed stream (docs/gateway.md "Messages (both sides, stdio and HTTP)"): a peer that does not read gets requests refused
// (not buffered without end) and notifications dropped (never answers); a peer that floods is
// read at its budget rate (reading pauses, so its writes block in its own pipe); its
// notifications are relayed at their own byte rate.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FramedStreamTransport } from './framed-stream-transport';

/** A writable that never drains: its buffer only grows, as a child that stopped reading. */
const stuck = (): Writable => new Writable({ highWaterMark: 1024, write: () => {} });

describe('transport byte budgets', () => {
  it('refuses to queue more than maxQueuedWriteBytes for a peer that does not read', async () => {
    const t = new FramedStreamTransport(new PassThrough(), stuck(), { framing: 'line', maxQueuedWriteBytes: 100_000 });
    await t.start();
    const big: JSONRPCMessage = { jsonrpc: '2.0', id: 1, method: 'x', params: { pad: 'p'.repeat(60_000) } };
    void t.send(big);
    void t.send({ ...big, id: 2 });
    await expect(t.send({ ...big, id: 3 })).rejects.toThrow(/bytes are already waiting for the peer to read \(limit 100000\); it is not reading its input/);
  });

  it('drops notifications, never responses, once dropNotificationsOverBytes wait', async () => {
    const out = stuck();
    const t = new FramedStreamTransport(new PassThrough(), out, { framing: 'line', dropNotificationsOverBytes: 10_000, maxQueuedWriteBytes: 0 });
    await t.start();
    const note: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'n'.repeat(20_000) } };
    void t.send(note);
    void t.send(note);
    void t.send(note);
    expect(t.droppedNotifications).toBe(2);
    const before = out.writableLength;
    void t.send({ jsonrpc: '2.0', id: 9, result: {} });
    expect(out.writableLength).toBeGreaterThan(before); // the answer still goes
  });

  it('reads a flooding peer at its budget: reading pauses, the rest waits in the pipe', async () => {
    const input = new PassThrough();
    const pauses: number[] = [];
    const t = new FramedStreamTransport(input, new PassThrough(), {
      framing: 'line',
      inboundBytesPerSecond: 1_000_000,
      inboundBurstBytes: 1_000_000,
      onThrottle: (ms) => pauses.push(ms),
    });
    let got = 0;
    t.onmessage = () => got++;
    await t.start();
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { pad: 'x'.repeat(100_000) } }) + '\n';
    for (let i = 0; i < 40; i++) input.write(line);
    await new Promise((r) => setTimeout(r, 200));
    expect(pauses.length).toBeGreaterThan(0);
    expect(input.isPaused()).toBe(true);
    expect(got).toBeLessThan(40);
    await t.close();
  });

  it('relays notifications at their own byte rate and counts the rest', async () => {
    const input = new PassThrough();
    const counts: number[] = [];
    const t = new FramedStreamTransport(input, new PassThrough(), {
      framing: 'line',
      maxMessageBytes: 1024 * 1024,
      notificationBytesPerSecond: 1024 * 1024,
      onNotificationsDropped: (n) => counts.push(n),
    });
    const got: JSONRPCMessage[] = [];
    t.onmessage = (m) => got.push(m);
    await t.start();
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'y'.repeat(300_000) } }) + '\n';
    for (let i = 0; i < 10; i++) input.write(note);
    input.write(JSON.stringify({ jsonrpc: '2.0', id: 4, result: {} }) + '\n');
    await new Promise((r) => setImmediate(r));
    expect(got.filter((m) => 'method' in m).length).toBeLessThanOrEqual(4);
    expect(got.some((m) => 'id' in m && m.id === 4)).toBe(true); // responses are never budgeted away
    expect(counts.at(-1)).toBeGreaterThanOrEqual(6);
  });
});
