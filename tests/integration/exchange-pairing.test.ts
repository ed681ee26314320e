// The exchange is the only pairing (docs/gateway.md "One table pairs"): two agent sessions whose
// JSON-RPC ids collide (both SDK clients count from 0), a call with progress on both hops and a
// call the agent cancels. Every leg is stamped with its exchange when it crosses, the exchange
// keeps the legs' tap seqs, and the readers (the audit store's messages, the FIAM observations)
// join on the exchange id. Real server (server-everything), real SQLite file, SDK clients over
// Streamable HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Host, type Launch } from '../../main/host';
import type { Exchange } from '../../main/gateway/exchanges';
import type { TrafficEvent } from '../../main/protocol/types';
import { readObservations, key } from '../../main/model/observations';
import { tempDir, writeProfile } from '../support/temp';
import { connectHttp, waitFor } from '../support/gateway';

const PROFILE = `
name: pairing-test
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let a: Client;
let b: Client;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, PROFILE);
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  launch = await host.launch(file, { httpPort: 0, token: 'pairing-token-1234567890' });
  host.on('exchange', (_phase, ex) => void (exchanges.includes(ex) || exchanges.push(ex)));
  a = await connectHttp(launch, {}, 'agent-a');
  b = await connectHttp(launch, {}, 'agent-b');
}, 60_000);

afterAll(async () => {
  await a?.close().catch(() => {});
  await b?.close().catch(() => {});
  await host?.shutdown();
  tmp?.cleanup();
});

const tap = (): TrafficEvent[] => host.tap.snapshot();
const ofExchange = (id: string) => tap().filter((e) => e.exchange === id);
const legNames = (evs: TrafficEvent[]) => evs.map((e) => `${e.direction} ${e.kind} ${e.method ?? ''}`.trim());

describe('the exchange is the only pairing', () => {
  it('lifecycle requests of two sessions with the same ids are two exchanges, each answer on its own', async () => {
    await Promise.all([a.listTools(), b.listTools()]);
    const lists = tap().filter((e) => e.direction === 'agent_to_gateway' && e.method === 'tools/list');
    expect(lists).toHaveLength(2);
    // The collision this is about: both sessions used the same JSON-RPC id.
    expect(lists[0]!.id).toBe(lists[1]!.id);
    expect(lists[0]!.agentSession).not.toBe(lists[1]!.agentSession);
    expect(lists[0]!.exchange).toBeDefined();
    expect(lists[0]!.exchange).not.toBe(lists[1]!.exchange);
    for (const req of lists) {
      const answer = ofExchange(req.exchange!).filter((e) => e.kind === 'response');
      expect(answer).toHaveLength(1);
      expect(answer[0]).toMatchObject({ direction: 'gateway_to_agent', agentSession: req.agentSession, method: 'tools/list' });
      expect(answer[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    }
    // initialize, too: every request of the hop has an exchange, and its answer the same one.
    const inits = tap().filter((e) => e.method === 'initialize' && e.kind === 'request');
    expect(inits.length).toBeGreaterThanOrEqual(3); // the server's, and each agent's
    for (const init of inits) expect(ofExchange(init.exchange!).map((e) => e.kind)).toEqual(['request', 'response']);
  });

  it('a call with progress: both hops and every progress notification are legs of its exchange, listed on it', async () => {
    const progress: number[] = [];
    const [ra, rb] = await Promise.all([
      a.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } }, undefined, { onprogress: (p) => void progress.push(p.progress) }),
      b.callTool({ name: 'echo', arguments: { message: 'from b' } }),
    ]);
    expect(JSON.stringify(ra.content)).toContain('completed');
    expect(JSON.stringify(rb.content)).toContain('from b');
    expect(progress).toEqual([1, 2]);
    const ex = await waitFor(() => exchanges.find((e) => e.tool === 'everything.trigger-long-running-operation' && e.outcome === 'ok'), 'the long call closed');
    const legs = ofExchange(ex.id);
    expect(legNames(legs)).toEqual([
      'agent_to_gateway request tools/call',
      'gateway_to_server request tools/call',
      'server_to_gateway notification notifications/progress',
      'gateway_to_agent notification notifications/progress',
      'server_to_gateway notification notifications/progress',
      'gateway_to_agent notification notifications/progress',
      'server_to_gateway response tools/call',
      'gateway_to_agent response tools/call',
    ]);
    // The exchange keeps its legs' seqs: exactly the events stamped with it, in order.
    await waitFor(() => ex.legs.length === legs.length || undefined, 'the last leg on the exchange');
    expect(ex.legs).toEqual(legs.map((e) => e.seq));
    // b's echo shares ids with a's call downstream, yet none of its legs is in a's exchange.
    const echo = exchanges.find((e) => e.tool === 'everything.echo')!;
    expect(echo.downstreamId).toBe(ex.downstreamId);
    expect(echo.legs.some((s) => ex.legs.includes(s))).toBe(false);
    expect(ofExchange(echo.id).every((e) => e.agentSession === echo.agentSession || e.direction.includes('server'))).toBe(true);
  });

  it('a cancelled call: the cancel on both hops is a leg of that exchange, and no progress is left without one', async () => {
    const abort = new AbortController();
    const call = a.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort('enough'),
    });
    await expect(call).rejects.toThrow();
    const ex = await waitFor(() => exchanges.find((e) => e.tool === 'everything.trigger-long-running-operation' && e.outcome === 'cancelled'), 'the cancelled call closed');
    const cancels = await waitFor(() => {
      const c = ofExchange(ex.id).filter((e) => e.method === 'notifications/cancelled');
      return c.length === 2 ? c : undefined;
    }, 'the cancel on both hops');
    expect(cancels.map((e) => e.direction)).toEqual(['agent_to_gateway', 'gateway_to_server']);
    expect(ex.legs).toEqual(expect.arrayContaining(cancels.map((e) => e.seq)));
    // Nothing the gateway saw of this call is left without its exchange.
    const stray = tap().filter((e) => e.method === 'notifications/progress' && e.exchange === undefined);
    expect(stray).toEqual([]);
  });

  it('an HTTP message is recorded as its body came, not serialised again', async () => {
    // Pretty-printed: its wire size differs from JSON.stringify of what it parses to.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'raw-1', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, null, 2);
    const r = await fetch(launch.endpoint!.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${launch.token!}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    expect(r.status).toBe(200);
    await r.text();
    const read = await waitFor(() => tap().find((e) => e.id === 'raw-1' && e.kind === 'request'), 'the raw initialize');
    expect(read.bytes).toBe(Buffer.byteLength(body));
    expect(read.bytes).toBeGreaterThan(Buffer.byteLength(JSON.stringify(read.message)));
  });

  it('the audit store and the FIAM observations join on the exchange id', async () => {
    const bad = await a.callTool({ name: 'get-sum', arguments: { a: 'not a number', b: 1 } });
    expect(bad.isError).toBe(true);
    const ex = await waitFor(() => exchanges.find((e) => e.tool === 'everything.get-sum' && e.outcome !== undefined), 'the failed call closed');
    host.audit!.flush();
    const stored = host.audit!.queryMessages({ session: launch.id, exchange: ex.id, limit: 100 });
    expect(stored.map((r) => r.tapSeq)).toEqual(ex.legs);
    const obs = readObservations(host.audit!, { profile: 'pairing-test', sessions: [launch.id] });
    expect(obs.toolCalls.get(key('everything', 'everything.get-sum'))).toMatchObject({ count: 1, errors: 1 });
    expect(obs.toolCalls.get(key('everything', 'everything.echo'))).toMatchObject({ count: 1, errors: 0 });
    expect(obs.upstream.get(key('everything', 'tools/list'))!.errors).toBe(0);
  });
});
