// The lazy tool surface (docs/gateway.md, "Lazy tool surface") in front of 15 real servers
// (server-everything and 14 server-memory), driven by an SDK client over Streamable HTTP:
// tools/list is a small fraction of the full list, search finds a tool by a word of its
// description only, and gatehouse_call_tool goes through the same policy and audit as a direct call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Host, type Launch } from '../../main/host';
import { advertisedTools } from '../../main/gateway/tool-surface';
import { tempDir, writeProfile } from '../support/temp';
import { connectHttp, textOf, waitFor } from '../support/gateway';

const MEMORY = Array.from({ length: 14 }, (_, i) => `  m${i + 1}:\n    command: mcp-server-memory\n    env: { MEMORY_FILE_PATH: "\${workspace}/m${i + 1}.jsonl" }`).join('\n');

const PROFILE = `
name: lazy-test
workspace: ./ws
tool_surface: lazy
always_listed: [everything.echo]
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
${MEMORY}
policy:
  default: approve
  approval_timeout_s: 2
  rules:
    - { match: "everything.get-env", decision: deny, reason: the environment is private }
    - { match: ["everything.echo", "everything.get-sum", "m3.read_graph"], decision: allow }
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let client: Client;

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, PROFILE);
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  launch = await host.launch(file, { httpPort: 0, token: 'lazy-token-1234567890' });
  for (const s of launch.statuses()) expect(s.state, `${s.id}: ${s.reason}`).toBe('ready');
  client = await connectHttp(launch);
}, 180_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await host?.shutdown();
  tmp?.cleanup();
});

function decisions() {
  host.audit!.flush();
  return host.audit!.queryDecisions({ session: launch.id });
}

async function search(query: string): Promise<Array<{ name: string; canonical: string; description?: string }>> {
  const res = await client.callTool({ name: 'gatehouse_search_tools', arguments: { query } });
  expect(res.isError, textOf(res)).toBeFalsy();
  return (res.structuredContent as { tools: Array<{ name: string; canonical: string }> }).tools;
}

describe('tools/list', () => {
  it('is at most 10 % of the full list with 15 servers, and lists the search, call, capabilities and always_listed tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'gatehouse_call_tool', 'gatehouse_capabilities', 'gatehouse_search_tools']);
    const surface = launch.gateway.currentSurface();
    // What the friendly surface of the same servers would list: every tool of every server.
    const full = advertisedTools({ ...surface, listed: undefined });
    expect(full.length).toBeGreaterThan(13 + 14 * 9);
    const lazyBytes = Buffer.byteLength(JSON.stringify({ tools }));
    const fullBytes = Buffer.byteLength(JSON.stringify({ tools: full }));
    expect(lazyBytes / fullBytes).toBeLessThanOrEqual(0.1);
  });
});

describe('gatehouse_search_tools', () => {
  it('finds a tool by a word that appears only in its description', async () => {
    const tool = launch.gateway.currentSurface().tools.find((t) => t.canonical === 'everything.get-env')!;
    // The word is in the description, not in the name, title or schema.
    expect(tool.tool.description).toMatch(/debugging/);
    expect(JSON.stringify({ n: tool.canonical, t: tool.tool.title, s: tool.tool.inputSchema })).not.toMatch(/debugging/i);
    const hits = await search('debugging');
    expect(hits[0]).toMatchObject({ canonical: 'everything.get-env', name: 'get-env' });
  });

  it('ranks by name and schema words too, and a bad query is a clear error', async () => {
    const hits = await search('sum two numbers');
    expect(hits[0]?.canonical).toBe('everything.get-sum');
    await expect(client.callTool({ name: 'gatehouse_search_tools', arguments: { query: 3 } })).rejects.toThrow(/expects \{ query: non-empty string/);
  });
});

describe('gatehouse_call_tool', () => {
  it('calls the real tool, and the exchange and the audit record the real tool', async () => {
    const res = await client.callTool({ name: 'gatehouse_call_tool', arguments: { name: 'get-sum', arguments: { a: 2, b: 40 } } });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res)).toContain('42');
    const d = await waitFor(() => decisions().find((r) => r.tool === 'everything.get-sum'), 'the decision');
    expect(d).toMatchObject({ decision: 'ALLOW', outcome: 'allowed', server: 'everything' });
    const ex = launch.gateway.exchange(d.exchange!)!;
    expect(ex).toMatchObject({ tool: 'everything.get-sum', advertised: 'get-sum', server: 'everything', outcome: 'ok', decidedBy: 'rule' });
    // The audit's call record (what `gatehouse audit calls` prints) names the real tool too.
    const call = await waitFor(() => host.audit!.queryCalls({ session: launch.id }).find((c) => c.id === d.exchange), 'the call record');
    expect(call).toMatchObject({ tool: 'everything.get-sum', outcome: 'ok' });
    // The traffic of that exchange: the agent's request names the call tool, the upstream leg the real tool.
    const events = host.tap.snapshot().filter((e) => e.exchange === d.exchange);
    const requests = events.filter((e) => e.kind === 'request' && e.method === 'tools/call');
    expect(requests.map((e) => [e.direction, (e.message as { params: { name: string } }).params.name])).toEqual([
      ['agent_to_gateway', 'gatehouse_call_tool'],
      ['gateway_to_server', 'get-sum'],
    ]);
    // The answer the agent gets is stamped with the real tool (the Traffic row's tool column).
    expect(events.find((e) => e.direction === 'gateway_to_agent')?.tool).toBe('everything.get-sum');
  });

  it('is denied by a deny rule on the underlying tool, which never sees the call', async () => {
    const res = await client.callTool({ name: 'gatehouse_call_tool', arguments: { name: 'get-env', arguments: {} } });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe('DENY: the environment is private');
    const d = await waitFor(() => decisions().find((r) => r.tool === 'everything.get-env'), 'the decision');
    expect(d).toMatchObject({ decision: 'DENY', outcome: 'denied', rule: 'policy.rules[0]' });
    expect(launch.gateway.exchange(d.exchange!)).toMatchObject({ tool: 'everything.get-env', decidedBy: 'rule', outcome: 'denied' });
    expect(host.tap.snapshot().filter((e) => e.exchange === d.exchange && e.direction === 'gateway_to_server')).toEqual([]);
  });

  it('asks for approval of the underlying tool (no approver here: denied, never forwarded)', async () => {
    const res = await client.callTool({ name: 'gatehouse_call_tool', arguments: { name: 'm5_delete_entities', arguments: { entityNames: ['x'] } } });
    expect(res.isError).toBe(true);
    const d = await waitFor(() => decisions().find((r) => r.tool === 'm5.delete_entities'), 'the decision');
    expect(d.decision).toBe('APPROVAL');
    expect(d.outcome).not.toBe('approved');
  });

  it('refuses bad input and itself with a clear error', async () => {
    await expect(client.callTool({ name: 'gatehouse_call_tool', arguments: { arguments: {} } })).rejects.toThrow(/expects \{ name: tool name/);
    await expect(client.callTool({ name: 'gatehouse_call_tool', arguments: { name: 'gatehouse_call_tool', arguments: { name: 'echo' } } })).rejects.toThrow(/cannot call itself/);
    await expect(client.callTool({ name: 'gatehouse_call_tool', arguments: { name: 'no_such_tool' } })).rejects.toThrow(/Unknown tool: no_such_tool/);
  });

  it('leaves every tool callable by its own name too', async () => {
    const res = await client.callTool({ name: 'm3_read_graph', arguments: {} });
    expect(res.isError, textOf(res)).toBeFalsy();
  });
});
