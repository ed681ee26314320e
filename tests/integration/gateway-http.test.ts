// The governed gateway over Streamable HTTP, in front of real servers (the built-in tools
// and @modelcontextprotocol/server-filesystem), driven by the SDK's own client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Host, type Launch } from '../../main/host';
import { tempDir, writeProfile } from '../support/temp';

const PROFILE = `
name: gw-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
  files:
    command: mcp-server-filesystem
    args: ["\${workspace}"]
policy:
  default: approve
  approval_timeout_s: 2
  rules:
    - { match: "files.*delete*", decision: deny, reason: never delete here }
    - { match: ["files.read_*", "files.list_*", "fs.read"], decision: allow }
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;

async function connect(token = launch.token!): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, PROFILE);
  writeFileSync(path.join(tmp.dir, 'ws', 'hello.txt'), 'hello from the workspace\n');
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  launch = await host.launch(file, { httpPort: 0, token: 'test-token-1234567890' });
}, 60_000);

afterAll(async () => {
  await host?.shutdown();
  tmp?.cleanup();
});

describe('gateway over Streamable HTTP', () => {
  it('refuses requests without the bearer token', async () => {
    const res = await fetch(launch.endpoint!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
    await expect(connect('wrong-token')).rejects.toThrow();
  });

  it('an initialize refused by the transport (wrong Accept) leaves no agent session behind', async () => {
    const before = launch.gateway.agentSessions().length;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(launch.endpoint!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${launch.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
      expect(res.status).toBe(406);
    }
    expect(launch.gateway.agentSessions().length).toBe(before);
    // A proper one still opens (and is counted).
    const client = await connect();
    expect(launch.gateway.agentSessions().length).toBe(before + 1);
    await client.close();
  });

  it('refuses a foreign Origin (DNS rebinding)', async () => {
    const res = await fetch(launch.endpoint!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example', authorization: `Bearer ${launch.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(403);
  });

  it('advertises the friendly surface with safe names', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('read_file'); // built-in fs.read wins the friendly name
    expect(names).toContain('gatehouse_capabilities');
    expect(names).toContain('list_directory');
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    // server-filesystem's own read_file clashes with the built-in's friendly name: it keeps its canonical form.
    expect(names).toContain('files_read_file');
    await client.close();
  });

  it('allows, denies and asks as the policy says', async () => {
    const client = await connect();
    const read = await client.callTool({ name: 'read_file', arguments: { file_path: 'hello.txt' } });
    expect(read.isError).toBeFalsy();
    expect((read.structuredContent as { file_content: string }).file_content).toContain('hello from the workspace');

    // No approver attached: APPROVAL fails closed at once with a reason.
    const write = await client.callTool({ name: 'write_file', arguments: { path: path.join(tmp.dir, 'ws', 'x.txt'), content: 'x' } });
    expect(write.isError).toBe(true);
    expect((write.content as Array<{ text: string }>)[0]!.text).toMatch(/^DENY: approval required but no approver/);

    // With an approver that allows once.
    const detach = host.broker.attachApprover({ name: 'test' });
    const off = host.broker.onEvent((e) => {
      if (e.type === 'requested') host.broker.answer(e.request.id, { choice: 'allow_once', by: 'test' });
    });
    const write2 = await client.callTool({ name: 'files_write_file', arguments: { path: path.join(tmp.dir, 'ws', 'y.txt'), content: 'y' } });
    expect(write2.isError).toBeFalsy();
    off();
    detach();
    await client.close();
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const client = await connect();
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('reports capabilities with a stable hash', async () => {
    const client = await connect();
    const a = await client.callTool({ name: 'gatehouse_capabilities', arguments: {} });
    const b = await client.callTool({ name: 'gatehouse.capabilities', arguments: {} });
    const ra = a.structuredContent as { capability_set_hash: string; contract_version: string; tool_states: Array<{ name: string; status: string }> };
    const rb = b.structuredContent as { capability_set_hash: string };
    expect(ra.capability_set_hash).toBe(rb.capability_set_hash);
    expect(ra.contract_version).toBe('2');
    expect(ra.tool_states.find((t) => t.name === 'fs.read')?.status).toBe('callable');
    expect(ra).not.toHaveProperty('tools');
    await client.close();
  });

  it('reports a tool that needs approval as unavailable while no approver is attached, and says why', async () => {
    const client = await connect();
    type State = { name: string; status: string; policy_status: string; reason: string; reason_code?: string; constraints: string[] };
    const states = async () => {
      const r = (await client.callTool({ name: 'gatehouse_capabilities', arguments: {} })).structuredContent as { tool_states: State[]; capability_set_hash: string };
      return { hash: r.capability_set_hash, write: r.tool_states.find((t) => t.name === 'fs.write')!, read: r.tool_states.find((t) => t.name === 'fs.read')! };
    };
    const alone = await states();
    expect(alone.write).toMatchObject({ status: 'unavailable', policy_status: 'needs_approval', reason_code: 'no_approver' });
    expect(alone.write.reason).toMatch(/no approver is attached/);
    expect(Array.isArray(alone.write.constraints)).toBe(true);
    expect(alone.read).toMatchObject({ status: 'callable' });
    expect(alone.read).not.toHaveProperty('reason_code');
    // And the report is right: the call is in fact denied at once.
    const denied = await client.callTool({ name: 'write_file', arguments: { file_path: 'x.txt', content: 'x' } });
    expect(denied.isError).toBe(true);
    const detach = host.broker.attachApprover({ name: 'test' });
    try {
      const attended = await states();
      expect(attended.write).toMatchObject({ status: 'needs_approval', policy_status: 'needs_approval' });
      expect(attended.write).not.toHaveProperty('reason_code');
      // Runtime state, not configuration: the hash stays.
      expect(attended.hash).toBe(alone.hash);
    } finally {
      detach();
    }
    await client.close();
  });
});
