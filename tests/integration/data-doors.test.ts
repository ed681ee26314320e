// Every message toward the agent passes the data screen, not only results (docs/data.md, "Every
// message toward the agent"). A hostile server (tests/fixtures/servers/doors-server.mjs, a real
// process) puts its configured secret and an AWS-style key id through each other door: a
// JSON-RPC error (message and data), a log notification, a progress message, a sampling request,
// an elicitation request (for a new-era agent: an `input_required` result), and the descriptions
// of a tool, a prompt and a resource in the list results. Real SDK clients drive the real
// gateway over Streamable HTTP (old era), a 2026-07-28 POST, and stdio. Counted: clear copies in
// what each agent received, in the SQLite files, and in the stored traffic; the findings are on
// record, without values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Host, type Launch } from '../../main/host';
import { DB_FILE_NAME } from '../../main/audit/store';
import { startStdioEndpoint } from '../../main/gateway/stdio-endpoint';
import { FramedStreamTransport } from '../../main/protocol/framed-stream-transport';
import { base64Cores, jsonEscaped } from '../../main/secrets/secret-forms';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, serverFixture } from '../support/supervisor';
import { connectHttp, textOf, waitFor } from '../support/gateway';

// Pieces joined at run time, as in the fixture: no scanner of this repository flags the test.
const AWS_KEY = ['AKIA', 'QYLPMN5HHHFPZAM2'].join('');
const SECRET = 'door"s\\ecret-5Hq8Zt2wXk7Lm3Rv';
const SECRET_MARK = '«secret:DOOR_KEY»';
const AWS_MARK = '«credential:aws»';
const V = '2026-07-28';
const clearForms = [AWS_KEY, SECRET, jsonEscaped(SECRET), jsonEscaped(jsonEscaped(SECRET)), ...base64Cores(SECRET)];
const clearIn = (texts: string[]) => clearForms.filter((f) => texts.some((t) => t.includes(f)));
/** What the screen makes of the fixture's `both(what)` text. */
const masked = (what: string) => `${what}: key ${SECRET_MARK} id ${AWS_MARK}`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let dataDir: string;

/** Keeps every message the client's transport delivers, as text. */
function capture(transport: Transport): string[] {
  const stream: string[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    stream.push(JSON.stringify(message));
    (deliver as (m: JSONRPCMessage, e?: unknown) => void).call(transport, message, extra);
  };
  return stream;
}

/** An agent that can sample and elicit, answering with fixed words (never an echo). */
function answering(client: Client): Client {
  client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', model: 'fixed', content: { type: 'text', text: 'no' } }));
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
  return client;
}

/** Every door but the new-era one, through `client`: what it returned, to check the masks are there. */
async function throughEveryDoor(client: Client, stream: string[]): Promise<void> {
  const tools = await waitFor(async () => {
    const list = (await client.listTools()).tools;
    return list.some((t) => t.name === 'doors') ? list : undefined;
  }, 'the doors server listed');
  expect(tools.find((t) => t.name === 'doors')!.description).toBe(masked('a tool description'));
  expect((await client.listPrompts()).prompts.find((p) => p.name === 'door-prompt')!.description).toBe(masked('a prompt description'));
  expect((await client.listResources()).resources.find((r) => r.name === 'door-resource')!.description).toBe(masked('a resource description'));

  const failed = await client.callTool({ name: 'fail', arguments: {} }).then(
    () => undefined,
    (err: { message: string; data?: unknown }) => err,
  );
  expect(failed?.message).toContain(masked('an error message'));
  expect(failed?.data).toEqual({ key: SECRET_MARK, id: AWS_MARK });

  const progress: string[] = [];
  await client.callTool({ name: 'chatty', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.message ?? '') });
  expect(progress).toEqual([masked('a progress message')]);
  await waitFor(() => stream.some((m) => m.includes('notifications/message') && m.includes(JSON.stringify(masked('a log notification')))), 'the log notification, masked');

  expect(textOf(await client.callTool({ name: 'sample', arguments: {} }))).toContain('the client answered');
  expect(stream.some((m) => m.includes('sampling/createMessage') && m.includes(JSON.stringify(masked('a sampling message'))))).toBe(true);
  expect(textOf(await client.callTool({ name: 'elicit', arguments: {} }))).toContain('the client answered');
  expect(stream.some((m) => m.includes('elicitation/create') && m.includes(JSON.stringify(masked('an elicitation message'))))).toBe(true);
  expect(clearIn(stream)).toEqual([]);
}

beforeAll(async () => {
  tmp = tempDir('gatehouse-data-doors-');
  const file = writeProfile(
    tmp.dir,
    profileYaml('data-doors', { doors: { command: process.execPath, args: [serverFixture('doors-server.mjs')], env: { LEAK_TOKEN: '${secret:DOOR_KEY}' } } }, { policy: { default: 'allow', sampling: 'allow' } }),
  );
  dataDir = path.join(tmp.dir, 'data');
  host = new Host({ dataDir, env: { ...process.env, GATEHOUSE_SECRET_DOOR_KEY: SECRET } });
  launch = await host.launch(file, { httpPort: 0, token: 'data-doors-token-1234567890' });
}, 60_000);

afterAll(async () => {
  await host?.shutdown();
  tmp?.cleanup();
});

describe('a server that leaks through every door that is not a result', () => {
  it('old era over Streamable HTTP: errors, notifications, progress, sampling, elicitation and list descriptions reach the agent masked', async () => {
    const client = answering(await connectHttp(launch, { capabilities: { sampling: {}, elicitation: {} } }));
    try {
      await throughEveryDoor(client, capture(client.transport!));
    } finally {
      await client.close();
    }
  });

  it('stdio (a framed stdio session): the same doors, masked', async () => {
    const toGateway = new PassThrough();
    const fromGateway = new PassThrough();
    const endpoint = await startStdioEndpoint({ gateway: launch.gateway, tap: host.tap, redactor: launch.profile.redactor, input: toGateway, output: fromGateway });
    const client = answering(new Client({ name: 'stdio-agent', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } }));
    const transport = new FramedStreamTransport(fromGateway, toGateway, { framing: 'line' });
    await client.connect(transport);
    try {
      await throughEveryDoor(client, capture(transport));
    } finally {
      await client.close();
      await endpoint.close();
    }
  });

  it('new era (2026-07-28 POSTs): the error, the lists and the input request of an elicitation are masked', async () => {
    const post = async (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) => {
      const res = await fetch(launch.endpoint!.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${launch.token!}`,
          'mcp-protocol-version': V,
          'mcp-method': method,
          ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 'new-era-agent', version: '1' } } },
        }),
      });
      return res.text();
    };
    const failed = await post('tools/call', { name: 'fail', arguments: {} });
    expect(failed).toContain(JSON.stringify(masked('an error message')).slice(1, -1));
    const tools = await post('tools/list', {});
    expect(tools).toContain(JSON.stringify(masked('a tool description')).slice(1, -1));
    const prompts = await post('prompts/list', {});
    expect(prompts).toContain(JSON.stringify(masked('a prompt description')).slice(1, -1));
    const asked = await post('tools/call', { name: 'elicit', arguments: {} }, { elicitation: {} });
    expect(asked).toContain('input_required');
    expect(asked).toContain(JSON.stringify(masked('an elicitation message')).slice(1, -1));
    expect(clearIn([failed, tools, prompts, asked])).toEqual([]);
  });

  it('the findings are on record without values; the SQLite files and the stored traffic hold no clear copy', async () => {
    // Findings of the doors: on the call's exchange (an error), or on an exchange of their own (a list's answer).
    const rows = await waitFor(() => {
      host.audit!.flush();
      const found = host.audit!.queryDataFindings({ session: launch.id });
      const paths = new Set(found.map((f) => f.path));
      const wanted = ['$.error.message', '$.error.data.id', '$.params.data.note', '$.params.message', '$.params.messages[0].content.text', '$.result.tools[', '$.result.prompts[0].description', '$.result.resources[0].description'];
      return wanted.every((p) => [...paths].some((x) => x.startsWith(p))) ? found : undefined;
    }, 'the findings of every door on record');
    expect(rows.some((r) => r.rule === 'aws' && r.kind === 'credential')).toBe(true);
    expect(rows.some((r) => r.rule === 'secret:DOOR_KEY' && r.kind === 'secret')).toBe(true);
    expect(clearIn([JSON.stringify(rows)])).toEqual([]);
    const failedCall = host.audit!.queryCalls({ session: launch.id, limit: 200 }).find((c) => c.tool === 'doors.fail' && c.outcome === 'error');
    expect(failedCall?.error).toContain(masked('an error message'));
    const verify = host.audit!.verify(undefined, launch.id);
    expect(verify.ok, JSON.stringify(verify.chains.map((c) => c.problems))).toBe(true);

    const traffic = host.tap.snapshot().filter((e) => e.session === launch.id).map((e) => JSON.stringify(e.message));
    expect(traffic.length).toBeGreaterThan(10);
    expect(clearIn(traffic)).toEqual([]);
    host.audit!.flush();
    const files = [DB_FILE_NAME, `${DB_FILE_NAME}-wal`].map((f) => path.join(dataDir, f)).filter((f) => existsSync(f));
    const bytes = files.map((f) => readFileSync(f).toString('latin1'));
    expect(bytes.join('')).toContain('credential:aws');
    expect(clearIn(bytes)).toEqual([]);
  });
});
