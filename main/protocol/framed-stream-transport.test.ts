import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FramedStreamTransport, type FramedStreamObserver } from './framed-stream-transport';
import { encodeMessage, type DecodedFault, type WireFraming } from './framing';
import { LineSplitter } from './line-splitter';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string): string => `${root}tests/fixtures/protocol/${name}`;
const everything = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface Spawned {
  child: ChildProcess;
  stderr: () => string[];
}
function start(script: string, args: string[] = []): Spawned {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const splitter = new LineSplitter();
  const lines: string[] = [];
  child.stderr!.on('data', (c: Buffer) => lines.push(...splitter.push(c)));
  child.stderr!.on('end', () => lines.push(...splitter.end()));
  return { child, stderr: () => lines };
}

interface Recorded {
  observer: Required<FramedStreamObserver>;
  inbound: { message: JSONRPCMessage; bytes: number; framing: WireFraming }[];
  outbound: { message: JSONRPCMessage; bytes: number; framing: WireFraming }[];
  faults: DecodedFault[];
}
function recorder(): Recorded {
  const r: Recorded = {
    inbound: [],
    outbound: [],
    faults: [],
    observer: {
      inbound: (message, bytes, framing) => r.inbound.push({ message, bytes, framing }),
      outbound: (message, bytes, framing) => r.outbound.push({ message, bytes, framing }),
      fault: (item) => r.faults.push(item),
    },
  };
  return r;
}

const newClient = (): Client => new Client({ name: 'gatehouse-test', version: '0.0.0' });

describe('FramedStreamTransport under the SDK Client, against real child processes', () => {
  it('lists the tools of server-everything over stdio', async () => {
    const { child } = start(everything, ['stdio']);
    const transport = new FramedStreamTransport(child.stdout!, child.stdin!, { framing: 'auto' });
    const client = newClient();
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { message: 'grüß dich 🦊' } });
    expect(JSON.stringify(result.content)).toContain('grüß dich 🦊');
    expect(transport.detectedFraming).toBe('line');
    await client.close();
  });

  it('talks to a server that speaks Content-Length framing only, with exact byte counts', async () => {
    const { child } = start(fixture('cl-server.mjs'));
    const rec = recorder();
    const transport = new FramedStreamTransport(child.stdout!, child.stdin!, {
      framing: 'content-length',
      observer: rec.observer,
    });
    const client = newClient();
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools).toEqual([{ name: 'grüße', description: 'says hello in 日本語 ✓', inputSchema: { type: 'object' } }]);
    await client.ping();
    expect(rec.faults).toEqual([]);
    expect(rec.inbound.every((e) => e.framing === 'content-length')).toBe(true);
    expect(rec.outbound.map((e) => (e.message as { method: string }).method)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'ping',
    ]);
    for (const e of rec.outbound) expect(e.bytes).toBe(encodeMessage(e.message, 'content-length').length);
    // The tools/list response: headers (with Content-Type) + a body whose length is in bytes.
    const list = rec.inbound[1]!;
    const body = Buffer.byteLength(JSON.stringify(list.message));
    const headers = `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: ${body}\r\n\r\n`;
    expect(list.bytes).toBe(headers.length + body);
    await client.close();
  });

  it('reads Content-Length in auto mode once told how to write', async () => {
    const { child } = start(fixture('cl-server.mjs'));
    const transport = new FramedStreamTransport(child.stdout!, child.stdin!, { framing: 'auto', writeFraming: 'content-length' });
    const client = newClient();
    await client.connect(transport);
    expect((await client.listTools()).tools[0]!.name).toBe('grüße');
    expect(transport.detectedFraming).toBe('content-length');
    await client.close();
  });

  it('keeps working when the server prints garbage on stdout, and flags each line', async () => {
    const { child } = start(fixture('garbage-server.mjs'));
    const rec = recorder();
    const errors: Error[] = [];
    const transport = new FramedStreamTransport(child.stdout!, child.stdin!, { framing: 'auto', observer: rec.observer });
    const client = newClient();
    client.onerror = (e) => errors.push(e);
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['noop']);
    await client.ping();
    expect(rec.faults.map((f) => [f.raw, f.reason.split(':')[0]])).toEqual([
      ['garbage-server v1 starting… ✓', 'not JSON'],
      ['{"this is": not json', 'not JSON'],
      ['{"hello":"world","secret":"tok-SECRET-1234"}', 'not JSON-RPC 2.0'],
      ['DEBUG: listed tools', 'not JSON'],
    ]);
    expect(rec.faults[0]!.bytes).toBe(Buffer.byteLength('garbage-server v1 starting… ✓\n'));
    expect(errors).toEqual([]); // faults are observed, not errors
    await client.close();
  });

  it('closes once and fails the in-flight request when the server exits mid-request', async () => {
    const { child } = start(fixture('exit-server.mjs'));
    const rec = recorder();
    const transport = new FramedStreamTransport(child.stdout!, child.stdin!, { framing: 'auto', observer: rec.observer });
    const client = newClient();
    await client.connect(transport);
    let closes = 0;
    const onclose = transport.onclose;
    transport.onclose = () => {
      closes++;
      onclose?.();
    };
    await expect(client.listTools()).rejects.toThrow(/Connection closed/);
    expect(closes).toBe(1);
    // The half-written response is flushed at end of stream as a fault, not lost silently.
    expect(rec.faults.map((f) => f.reason)).toEqual([expect.stringMatching(/^not JSON: /)]);
    expect(rec.faults[0]!.raw).toMatch(/^\{"jsonrpc":"2.0","id":1,"res$/);
    await client.close();
    expect(closes).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });
});

describe('FramedStreamTransport under the SDK server', () => {
  function echoServer(): McpServer {
    const server = new McpServer({ name: 'echo-server', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({
      content: [{ type: 'text', text: `echo: ${text}` }],
    }));
    return server;
  }

  it('answers each request in the framing it came in (mirror), driven by a child client', async () => {
    const { child, stderr } = start(fixture('mirror-client.mjs'));
    const rec = recorder();
    const server = echoServer();
    const transport = new FramedStreamTransport(child.stdout!, child.stdin!, {
      framing: 'auto',
      writeFraming: 'mirror',
      observer: rec.observer,
    });
    await server.connect(transport);
    const [code] = await once(child, 'exit');
    await vi.waitFor(() => expect(stderr().length).toBeGreaterThan(0));
    expect(code).toBe(0);
    const report = JSON.parse(stderr()[0]!) as { responses: unknown[] };
    expect(report.responses).toEqual([
      { id: 1, framing: 'line' },
      { id: 2, framing: 'content-length' },
      { id: 3, framing: 'line', text: 'echo: zwölf 🦊' },
      { id: 'four', framing: 'content-length', text: 'echo: ünïcødé' },
    ]);
    expect(rec.inbound.map((e) => e.framing)).toEqual(['line', 'content-length', 'content-length', 'line', 'content-length']);
    expect(rec.faults).toEqual([]);
    await server.close();
  });

  it('connects an SDK Client and McpServer over a pair of in-process pipes', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const serverTransport = new FramedStreamTransport(toServer, toClient, { framing: 'auto' });
    const clientTransport = new FramedStreamTransport(toClient, toServer, { framing: 'content-length' });
    const server = echoServer();
    let serverCloses = 0;
    server.server.onclose = () => serverCloses++;
    await server.connect(serverTransport);
    const client = newClient();
    await client.connect(clientTransport);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'ça marche' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: ça marche' }]);
    // The server detected Content-Length from the client's first message and answers in kind.
    expect(serverTransport.detectedFraming).toBe('content-length');
    await client.close(); // ends toServer: the server side sees end of stream
    await vi.waitFor(() => expect(serverCloses).toBe(1));
  });
});

describe('FramedStreamTransport streams', () => {
  it.each([
    ['a child that has exited (stdin destroyed)', 'process.exit(0)', 'exit', 'ERR_STREAM_DESTROYED'],
    ['a live child that closed its stdin', "require('fs').closeSync(0); process.stderr.write('closed\\n'); setInterval(() => {}, 1000)", 'stderr', 'EPIPE'],
  ])('reports a write to %s once, without crashing, and rejects later sends', async (_name, code, waitFor, errorCode) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'ignore', 'pipe'] });
    children.push(child);
    if (waitFor === 'exit') await once(child, 'exit');
    else await once(child.stderr!, 'data');
    const readable = new PassThrough(); // stays open: only the write side is broken
    const transport = new FramedStreamTransport(readable, child.stdin!, { framing: 'line' });
    const errors: Error[] = [];
    transport.onerror = (e) => errors.push(e);
    await transport.start();
    const msg: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
    await transport.send(msg).catch(() => {});
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect((errors[0] as NodeJS.ErrnoException).code).toBe(errorCode);
    for (let i = 0; i < 5; i++) await expect(transport.send(msg)).rejects.toBeInstanceOf(Error);
    expect(errors).toHaveLength(1);
    await transport.close();
  });

  it('waits for drain under backpressure, keeps order, and shares one drain listener', async () => {
    const received: Buffer[] = [];
    let peakDrainListeners = 0;
    const slow: Writable = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, cb) {
        received.push(chunk);
        peakDrainListeners = Math.max(peakDrainListeners, slow.listenerCount('drain'));
        setImmediate(cb);
      },
    });
    const transport = new FramedStreamTransport(new PassThrough(), slow, { framing: 'line' });
    await transport.start();
    const big = 'x'.repeat(4096);
    const sends = Array.from({ length: 200 }, (_, i) =>
      transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `${i}:${big}` } }),
    );
    await Promise.all(sends);
    const lines = Buffer.concat(received).toString('utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { params: { data: string } }).params.data.split(':')[0])).toEqual(
      Array.from({ length: 200 }, (_, i) => String(i)),
    );
    expect(peakDrainListeners).toBeLessThanOrEqual(1);
    await transport.close();
  });

  it('calls onclose once for close() and once for end of stream', async () => {
    const a = new PassThrough();
    const t1 = new FramedStreamTransport(a, new PassThrough(), { framing: 'line' });
    let c1 = 0;
    t1.onclose = () => c1++;
    await t1.start();
    await t1.close();
    await t1.close();
    a.end();
    a.destroy();
    expect(c1).toBe(1);

    const b = new PassThrough();
    const t2 = new FramedStreamTransport(b, new PassThrough(), { framing: 'line' });
    let c2 = 0;
    const seen: JSONRPCMessage[] = [];
    t2.onclose = () => c2++;
    t2.onmessage = (m) => seen.push(m);
    await t2.start();
    b.end('{"jsonrpc":"2.0","method":"last"}'); // no newline: flushed at end of stream
    await vi.waitFor(() => expect(c2).toBe(1));
    b.destroy();
    await t2.close();
    expect(c2).toBe(1);
    expect(seen).toEqual([{ jsonrpc: '2.0', method: 'last' }]);
  });

  it('survives an onmessage handler that throws, reporting it as an error', async () => {
    const input = new PassThrough();
    const transport = new FramedStreamTransport(input, new PassThrough(), { framing: 'line' });
    const errors: Error[] = [];
    const seen: unknown[] = [];
    transport.onerror = (e) => errors.push(e);
    transport.onmessage = (m) => {
      seen.push(m);
      if (seen.length === 1) throw new Error('handler bug');
    };
    await transport.start();
    input.write('{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}\n');
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(errors.map((e) => e.message)).toEqual(['handler bug']);
    await transport.close();
  });
});

describe('FramedStreamTransport write coalescing', () => {
  it('writes the frames sent in one turn of the event loop as one writev, in order, and a later turn separately', async () => {
    const writes: string[][] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        writes.push([chunk.toString('utf8')]);
        cb();
      },
      writev(chunks, cb) {
        writes.push(chunks.map((c) => (c.chunk as Buffer).toString('utf8')));
        cb();
      },
    });
    const outbound: string[] = [];
    const transport = new FramedStreamTransport(new PassThrough(), sink, {
      framing: 'line',
      observer: { outbound: (_m, _b, _f, text) => outbound.push(text ?? '') },
    });
    await transport.start();
    const msg = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { n: id } });
    await Promise.all([transport.send(msg(1)), transport.send(msg(2)), transport.send(msg(3))]);
    await new Promise((r) => setImmediate(r));
    await transport.send(msg(4));
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual([
      [1, 2, 3].map((id) => `${JSON.stringify(msg(id))}\n`),
      [`${JSON.stringify(msg(4))}\n`],
    ]);
    // The observer gets the text that was written, for the audit writer to reuse.
    expect(outbound).toEqual([1, 2, 3, 4].map((id) => JSON.stringify(msg(id))));
    await transport.close();
  });

  it('still reports backpressure: a send over the high-water mark waits for drain', async () => {
    let release: (() => void) | undefined;
    const sink = new Writable({
      highWaterMark: 64,
      write(_chunk, _enc, cb) {
        release = cb;
      },
      writev(_chunks, cb) {
        release = cb;
      },
    });
    const transport = new FramedStreamTransport(new PassThrough(), sink, { framing: 'line' });
    await transport.start();
    let done = false;
    const sent = transport.send({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(200) } }).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    release?.();
    await sent;
    expect(done).toBe(true);
    await transport.close();
  });
});
