// Traffic names agents by client (docs/ui-layout.md "Traffic"): each agent session's records and
// exchanges carry the clientInfo name and version it sent in `initialize`; a stateless new-era
// request carries its own in `_meta`; the Tool console's own leg is recorded in full (its
// arguments, its answer, real sizes), not only as an exchange. Real server (server-everything),
// SDK clients over Streamable HTTP, a raw new-era POST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Host, type Launch } from '../../main/host';
import { tempDir, writeProfile } from '../support/temp';
import { connectHttp, waitFor } from '../support/gateway';

const PROFILE = `
name: agent-names-test
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
let clients: Client[] = [];

beforeAll(async () => {
  tmp = tempDir();
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  launch = await host.launch(writeProfile(tmp.dir, PROFILE), { httpPort: 0, token: 'agent-names-token-1234567890' });
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await host?.shutdown();
  tmp?.cleanup();
});

const legsOf = (exchange: string) => host.tap.snapshot().filter((e) => e.exchange === exchange);

describe('agents by client name', () => {
  it('two sessions of two clients: every agent-side record and each exchange carry their own name and version', async () => {
    const a = await connectHttp(launch, {}, 'alpha-agent');
    const b = await connectHttp(launch, {}, 'beta-agent');
    clients = [a, b];
    await a.callTool({ name: 'echo', arguments: { message: 'from alpha' } });
    await b.callTool({ name: 'echo', arguments: { message: 'from beta' } });
    const calls = await waitFor(() => {
      const reqs = host.tap.snapshot().filter((e) => e.method === 'tools/call' && e.direction === 'agent_to_gateway' && e.kind === 'request');
      return reqs.length >= 2 ? reqs : undefined;
    }, 'both calls');
    const byName = new Map(calls.map((e) => [e.agentName, e]));
    expect([...byName.keys()].sort()).toEqual(['alpha-agent', 'beta-agent']);
    expect(byName.get('alpha-agent')!.agentVersion).toBe('1.0.0');
    expect(byName.get('alpha-agent')!.agentSession).not.toBe(byName.get('beta-agent')!.agentSession);
    for (const [name, req] of byName) {
      // Its answer to the agent too; and the exchange the window and the audit store read.
      const legs = legsOf(req.exchange!);
      expect(legs.find((e) => e.direction === 'gateway_to_agent')?.agentName).toBe(name);
      expect(launch.gateway.exchange(req.exchange!)).toMatchObject({ agentName: name, agentVersion: '1.0.0' });
    }
    // The session's lifecycle messages are its own too: initialize and its answer.
    const init = host.tap.snapshot().filter((e) => e.method === 'initialize' && e.agentSession === byName.get('beta-agent')!.agentSession);
    expect(init.length).toBeGreaterThanOrEqual(1);
    expect(init.every((e) => e.agentName === 'beta-agent')).toBe(true);
  });

  it('a stateless new-era request names its client from its _meta, and its answer and exchange say the same', async () => {
    const res = await fetch(launch.endpoint!.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${launch.token!}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 41,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: { message: 'stateless' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'gamma-stateless', version: '3.1' },
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const req = await waitFor(() => host.tap.snapshot().find((e) => e.kind === 'request' && e.direction === 'agent_to_gateway' && e.agentName === 'gamma-stateless'), 'the stateless call');
    expect(req.agentVersion).toBe('3.1');
    const answer = await waitFor(() => legsOf(req.exchange!).find((e) => e.direction === 'gateway_to_agent'), 'its answer');
    expect(answer.agentName).toBe('gamma-stateless');
    expect(launch.gateway.exchange(req.exchange!)).toMatchObject({ agentName: 'gamma-stateless', agentVersion: '3.1' });
  });
});

describe("the Tool console's own leg", () => {
  it('is recorded in full: the request with its arguments, the answer with its result, real sizes and latency', async () => {
    const leg = { tap: host.tap, label: { agentName: 'Gatehouse Tool console' } };
    const result = await launch.gateway.callTool('echo', { message: 'console-leg' }, { agentSession: 'ui-test', requestId: 'console-1', leg });
    expect(JSON.stringify(result)).toContain('console-leg');
    const legs = legsOf('ui-test#console-1');
    const req = legs.find((e) => e.direction === 'agent_to_gateway');
    const res = legs.find((e) => e.direction === 'gateway_to_agent');
    expect(req).toMatchObject({ kind: 'request', method: 'tools/call', id: 'console-1', agentSession: 'ui-test', agentName: 'Gatehouse Tool console' });
    expect(req!.message).toMatchObject({ params: { name: 'echo', arguments: { message: 'console-leg' } } });
    expect(req!.bytes).toBeGreaterThan(0);
    expect(res).toMatchObject({ kind: 'response', method: 'tools/call', id: 'console-1', tool: 'everything.echo', decision: 'ALLOW' });
    expect(JSON.stringify(res!.message)).toContain('console-leg');
    expect(res!.bytes).toBeGreaterThan(0);
    expect(res!.latencyMs).toBeGreaterThanOrEqual(0);
    // And its upstream leg is the same exchange's: the window puts it under the console's row.
    expect(legs.some((e) => e.direction === 'gateway_to_server')).toBe(true);
  });

  it('an unknown tool is answered on the leg as a JSON-RPC error', async () => {
    const leg = { tap: host.tap };
    await expect(launch.gateway.callTool('no-such-tool', {}, { agentSession: 'ui-test', requestId: 'console-2', leg })).rejects.toThrow();
    const res = legsOf('ui-test#console-2').find((e) => e.direction === 'gateway_to_agent');
    expect(res?.kind).toBe('error');
    expect(JSON.stringify(res!.message)).toContain('no-such-tool');
  });
});
