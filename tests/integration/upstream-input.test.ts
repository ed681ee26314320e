// The reverse bridge's boundaries (docs/gateway.md "Upstream eras"): a new-era server's input_required, seen by an
// old-era agent through the gateway. The server is real (SDK v2, tests/fixtures/conformance-next/
// hostile-server.mjs) and misbehaves on purpose: it asks for ever and hands out a requestState
// (a method no client answers is refused by its own SDK before it is sent, so
// main/gateway/upstream-input.test.ts covers that one). Each test tries to cross one line: the
// call must end with a clear error (never hang), policy.sampling and the approvals inbox must
// govern the questions as they govern old-era server requests, the server's requestState must
// never reach the agent, and of the agent's HTTP headers only `Mcp-Param-*` may go upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Launch } from '../../main/host';
import type { Exchange } from '../../main/gateway/exchanges';
import { MAX_INPUT_ROUNDS } from '../../main/gateway/upstream-input';
import { launchFixtureGateway, type FixtureGateway } from '../support/fixture-gateway';

const TOKEN = 'upstream-input-token-0123456789abcdef';
let gw: FixtureGateway | undefined;
let launch: Launch;
let closed: Map<string, Exchange>;

beforeAll(async () => {
  gw = await launchFixtureGateway({
    tempPrefix: 'gatehouse-upstream-input-',
    fixture: 'tests/fixtures/conformance-next/hostile-server.mjs',
    token: TOKEN,
    profile: (url) => `name: upstream-input
workspace: ./ws
servers:
  h:
    url: ${JSON.stringify(url)}
policy:
  default: allow
  sampling: deny
`,
  });
  ({ launch, closed } = gw);
  expect(launch.statuses()[0]).toMatchObject({ state: 'ready', era: { era: 'new' } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

/** An old-era agent; `seen` keeps every message it received, as text. */
async function agent(caps: { elicitation?: boolean; sampling?: boolean }) {
  const client = new Client({ name: 'old-agent', version: '1.0.0' }, { capabilities: { ...(caps.elicitation ? { elicitation: {} } : {}), ...(caps.sampling ? { sampling: {} } : {}) } });
  const asked: string[] = [];
  if (caps.elicitation) client.setRequestHandler(ElicitRequestSchema, async (req) => (asked.push(req.params.message), { action: 'accept', content: {} }));
  if (caps.sampling) client.setRequestHandler(CreateMessageRequestSchema, async () => (asked.push('sampling'), { role: 'assistant', content: { type: 'text', text: 'no' }, model: 'm' }));
  const transport = new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
  await client.connect(transport);
  const seen: string[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (m) => {
    seen.push(JSON.stringify(m));
    deliver(m);
  };
  return { client, asked, seen };
}

const call = (client: Client, name: string) => client.request({ method: 'tools/call', params: { name, arguments: {} } }, CallToolResultSchema);
const childrenOf = (callId: string) => [...closed.values()].filter((e) => e.parent === callId);
const callNamed = (tool: string) => [...closed.values()].filter((e) => e.kind === 'call' && e.tool === tool).pop();

describe('a new-era server asking an old-era agent through the gateway', () => {
  it(`a server that keeps asking is stopped after ${MAX_INPUT_ROUNDS} rounds with a clear error, not a hang`, async () => {
    const { client, asked } = await agent({ elicitation: true });
    await expect(call(client, 'ask_forever')).rejects.toThrow(`server 'h' still asked for input after ${MAX_INPUT_ROUNDS} rounds; the call was ended`);
    expect(asked).toHaveLength(MAX_INPUT_ROUNDS);
    const ex = callNamed('h.ask_forever')!;
    expect(ex).toMatchObject({ outcome: 'error', upstreamEra: '2026-07-28' });
    expect(childrenOf(ex.id).map((q) => [q.kind, q.method, q.outcome])).toEqual(Array(MAX_INPUT_ROUNDS).fill(['server_request', 'elicitation/create', 'ok']));
    await client.close();
  });

  it('policy.sampling: deny refuses the server\'s sampling question before any agent sees it, and the call ends with the denial', async () => {
    const { client, asked } = await agent({ elicitation: true, sampling: true });
    await expect(call(client, 'ask_sampling')).rejects.toThrow(/DENY/);
    expect(asked).toEqual([]);
    const ex = callNamed('h.ask_sampling')!;
    const [q] = childrenOf(ex.id);
    expect(q).toMatchObject({ kind: 'server_request', method: 'sampling/createMessage', decision: 'DENY', decidedBy: 'rule', outcome: 'denied' });
    await client.close();
  });

  it('with no agent able to ask its user and no approver, the question is declined (the inbox path), and the server goes on', async () => {
    const { client } = await agent({});
    const res = await call(client, 'ask_elicitation');
    expect(JSON.stringify(res.content)).toContain('elicited: action=decline');
    const [q] = childrenOf(callNamed('h.ask_elicitation')!.id);
    expect(q).toMatchObject({ method: 'elicitation/create', decidedBy: 'no_approver' });
    await client.close();
  });

  it("the server's requestState goes back to it intact and never reaches the agent", async () => {
    const { client, seen } = await agent({ elicitation: true });
    const res = await call(client, 'secret_state');
    expect(JSON.stringify(res.content)).toContain('state came back intact; action=accept');
    expect(seen.some((m) => m.includes('elicitation/create'))).toBe(true);
    expect(seen.filter((m) => m.includes('SECRET'))).toEqual([]);
    await client.close();
  });

  it('of the headers an agent sent, only Mcp-Param-* go upstream, beside the Mcp-Method/Mcp-Name and _meta envelope of the new era', async () => {
    // Stand-in for down's hook (era-contract.md: down sets `forwardHeaders` from the agent's HTTP
    // request): the exchange carries an agent's headers, including ones that must stay here.
    const stamp = (ex: Exchange) => {
      if (ex.kind === 'call') ex.forwardHeaders = { 'Mcp-Param-Region': 'eu-west', authorization: `Bearer ${TOKEN}`, cookie: 'sid=1', 'x-other': 'no' };
    };
    launch.gateway.exchanges.on('opened', stamp);
    const { client } = await agent({});
    try {
      const res = await call(client, 'echo_request');
      const seen = JSON.parse((res.content as Array<{ text: string }>)[0]!.text) as { headers: Record<string, string>; envelope: Record<string, unknown> };
      expect(seen.headers).toMatchObject({ 'mcp-param-region': 'eu-west', 'mcp-method': 'tools/call', 'mcp-name': 'echo_request', 'mcp-protocol-version': '2026-07-28' });
      expect(seen.headers.authorization).toBeUndefined();
      expect(seen.headers.cookie).toBeUndefined();
      expect(seen.envelope['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
      expect(seen.envelope['io.modelcontextprotocol/clientInfo']).toMatchObject({ name: 'gatehouse' });
    } finally {
      launch.gateway.exchanges.off('opened', stamp);
      await client.close();
    }
  });
});
