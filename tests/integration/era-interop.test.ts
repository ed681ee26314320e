// Interop across eras (docs/gateway.md "Two eras downstream", "Upstream eras"): one running gateway with a NEW-era server (SDK v2 fixture over
// HTTP) and an OLD-era server (SDK v1 fixture over stdio) behind it, and two agents at once: an
// SDK v2 client in `versionNegotiation: auto` mode and an SDK v1 client. Both call tools of both
// servers, answer an elicitation that reaches them through the bridge (the new-era server's
// input_required becomes a real elicitation/create to them), and see progress.
//
// The v2 client negotiates what the gateway offers downstream, 2026-07-28: its elicitation answer
// goes back as `inputResponses` through the input bridge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import type { Launch } from '../../main/host';
import type { Exchange } from '../../main/gateway/exchanges';
import { launchFixtureGateway, type FixtureGateway } from '../support/fixture-gateway';
import { repoRoot } from '../support/supervisor';

/** The gateway serves 2026-07-28 downstream: the v2 client in auto mode must come out modern. */
const NEW_ERA_DOWNSTREAM = true;
const TOKEN = 'era-interop-token-0123456789abcdef';

let gw: FixtureGateway | undefined;
let launch: Launch;
let closed: Map<string, Exchange>;

beforeAll(async () => {
  const old = path.join(repoRoot, 'tests/fixtures/conformance/server.mjs');
  gw = await launchFixtureGateway({
    tempPrefix: 'gatehouse-era-interop-',
    fixture: 'tests/fixtures/conformance-next/server.mjs',
    token: TOKEN,
    profile: (url) => `name: era-interop
workspace: ./ws
servers:
  next:
    url: ${JSON.stringify(url)}
  old:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(old)}]
policy:
  default: allow
  sampling: allow
`,
  });
  ({ launch, closed } = gw);
  const eras = Object.fromEntries(launch.statuses().map((s) => [s.id, [s.state, s.era?.era, s.protocolVersion]]));
  expect(eras).toEqual({ next: ['ready', 'new', '2026-07-28'], old: ['ready', 'old', '2025-11-25'] });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const headers = { Authorization: `Bearer ${TOKEN}` };
const textOf = (r: { content?: unknown }) => JSON.stringify(r.content);

async function v1Agent(name: string): Promise<V1Client> {
  const client = new V1Client({ name, version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: `${name}-user`, email: `${name}@example.test`, name: `${name}-user` } }) as never);
  await client.connect(new V1Http(new URL(launch.endpoint!.url), { requestInit: { headers } }));
  return client;
}

async function v2Agent(name: string): Promise<V2Client> {
  const client = new V2Client({ name, version: '2.4.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { username: `${name}-user`, email: `${name}@example.test`, name: `${name}-user` } }));
  await client.connect(new V2Http(new URL(launch.endpoint!.url), { requestInit: { headers } }));
  return client;
}

describe('an SDK v1 and an SDK v2 (auto) agent against one gateway with a new-era and an old-era server', () => {
  it('the SDK v1 agent calls both servers, answers the new-era server\'s question through the bridge, and sees progress', async () => {
    const client = await v1Agent('v1-agent');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['next_test_elicitation', 'old_test_elicitation', 'next_test_tool_with_progress', 'old_test_tool_with_progress']));

      for (const server of ['next', 'old']) {
        const simple = await client.request({ method: 'tools/call', params: { name: `${server}_test_simple_text`, arguments: {} } }, CallToolResultSchema);
        expect(textOf(simple)).toContain('simple text response');
        const asked = await client.request({ method: 'tools/call', params: { name: `${server}_test_elicitation`, arguments: { message: `who are you (${server})?` } } }, CallToolResultSchema);
        expect(textOf(asked)).toContain('action=accept');
        expect(textOf(asked)).toContain('v1-agent-user');
        const progress: number[] = [];
        await client.request({ method: 'tools/call', params: { name: `${server}_test_tool_with_progress`, arguments: {} } }, CallToolResultSchema, { onprogress: (p) => progress.push(p.progress) });
        expect(progress).toEqual([0, 50, 100]);
      }
      // The new-era server's question was its own exchange, a child of the call, and the call spoke 2026-07-28 upstream.
      const q = [...closed.values()].find((e) => e.kind === 'server_request' && e.method === 'elicitation/create' && closed.get(e.parent!)?.server === 'next');
      expect(q).toBeDefined();
      expect(closed.get(q!.parent!)).toMatchObject({ tool: 'next.test_elicitation', upstreamEra: '2026-07-28', outcome: 'ok' });
    } finally {
      await client.close();
    }
  });

  it('the SDK v2 agent in auto mode does the same on the same gateway, at the era the gateway offers it', async () => {
    const client = await v2Agent('v2-agent');
    try {
      expect(client.getProtocolEra()).toBe(NEW_ERA_DOWNSTREAM ? 'modern' : 'legacy');
      for (const server of ['next', 'old']) {
        const simple = await client.callTool({ name: `${server}_test_simple_text`, arguments: {} });
        expect(textOf(simple)).toContain('simple text response');
        const asked = await client.callTool({ name: `${server}_test_elicitation`, arguments: { message: `who are you (${server})?` } });
        expect(textOf(asked)).toContain('v2-agent-user');
        const progress: number[] = [];
        await client.callTool({ name: `${server}_test_tool_with_progress`, arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
        expect(progress).toEqual([0, 50, 100]);
      }
    } finally {
      await client.close();
    }
  });

  it('both agents at once: each question goes to the agent whose call raised it', async () => {
    const [a, b] = await Promise.all([v1Agent('first'), v2Agent('second')]);
    try {
      const [ra, rb] = await Promise.all([
        a.request({ method: 'tools/call', params: { name: 'next_test_elicitation', arguments: { message: 'a?' } } }, CallToolResultSchema),
        b.callTool({ name: 'next_test_elicitation', arguments: { message: 'b?' } }),
      ]);
      expect(textOf(ra)).toContain('first-user');
      expect(textOf(rb)).toContain('second-user');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
