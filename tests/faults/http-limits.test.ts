// Hostile HTTP clients against the gateway's Streamable HTTP endpoint (docs/gateway.md "HTTP endpoint"): oversized
// bodies get 413 with a JSON-RPC error (not a reset), ids JSON cannot carry exactly and nesting
// past the limit are refused with -32600 and the id as sent, sessions per token are capped
// (least recently active evicted), slow bodies and idle unauthenticated sockets are cut, and the
// connection count is capped. Real host, real sockets on 127.0.0.1.
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host, type Launch } from '../../main/host';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml } from './harness';

const TOKEN = 'http-limits-token-1234567890';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } };

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let port: number;

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, profileYaml({ args: ['--mode', 'ok'] }));
  host = new Host({
    dataDir: path.join(tmp.dir, 'data'),
    env: {
      ...process.env,
      GATEHOUSE_HTTP_MAX_SESSIONS_PER_TOKEN: '5',
      GATEHOUSE_HTTP_BODY_TIMEOUT_MS: '1500',
      GATEHOUSE_HTTP_UNAUTHENTICATED_SOCKET_MS: '1500',
      GATEHOUSE_HTTP_MAX_CONNECTIONS: '20',
    },
  });
  launch = await host.launch(file, { httpPort: 0, token: TOKEN });
  port = launch.endpoint!.port;
}, 60_000);

afterAll(async () => {
  await host?.shutdown();
  tmp?.cleanup();
});

const headers = (sid?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${TOKEN}`,
  ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } : {}),
});

async function openSession(): Promise<string> {
  const res = await fetch(launch.endpoint!.url, { method: 'POST', headers: headers(), body: JSON.stringify(INIT) });
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

/** One raw HTTP exchange on a fresh socket; resolves with what came back and whether the server closed it. */
function rawSocket(write: (s: net.Socket) => void, waitMs: number): Promise<{ data: string; closedByServer: boolean; error?: string }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let data = '';
    let closed = false;
    let error: string | undefined;
    s.on('data', (d) => (data += d.toString('utf8')));
    s.on('error', (e) => (error = e.message));
    s.on('close', () => {
      closed = true;
      resolve({ data, closedByServer: true, ...(error ? { error } : {}) });
    });
    s.on('connect', () => write(s));
    setTimeout(() => {
      if (closed) return;
      s.destroy();
      resolve({ data, closedByServer: false });
    }, waitMs);
  });
}

describe('HTTP limits', { timeout: 60_000 }, () => {
  it('a body over 4 MiB gets 413 with a JSON-RPC error body, not a reset', async () => {
    const sid = await openSession();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'good_echo', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } } });
    const res = await fetch(launch.endpoint!.url, { method: 'POST', headers: headers(sid), body: big });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/Payload Too Large: the request body exceeds 4194304 bytes/);
  });

  it.each(['9007199254740993', '1e30'])('id %s is refused with -32600 and answered with the id exactly as sent', async (rawId) => {
    const sid = await openSession();
    const res = await fetch(launch.endpoint!.url, { method: 'POST', headers: headers(sid), body: `{"jsonrpc":"2.0","id":${rawId},"method":"ping"}` });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain(`"id":${rawId},`);
    expect(text).toMatch(/-32600.*cannot be carried exactly/);
  });

  it('arguments nested 10,000 deep are refused with a clear error, not a stack overflow', async () => {
    const sid = await openSession();
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const res = await fetch(launch.endpoint!.url, {
      method: 'POST',
      headers: headers(sid),
      body: `{"jsonrpc":"2.0","id":"deep-1","method":"tools/call","params":{"name":"good_echo","arguments":{"text":${deep}}}}`,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe('deep-1');
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/nested deeper than 128 levels/);
  });

  it('sessions per token are capped: opening more evicts the least recently active', async () => {
    const sids: string[] = [];
    for (let i = 0; i < 12; i++) sids.push(await openSession());
    expect(launch.endpoint!.sessionCount()).toBeLessThanOrEqual(5);
    // The newest still works; the oldest was evicted (404).
    const ping = (sid: string) => fetch(launch.endpoint!.url, { method: 'POST', headers: headers(sid), body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) });
    expect((await ping(sids.at(-1)!)).status).toBe(200);
    expect((await ping(sids[0]!)).status).toBe(404);
    process.stderr.write(`[faults] http: 12 sessions opened with one token, ${launch.endpoint!.sessionCount()} kept (cap 5)\n`);
  });

  it('a body trickled in too slowly is cut with 408 (slowloris)', async () => {
    const r = await rawSocket((s) => {
      s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`);
      const t = setInterval(() => (s.writable ? s.write(' ') : clearInterval(t)), 200);
      s.on('close', () => clearInterval(t));
    }, 10_000);
    expect(r.data).toMatch(/^HTTP\/1.1 408/);
    expect(r.data).toMatch(/Request Timeout: the body did not arrive within 1.5s/);
    expect(r.closedByServer).toBe(true);
  });

  it('an idle socket that never authenticates is closed', async () => {
    const r = await rawSocket(() => {}, 10_000);
    expect(r.closedByServer).toBe(true);
  });

  it('an unauthenticated request gets 401 and its connection closed', async () => {
    const r = await rawSocket((s) => s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 2\r\n\r\n{}`), 10_000);
    expect(r.data).toMatch(/^HTTP\/1.1 401/);
    expect(r.data.toLowerCase()).toContain('connection: close');
    expect(r.closedByServer).toBe(true);
  });

  it('connections beyond the cap are refused', async () => {
    const sockets: net.Socket[] = [];
    const closed: boolean[] = [];
    for (let i = 0; i < 30; i++) {
      const s = net.connect(port, '127.0.0.1');
      const idx = i;
      closed[idx] = false;
      s.on('close', () => (closed[idx] = true));
      s.on('error', () => {});
      sockets.push(s);
    }
    await new Promise((r) => setTimeout(r, 500));
    const refused = closed.filter(Boolean).length;
    for (const s of sockets) s.destroy();
    process.stderr.write(`[faults] http: 30 connections opened, ${refused} refused (cap 20)\n`);
    expect(refused).toBeGreaterThanOrEqual(10);
  });
});
