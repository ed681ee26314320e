import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Redactor } from '../secrets/redactor';
import { FramedStreamTransport } from './framed-stream-transport';
import { classifyMessage, StderrBus, TrafficTap } from './traffic-tap';
import { ExchangeChannel } from './exchange-channel';
import { ExchangeTable } from '../gateway/exchanges';
import type { TrafficEvent } from './types';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SECRET = 'tok-SECRET-1234';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function echoServer(): McpServer {
  const server = new McpServer({ name: 'echo-server', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  return server;
}

describe('classifyMessage', () => {
  it('names the four JSON-RPC kinds', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual({ kind: 'request', method: 'tools/list', id: 1 });
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      kind: 'notification',
      method: 'notifications/initialized',
    });
    expect(classifyMessage({ jsonrpc: '2.0', id: 'x', result: {} })).toEqual({ kind: 'response', id: 'x' });
    expect(classifyMessage({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'nope' } })).toEqual({ kind: 'error', id: 2 });
    expect(classifyMessage({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error' } } as JSONRPCMessage)).toEqual({ kind: 'error' });
  });
});

describe('the exchange channel as a framed stream\'s observer, on a real server process', () => {
  it('records every message and fault of the hop, redacted, with methods and latency on responses', async () => {
    const child: ChildProcess = spawn(process.execPath, [`${root}tests/fixtures/protocol/garbage-server.mjs`], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    const tap = new TrafficTap();
    cleanups.push(() => tap.close());
    const redactor = new Redactor();
    redactor.add('FILES_KEY', SECRET);
    const { observer } = new ExchangeChannel({
      tap,
      meta: { session: 'launch-1', server: 'files', inbound: 'server_to_gateway', outbound: 'gateway_to_server' },
      redactor,
      observed: true,
      routes: { ledger: new ExchangeTable() },
    });
    const transport = new FramedStreamTransport(child.stdout!, child.stdin!, { framing: 'auto', observer });
    const delivered: TrafficEvent[] = [];
    tap.subscribe((batch) => delivered.push(...batch), { intervalMs: 1 });
    // The secret travels in a real message: the client's name in `initialize`.
    const client = new Client({ name: `client ${SECRET}`, version: '1' });
    await client.connect(transport);
    await client.listTools();
    // The server writes a DEBUG line right after the tools/list answer; it may reach us in a later
    // chunk than the answer. Wait for it, so the ping's legs come after it in the record.
    const faults = () => tap.snapshot().filter((e) => e.kind === 'fault').length;
    for (let i = 0; i < 200 && faults() < 4; i++) await new Promise((r) => setTimeout(r, 10));
    await client.ping();
    await client.close();

    const events = tap.snapshot();
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.every((e) => e.session === 'launch-1' && e.server === 'files')).toBe(true);
    expect(events.map((e) => [e.direction, e.kind, e.method ?? null, e.id ?? null])).toEqual([
      ['gateway_to_server', 'request', 'initialize', 0],
      ['server_to_gateway', 'fault', null, null], // the banner
      ['server_to_gateway', 'fault', null, null], // half JSON
      ['server_to_gateway', 'response', 'initialize', 0],
      ['gateway_to_server', 'notification', 'notifications/initialized', null],
      ['gateway_to_server', 'request', 'tools/list', 1],
      ['server_to_gateway', 'fault', null, null], // JSON, not JSON-RPC, carrying the secret
      ['server_to_gateway', 'response', 'tools/list', 1],
      ['server_to_gateway', 'fault', null, null], // DEBUG line
      ['gateway_to_server', 'request', 'ping', 2],
      ['server_to_gateway', 'response', 'ping', 2],
    ]);
    const init = events[0]!;
    expect((init.message as { params: { clientInfo: { name: string } } }).params.clientInfo.name).toBe('client «secret:FILES_KEY»');
    // Bytes are the wire bytes of what was sent (the secret itself, plus the newline).
    expect(init.bytes).toBe(Buffer.byteLength(JSON.stringify(init.message).replace('«secret:FILES_KEY»', SECRET)) + 1);
    const secretFault = events[6]!;
    expect(secretFault.message).toEqual({ raw: '{"hello":"world","secret":"«secret:FILES_KEY»"}' });
    expect(secretFault.fault).toMatch(/^not JSON-RPC 2.0: /);
    expect(events[1]!.fault).toMatch(/^not JSON: /);
    expect(events[3]!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(events[0]!.latencyMs).toBeUndefined();
    // Every leg of a lifecycle request is stamped with its exchange when it is read: the answer
    // joins its request by exchange id (the ledger paired them, nobody downstream has to).
    const pairs: [number, number][] = [[0, 3], [5, 7], [9, 10]];
    for (const [req, res] of pairs) {
      expect(events[req]!.exchange).toBeDefined();
      expect(events[res]!.exchange).toBe(events[req]!.exchange);
    }
    expect(new Set(pairs.map(([r]) => events[r]!.exchange)).size).toBe(3);
    expect(events[4]!.exchange).toBeUndefined(); // notifications/initialized belongs to no request
    expect(events.filter((e) => e.kind === 'fault').every((e) => e.exchange === undefined)).toBe(true);
    // The protocol path never waited: the subscriber gets the same events later, in a batch.
    await vi.waitFor(() => expect(delivered).toEqual(events));
  });
});

describe('the exchange channel on a transport that is not a framed stream', () => {
  it('forwards everything unchanged and in order (in-memory pair)', async () => {
    const tap = new TrafficTap();
    cleanups.push(() => tap.close());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sentToInner: JSONRPCMessage[] = [];
    const innerSend = clientSide.send.bind(clientSide);
    clientSide.send = (m, o) => {
      sentToInner.push(m);
      return innerSend(m, o);
    };
    const tapped = new ExchangeChannel({
      tap,
      meta: { session: 's', agentSession: 'agent-1', inbound: 'gateway_to_agent', outbound: 'agent_to_gateway' },
      routes: { ledger: new ExchangeTable() },
    }).attach(clientSide);
    const server = echoServer();
    await server.connect(serverSide);
    const client = new Client({ name: 'c', version: '1' });
    let closes = 0;
    client.onclose = () => closes++;
    await client.connect(tapped);
    const results = await Promise.all(['a', 'b', 'c'].map((t) => client.callTool({ name: 'echo', arguments: { text: t } })));
    expect(results.map((r) => (r.content as { text: string }[])[0]!.text)).toEqual(['echo: a', 'echo: b', 'echo: c']);

    const events = tap.snapshot();
    const outbound = events.filter((e) => e.direction === 'agent_to_gateway');
    // Same objects, same order, as the inner transport was given.
    expect(outbound.map((e) => e.message)).toEqual(sentToInner);
    outbound.forEach((e, i) => expect(e.message).toBe(sentToInner[i]));
    expect(events.every((e) => e.bytes === Buffer.byteLength(JSON.stringify(e.message)))).toBe(true);
    expect(events.every((e) => e.agentSession === 'agent-1' && e.server === undefined)).toBe(true);
    const calls = events.filter((e) => e.method === 'tools/call');
    expect(calls.map((e) => [e.direction, e.kind])).toEqual([
      ['agent_to_gateway', 'request'],
      ['agent_to_gateway', 'request'],
      ['agent_to_gateway', 'request'],
      ['gateway_to_agent', 'response'],
      ['gateway_to_agent', 'response'],
      ['gateway_to_agent', 'response'],
    ]);
    await server.close(); // the peer closes: onclose is forwarded through the wrapper
    await vi.waitFor(() => expect(closes).toBe(1));
  });

  it('taps both ends of a real Streamable HTTP connection', async () => {
    const tap = new TrafficTap();
    cleanups.push(() => tap.close());
    const redactor = new Redactor();
    redactor.add('TOKEN', SECRET);
    const ledger = new ExchangeTable();
    const server = echoServer();
    const serverInner = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await server.connect(
      new ExchangeChannel({ tap, meta: { session: 's', inbound: 'agent_to_gateway', outbound: 'gateway_to_agent' }, redactor, routes: { ledger } }).attach(serverInner),
    );
    const http: HttpServer = createServer((req, res) => void serverInner.handleRequest(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => http.close(resolve)));
    cleanups.push(() => server.close());
    const { port } = http.address() as AddressInfo;

    const clientInner = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    const clientTapped = new ExchangeChannel({
      tap,
      meta: { session: 's', server: 'remote', inbound: 'server_to_gateway', outbound: 'gateway_to_server' },
      routes: { ledger },
    }).attach(clientInner);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientTapped);
    cleanups.push(() => client.close());
    const r = await client.callTool({ name: 'echo', arguments: { text: `key=${SECRET}` } });
    expect((r.content as { text: string }[])[0]!.text).toBe(`echo: key=${SECRET}`); // messages are not changed
    expect(clientTapped.sessionId).toBeDefined();
    expect(clientTapped.sessionId).toBe(serverInner.sessionId);
    expect(clientInner.protocolVersion).toBeDefined(); // setProtocolVersion reached the inner transport

    const events = tap.snapshot();
    const call = (direction: string, kind: string) =>
      events.find((e) => e.method === 'tools/call' && e.direction === direction && e.kind === kind)!;
    // The client-side hop is not redacted (no redactor given); the server-side hop is.
    expect(JSON.stringify(call('gateway_to_server', 'request').message)).toContain(SECRET);
    expect(JSON.stringify(call('agent_to_gateway', 'request').message)).toContain('«secret:TOKEN»');
    expect(JSON.stringify(call('gateway_to_agent', 'response').message)).not.toContain(SECRET);
    expect(call('server_to_gateway', 'response').latencyMs).toBeGreaterThanOrEqual(0);
  });
});

describe('StderrBus', () => {
  it('carries stderr lines with their own seqs', () => {
    const bus = new StderrBus({ capacity: 2 });
    for (const line of ['a', 'b', 'c']) bus.publish({ ts: 0, session: 's', server: 'files', run: 1, line });
    expect(bus.snapshot().map((l) => [l.seq, l.line])).toEqual([
      [2, 'b'],
      [3, 'c'],
    ]);
    bus.close();
  });
});
