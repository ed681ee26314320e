// The lean Streamable HTTP transport, driven by the SDK's own client (StreamableHTTPClientTransport
// + Client) against an McpServer, plus raw fetches for the status codes of bad requests.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, isInitializeRequest, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { LeanStreamableHTTPServerTransport, parseJsonRpcMessage } from './lean-http-transport';

interface Fixture {
  url: string;
  sessions: Map<string, { transport: LeanStreamableHTTPServerTransport; server: McpServer }>;
  close(): Promise<void>;
}

function makeServer(): McpServer {
  const server = new McpServer({ name: 'lean-test', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
    structuredContent: { echoed: message },
  }));
  server.registerTool('slow', { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
    }
    return { content: [{ type: 'text', text: `done ${steps}` }] };
  });
  server.registerTool('ask', { inputSchema: { question: z.string() } }, async ({ question }, extra) => {
    const answer = await extra.sendRequest(
      { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 10 } },
      z.looseObject({ content: z.looseObject({ text: z.string() }) }),
    );
    return { content: [{ type: 'text', text: `model said: ${answer.content.text}` }] };
  });
  return server;
}

async function startFixture(): Promise<Fixture> {
  const sessions: Fixture['sessions'] = new Map();
  const httpServer = http.createServer(async (req, res) => {
    let body: unknown;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = sessions.get(sid);
      if (!s) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
        return;
      }
      await s.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const server = makeServer();
      const transport: LeanStreamableHTTPServerTransport = new LeanStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    // Without a session id, a non-initialize request reaches a fresh transport, which says why it is refused.
    await new LeanStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() }).handleRequest(req, res, body);
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions,
    async close() {
      for (const s of sessions.values()) await s.transport.close();
      httpServer.closeAllConnections();
      await new Promise<void>((r) => httpServer.close(() => r()));
    },
  };
}

const ACCEPT_BOTH = 'application/json, text/event-stream';

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const initBody = (id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** Initializes by hand; returns the session id. */
async function rawSession(url: string): Promise<string> {
  const res = await post(url, initBody());
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  const sid = res.headers.get('mcp-session-id');
  expect(sid).toBeTruthy();
  const body = (await res.json()) as { result: { protocolVersion: string } };
  expect(body.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  const note = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
  expect(note.status).toBe(202);
  return sid!;
}

describe('LeanStreamableHTTPServerTransport with the SDK client', () => {
  let fx: Fixture;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  beforeEach(async () => {
    fx = await startFixture();
    client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    transport = new StreamableHTTPClientTransport(new URL(fx.url));
    await client.connect(transport);
  });
  afterEach(async () => {
    await client.close().catch(() => {});
    await fx.close();
  });

  it('initializes a session and echoes, structuredContent intact', async () => {
    expect(transport.sessionId).toBeTruthy();
    expect(fx.sessions.has(transport.sessionId!)).toBe(true);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    expect(result.structuredContent).toEqual({ echoed: 'hi' });
    expect(fx.sessions.get(transport.sessionId!)!.transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('serves many concurrent calls on one session', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => client.callTool({ name: 'echo', arguments: { message: `m${i}` } })));
    results.forEach((r, i) => expect(r.content).toEqual([{ type: 'text', text: `Echo: m${i}` }]));
  });

  it('streams progress before the result (switches that response to SSE)', async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'done 3' }]);
  });

  it('round-trips a sampling request made during a tool call', async () => {
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: `re: ${(req.params.messages[0]!.content as { text: string }).text}` },
    }));
    const result = await client.callTool({ name: 'ask', arguments: { question: 'why?' } });
    expect(result.content).toEqual([{ type: 'text', text: 'model said: re: why?' }]);
  });

  it('delivers server-initiated notifications on the GET stream', async () => {
    const got = new Promise<unknown>((resolve) => client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(n.params.data)));
    const { server } = fx.sessions.get(transport.sessionId!)!;
    // The client opens its GET stream after initialization; give it a moment to be in place.
    for (let i = 0; i < 50 && !(server.server.transport as unknown as { standalone?: unknown }).standalone; i++) await new Promise((r) => setTimeout(r, 20));
    await server.server.sendLoggingMessage({ level: 'info', data: 'hello from the server' });
    await expect(got).resolves.toBe('hello from the server');
  });

  it('ends the session on DELETE (terminateSession); the id is then unknown', async () => {
    const sid = transport.sessionId!;
    await transport.terminateSession();
    expect(fx.sessions.has(sid)).toBe(false);
    const res = await post(fx.url, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'mcp-session-id': sid });
    expect(res.status).toBe(404);
  });
});

describe('LeanStreamableHTTPServerTransport refuses bad requests like the SDK transport', () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('406 when Accept lacks either type; 415 for a non-JSON Content-Type', async () => {
    const r1 = await post(fx.url, initBody(), { accept: 'application/json' });
    expect(r1.status).toBe(406);
    expect(((await r1.json()) as { error: { code: number } }).error.code).toBe(-32000);
    const r2 = await post(fx.url, initBody(), { 'content-type': 'text/plain' });
    expect(r2.status).toBe(415);
    const sid = await rawSession(fx.url);
    const r3 = await fetch(fx.url, { headers: { accept: 'application/json', 'mcp-session-id': sid } });
    expect(r3.status).toBe(406);
  });

  it('400 without a session id, 404 for an unknown one, 400 for an unsupported protocol version', async () => {
    const sid = await rawSession(fx.url);
    const noSession = await post(fx.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(noSession.status).toBe(400);
    const unknown = fx.sessions.get(sid)!.transport;
    const res404 = await new Promise<number>((resolve) => {
      // Straight to the session's transport with a different id: the transport itself says 404.
      const srv = http.createServer((req, res) => void unknown.handleRequest(req, res));
      srv.listen(0, '127.0.0.1', async () => {
        const port = (srv.address() as AddressInfo).port;
        const r = await post(`http://127.0.0.1:${port}/mcp`, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': 'not-the-session' });
        srv.close();
        resolve(r.status);
      });
    });
    expect(res404).toBe(404);
    const badVersion = await post(fx.url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' });
    expect(badVersion.status).toBe(400);
    expect(((await badVersion.json()) as { error: { message: string } }).error.message).toMatch(/Unsupported protocol version: 1999-01-01/);
    // Absent version header: accepted (the negotiated version is assumed).
    const noVersion = await post(fx.url, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, { 'mcp-session-id': sid });
    expect(noVersion.status).toBe(200);
    expect(((await noVersion.json()) as { result: { tools: unknown[] } }).result.tools.length).toBe(3);
  });

  it('400 for a second initialize, invalid JSON and invalid JSON-RPC; 405 for PUT', async () => {
    const sid = await rawSession(fx.url);
    const h = { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const again = await post(fx.url, initBody(7), h);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const notRpc = await post(fx.url, { hello: 'world' }, h);
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const put = await fetch(fx.url, { method: 'PUT', headers: h });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('answers JSON when the response is the only message, SSE once progress comes first', async () => {
    const sid = await rawSession(fx.url);
    const h = { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const plain = await post(fx.url, { jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } }, h);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(plain.headers.get('mcp-session-id')).toBe(sid);
    expect(((await plain.json()) as { id: number }).id).toBe(20);
    const streamed = await post(fx.url, { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'slow', arguments: { steps: 2 }, _meta: { progressToken: 'p' } } }, h);
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const events = (await streamed.text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.split('data: ')[1]!) as { method?: string; id?: number });
    expect(events.map((e) => e.method ?? `response ${e.id}`)).toEqual(['notifications/progress', 'notifications/progress', 'response 21']);
  });

  it('refuses batches once 2025-06-18 or later is negotiated', async () => {
    const sid = await rawSession(fx.url);
    const res = await post(
      fx.url,
      [
        { jsonrpc: '2.0', id: 10, method: 'tools/list' },
        { jsonrpc: '2.0', id: 11, method: 'ping' },
      ],
      { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it('answers a batch in one JSON array on a 2025-03-26 session', async () => {
    const init = await post(fx.url, { ...initBody(), params: { ...initBody().params, protocolVersion: '2025-03-26' } });
    const sid = init.headers.get('mcp-session-id')!;
    await init.json();
    const res = await post(
      fx.url,
      [
        { jsonrpc: '2.0', id: 10, method: 'ping' },
        { jsonrpc: '2.0', id: 11, method: 'ping' },
      ],
      { 'mcp-session-id': sid },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { jsonrpc: '2.0', id: 10, result: {} },
      { jsonrpc: '2.0', id: 11, result: {} },
    ]);
  });

  it('409 for a second GET stream; 413 for an oversized body', async () => {
    const sid = await rawSession(fx.url);
    const h = { 'mcp-session-id': sid, accept: 'text/event-stream' };
    const first = await fetch(fx.url, { headers: h });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const second = await fetch(fx.url, { headers: h });
    expect(second.status).toBe(409);
    await first.body?.cancel();

    const small = new LeanStreamableHTTPServerTransport({ maxRequestBodySize: 64 });
    const srv = http.createServer((req, res) => void small.handleRequest(req, res));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const r = await post(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/mcp`, initBody());
    expect(r.status).toBe(413);
    srv.close();
  });

  it('202 for notifications only; DELETE answers 200 and closes', async () => {
    const sid = await rawSession(fx.url);
    const del = await fetch(fx.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
    expect(del.status).toBe(200);
    expect(fx.sessions.has(sid)).toBe(false);
  });
});

describe('parseJsonRpcMessage', () => {
  it('agrees with the SDK schema on the fast path and falls back to it otherwise', () => {
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'x' })).toBeTruthy();
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', method: 'n', params: { a: 1 } })).toBeTruthy();
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1.5, method: 'x' })).toBeUndefined();
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'x', extra: true })).toBeUndefined();
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'x', params: [] })).toBeUndefined();
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 't' } } })).toBeTruthy();
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1.5 } } })).toBeUndefined();
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1, result: {} })).toBeTruthy();
    expect(parseJsonRpcMessage({ jsonrpc: '1.0', id: 1, method: 'x' })).toBeUndefined();
  });
});
