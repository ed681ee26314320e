// Interop: an SDK client through the gateway (Streamable HTTP) uses real npm servers
// (server-everything, server-filesystem, server-memory) as it would use them directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import { appRoot } from '../../main/paths';
import { tempDir, writeProfile } from '../support/temp';
import { autoApprover, connectHttp, textOf, waitFor } from '../support/gateway';

const bin = (name: string) => path.join(appRoot(), 'node_modules', '.bin', name);

function everythingProfile(sampling: 'allow' | 'deny' | 'approve') {
  return `
name: interop
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
  approval_timeout_s: 2
  sampling: ${sampling}
`;
}

interface Ctx {
  tmp: ReturnType<typeof tempDir>;
  host: Host;
  launch: Launch;
}

async function start(yaml: string, setup?: (dir: string) => void): Promise<Ctx> {
  const tmp = tempDir();
  const file = writeProfile(tmp.dir, yaml);
  setup?.(tmp.dir);
  const host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  const launch = await host.launch(file, { httpPort: 0, token: 'interop-token-1234567890' });
  for (const s of launch.statuses()) expect(s.state, `${s.id}: ${s.reason}`).toBe('ready');
  return { tmp, host, launch };
}

async function stop(ctx: Ctx | undefined): Promise<void> {
  await ctx?.host.shutdown();
  ctx?.tmp.cleanup();
}

const SAMPLER = { capabilities: { sampling: {} } };

describe('server-everything through the gateway', () => {
  let ctx: Ctx;
  let direct: Client;

  beforeAll(async () => {
    ctx = await start(everythingProfile('allow'));
    direct = new Client({ name: 'direct', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    await direct.connect(new StdioClientTransport({ command: bin('mcp-server-everything'), args: ['stdio'], stderr: 'ignore' }));
  }, 60_000);

  afterAll(async () => {
    await direct?.close();
    await stop(ctx);
  });

  it('lists the server tools under their own names', async () => {
    const client = await connectHttp(ctx.launch);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['echo', 'get-structured-content', 'trigger-long-running-operation', 'trigger-sampling-request', 'trigger-elicitation-request', 'toggle-simulated-logging']) {
      expect(names).toContain(n);
    }
    expect(names).toContain('gatehouse_capabilities');
    await client.close();
  });

  it('echo', async () => {
    const client = await connectHttp(ctx.launch);
    const res = await client.callTool({ name: 'echo', arguments: { message: 'hi there' } });
    expect(res.isError).toBeFalsy();
    expect(textOf(res)).toContain('hi there');
    // The dotted canonical name works too.
    const res2 = await client.callTool({ name: 'everything.echo', arguments: { message: 'again' } });
    expect(textOf(res2)).toContain('again');
    await client.close();
  });

  it('passes structuredContent through unchanged, and the outputSchema with the tool', async () => {
    const client = await connectHttp(ctx.launch);
    const args = { location: 'Chicago' };
    const viaGateway = await client.callTool({ name: 'get-structured-content', arguments: args });
    const directly = await direct.callTool({ name: 'get-structured-content', arguments: args });
    expect(viaGateway.structuredContent).toBeDefined();
    expect(viaGateway).toEqual(directly);
    const gwTool = (await client.listTools()).tools.find((t) => t.name === 'get-structured-content');
    const directTool = (await direct.listTools()).tools.find((t) => t.name === 'get-structured-content');
    expect(gwTool?.outputSchema).toEqual(directTool?.outputSchema);
    await client.close();
  });

  it('forwards progress with the client’s own token', async () => {
    const client = await connectHttp(ctx.launch);
    const seen: Progress[] = [];
    const res = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(textOf(res)).toMatch(/Long running operation completed/);
    // The SDK routes progress by token, so anything the client saw carried its own token. (The
    // SDK client itself may drop a last notification that arrives with the result, a race in
    // its Protocol class, so the client side is checked loosely and the wire strictly.)
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((p) => p.total === 3)).toBe(true);
    // On the wire: every upstream notification reached the agent with the agent's token, before the result.
    const events = ctx.host.tap.snapshot();
    const call = events.filter((e) => e.direction === 'agent_to_gateway' && e.method === 'tools/call').at(-1)!;
    const token = (call.message as { params: { _meta: { progressToken: unknown } } }).params._meta.progressToken;
    const response = events.find(
      (e) => e.direction === 'gateway_to_agent' && e.agentSession === call.agentSession && e.id === call.id && e.kind === 'response',
    )!;
    expect(response).toBeDefined();
    const down = events.filter(
      (e) =>
        e.direction === 'gateway_to_agent' &&
        e.method === 'notifications/progress' &&
        (e.message as { params: { progressToken: unknown } }).params.progressToken === token,
    );
    expect(down.map((e) => (e.message as { params: { progress: number } }).params.progress)).toEqual([1, 2, 3]);
    for (const e of down) expect(e.seq).toBeLessThan(response.seq);
    await client.close();
  });

  it('routes sampling to the calling client and returns its answer to the tool', async () => {
    const client = await connectHttp(ctx.launch, SAMPLER);
    let asked = '';
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      const c = req.params.messages[0]!.content;
      asked = !Array.isArray(c) && c.type === 'text' ? c.text : '';
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled answer 42' } };
    });
    const res = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'what is six times seven', maxTokens: 10 } });
    expect(res.isError).toBeFalsy();
    expect(asked).toContain('what is six times seven');
    expect(textOf(res)).toContain('sampled answer 42');
    expect(textOf(res)).toContain('test-model');
    const decisions = await waitFor(() => {
      ctx.host.audit!.flush();
      const rows = ctx.host.audit!.queryDecisions({ tool: 'sampling/createMessage' });
      return rows.length > 0 ? rows : undefined;
    }, 'sampling decision in the audit');
    expect(decisions.at(-1)!.decision).toBe('ALLOW');
    await client.close();
  });

  it('routes elicitation to a client that declared it', async () => {
    const client = await connectHttp(ctx.launch, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada Lovelace', check: true } }));
    const res = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(res.isError).toBeFalsy();
    expect(JSON.stringify(res)).toContain('Ada Lovelace');
    await client.close();
  });

  it('declines elicitation for a client that cannot elicit', async () => {
    const client = await connectHttp(ctx.launch);
    const res = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(JSON.stringify(res)).toMatch(/decline/i);
    await client.close();
  });

  it('cancels upstream when the client aborts a call', async () => {
    const client = await connectHttp(ctx.launch);
    const abort = new AbortController();
    const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
      signal: abort.signal,
      onprogress: () => {},
    });
    // Wait until the call has reached the server, then abort.
    const upstreamCall = await waitFor(
      () =>
        ctx.host.tap
          .snapshot()
          .filter((e) => e.direction === 'gateway_to_server' && e.method === 'tools/call' && (e.message as { params: { arguments?: { duration?: number } } }).params.arguments?.duration === 30)
          .at(-1),
      'the upstream tools/call',
    );
    abort.abort('test aborts');
    await expect(call).rejects.toThrow();
    const cancelled = await waitFor(
      () =>
        ctx.host.tap
          .snapshot()
          .find(
            (e) =>
              e.direction === 'gateway_to_server' &&
              e.method === 'notifications/cancelled' &&
              (e.message as { params: { requestId: unknown } }).params.requestId === upstreamCall.id,
          ),
      'notifications/cancelled to the server',
    );
    expect(cancelled.server).toBe('everything');
    await client.close();
  });

  it('forwards logging/setLevel and log notifications, each session at its own level', async () => {
    const quiet = await connectHttp(ctx.launch, {}, 'quiet-agent');
    const client = await connectHttp(ctx.launch);
    const quietLogs: Array<{ level: string }> = [];
    const logs: Array<{ level: string; logger?: string }> = [];
    quiet.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void quietLogs.push(n.params));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await quiet.setLoggingLevel('emergency');
    await client.setLoggingLevel('debug');
    // Upstream gets the lowest level any session asked for.
    const setLevels = ctx.host.tap.snapshot().filter((e) => e.direction === 'gateway_to_server' && e.method === 'logging/setLevel');
    expect((setLevels.at(-1)!.message as { params: { level: string } }).params.level).toBe('debug');
    const res = await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    expect(textOf(res)).toMatch(/Started simulated/);
    await waitFor(() => logs.length > 0, 'a log notification');
    expect(logs[0]!.logger ?? '').toMatch(/^everything/);
    await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    // The session that asked for emergency only never got anything below it.
    for (const l of quietLogs) expect(l.level).toBe('emergency');
    await quiet.close();
    await client.close();
  });

  it('lists and reads resources and templates as the server does', async () => {
    const client = await connectHttp(ctx.launch);
    const gw = await client.listResources();
    const dr = await direct.listResources();
    expect(gw.resources).toEqual(dr.resources);
    const first = gw.resources[0]!;
    expect(await client.readResource({ uri: first.uri })).toEqual(await direct.readResource({ uri: first.uri }));
    const gwT = await client.listResourceTemplates();
    expect(gwT.resourceTemplates).toEqual((await direct.listResourceTemplates()).resourceTemplates);
    // A templated URI routes by its template.
    // (Its text carries the time it was made: compare without it.)
    const noTime = (r: unknown) => JSON.stringify(r).replace(/created at [^"]*/g, 'created at T');
    const dyn = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    expect(noTime(dyn)).toBe(noTime(await direct.readResource({ uri: 'demo://resource/dynamic/text/7' })));
    expect(dyn.contents[0]!.uri).toBe('demo://resource/dynamic/text/7');
    await client.close();
  });

  it('subscribes to a resource and forwards its updates', async () => {
    const client = await connectHttp(ctx.launch);
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    const uri = (await client.listResources()).resources[0]!.uri;
    await client.subscribeResource({ uri });
    await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    await waitFor(() => updates.includes(uri), 'notifications/resources/updated');
    await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    await client.unsubscribeResource({ uri });
    await client.close();
  });

  it('lists prompts and gets one with arguments', async () => {
    const client = await connectHttp(ctx.launch);
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual((await direct.listPrompts()).prompts);
    const args = { city: 'Paris', state: 'Texas' };
    const got = await client.getPrompt({ name: 'args-prompt', arguments: args });
    expect(got).toEqual(await direct.getPrompt({ name: 'args-prompt', arguments: args }));
    expect(JSON.stringify(got)).toContain('Paris');
    await client.close();
  });

  it('completes prompt arguments', async () => {
    const client = await connectHttp(ctx.launch);
    const params = { ref: { type: 'ref/prompt' as const, name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } };
    const res = await client.complete(params);
    expect(res).toEqual(await direct.complete(params));
    expect(res.completion.values.length).toBeGreaterThan(0);
    await client.close();
  });

  it('passes upstream JSON-RPC errors on as the server sent them', async () => {
    const client = await connectHttp(ctx.launch);
    const errorOf = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (err: { code: number; message: string; data?: unknown }) => ({ code: err.code, message: err.message, data: err.data }),
      );
    const viaGateway = await errorOf(client.getPrompt({ name: 'args-prompt', arguments: {} }));
    const directly = await errorOf(direct.getPrompt({ name: 'args-prompt', arguments: {} }));
    expect(viaGateway).toBeDefined();
    expect(viaGateway).toEqual(directly);
    const badUri = 'demo://resource/static/document/no-such.md';
    const readErr = await errorOf(client.readResource({ uri: badUri }));
    expect(readErr).toBeDefined();
    expect(readErr).toEqual(await errorOf(direct.readResource({ uri: badUri })));
    await client.close();
  });

  it('answers ping and refuses unknown methods with -32601', async () => {
    const client = await connectHttp(ctx.launch);
    await client.ping();
    await expect(client.request({ method: 'no/such-method', params: {} } as never, LoggingMessageNotificationSchema as never)).rejects.toMatchObject({ code: -32601 });
    await client.close();
  });
});

describe('sampling denied by policy', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await start(everythingProfile('deny'));
  }, 60_000);
  afterAll(() => stop(ctx));

  it('gets a prompt and completes its arguments without listing prompts first (fresh launch)', async () => {
    const client = await connectHttp(ctx.launch);
    const got = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } });
    expect(JSON.stringify(got)).toContain('Oslo');
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
    expect(done.completion.values.length).toBeGreaterThan(0);
    await client.close();
  });

  it('never reaches the client and fails the tool', async () => {
    const client = await connectHttp(ctx.launch, SAMPLER);
    let asked = false;
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked = true;
      return { model: 'm', role: 'assistant', content: { type: 'text', text: 'no' } };
    });
    const res = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 } }).catch((err: Error) => ({
      isError: true,
      content: [{ type: 'text', text: err.message }],
    }));
    expect(asked).toBe(false);
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/DENY/);
    await client.close();
  });
});

describe('server-filesystem and server-memory through the gateway', () => {
  let ctx: Ctx;
  let ws: string;
  beforeAll(async () => {
    ctx = await start(
      `
name: interop-fs
workspace: ./ws
servers:
  files:
    command: mcp-server-filesystem
    args: ["\${workspace}"]
  memory:
    command: mcp-server-memory
    env:
      MEMORY_FILE_PATH: "\${workspace}/memory.jsonl"
policy:
  default: approve
  approval_timeout_s: 2
  rules:
    - { match: ["files.read_*", "files.list_*", "memory.*"], decision: allow }
`,
      (dir) => {
        ws = path.join(dir, 'ws');
        writeFileSync(path.join(ws, 'hello.txt'), 'hello from the workspace\n');
      },
    );
  }, 60_000);
  afterAll(() => stop(ctx));

  it('lists a directory and reads a file', async () => {
    const client = await connectHttp(ctx.launch);
    const list = await client.callTool({ name: 'list_directory', arguments: { path: ws } });
    expect(list.isError).toBeFalsy();
    expect(textOf(list)).toContain('hello.txt');
    const names = (await client.listTools()).tools.map((t) => t.name);
    const readName = names.includes('read_text_file') ? 'read_text_file' : 'read_file';
    const read = await client.callTool({ name: readName, arguments: { path: path.join(ws, 'hello.txt') } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toContain('hello from the workspace');
    await client.close();
  });

  it('writes through an approval', async () => {
    const client = await connectHttp(ctx.launch);
    const approver = autoApprover(ctx.host, () => 'allow_once');
    try {
      const res = await client.callTool({ name: 'write_file', arguments: { path: path.join(ws, 'new.txt'), content: 'written via gatehouse' } });
      expect(res.isError).toBeFalsy();
      expect(approver.seen.map((r) => r.tool)).toEqual(['files.write_file']);
      expect(readFileSync(path.join(ws, 'new.txt'), 'utf8')).toBe('written via gatehouse');
    } finally {
      approver.detach();
    }
    await client.close();
  });

  it('creates entities and reads the graph (server-memory)', async () => {
    const client = await connectHttp(ctx.launch);
    const created = await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Gatehouse', entityType: 'project', observations: ['governs MCP servers'] }] },
    });
    expect(created.isError).toBeFalsy();
    const graph = await client.callTool({ name: 'read_graph', arguments: {} });
    expect(graph.isError).toBeFalsy();
    expect(JSON.stringify(graph)).toContain('governs MCP servers');
    await client.close();
  });
});

describe('request timeouts and progress', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await start(`
name: interop-timeout
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
    request_timeout_s: 2
policy:
  default: allow
`);
  }, 60_000);
  afterAll(() => stop(ctx));

  it('restarts the request timeout on each progress notification, and times out without them', async () => {
    const client = await connectHttp(ctx.launch);
    // 4 s in all, a progress notification every 0.5 s: never 2 s of silence.
    const seen: Progress[] = [];
    const ok = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 4, steps: 8 } }, undefined, {
      onprogress: (p) => seen.push(p),
      resetTimeoutOnProgress: true,
    });
    expect(ok.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(7);
    // One step of 4 s: silence past the 2 s timeout.
    const late = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 4, steps: 1 } }, undefined, {
      onprogress: () => {},
      resetTimeoutOnProgress: true,
    });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toBe("server 'everything' did not answer within 2s");
    // And the server was told to stop.
    await waitFor(
      () => ctx.host.tap.snapshot().some((e) => e.direction === 'gateway_to_server' && e.method === 'notifications/cancelled'),
      'notifications/cancelled after the timeout',
    );
    await client.close();
  }, 30_000);
});
