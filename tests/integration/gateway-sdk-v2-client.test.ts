// A real new-era client against the gateway (docs/gateway.md "Two eras downstream"): the SDK v2 client
// (@modelcontextprotocol/client 2.4) in auto mode finds the gateway speaks 2026-07-28
// (server/discover), uses no session, and answers an OLD-era stdio server's mid-call elicitation
// and sampling through the input bridge with its own MRTR handling (input_required → its
// handler → retry with inputResponses and requestState), progress included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildTestBundle } from '../support/build';
import { pinProfile } from '../support/trust';
import { Host, type Launch } from '../../main/host';
import { conformanceProfile, oldEraFixtureServer } from '../support/conformance-suite';
import { tempDir, writeProfile } from '../support/temp';

describe('the SDK v2 client (auto mode) through the gateway and the input bridge', () => {
  let tmp: ReturnType<typeof tempDir>;
  let host: Host;
  let launch: Launch;
  let client: Client;
  const asked: string[] = [];

  beforeAll(async () => {
    tmp = tempDir('gatehouse-sdk-v2-');
    host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    launch = await host.launch(writeProfile(tmp.dir, conformanceProfile('sdk-v2', oldEraFixtureServer())), { httpPort: 0 });
    client = new Client({ name: 'sdk-v2-test', version: '2.4.0' }, { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode: 'auto' } } as never);
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(`elicitation: ${req.params.message}`);
      const wants = Object.keys((req.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
      const content: Record<string, string> = wants.includes('color') ? { color: 'green' } : { name: 'Ada' };
      return { action: 'accept', content };
    });
    client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sampling');
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), { requestInit: { headers: { authorization: `Bearer ${launch.token}` } } }));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await host?.shutdown();
    tmp?.cleanup();
  });

  it('negotiates 2026-07-28 without a session and answers bridged questions with its own handlers', async () => {
    expect((client as unknown as { getNegotiatedProtocolVersion(): string }).getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const hello = await client.callTool({ name: 'conf.test_input_required_result_elicitation', arguments: {} });
    expect(hello.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    const capital = await client.callTool({ name: 'conf.test_input_required_result_sampling', arguments: {} });
    expect(capital.content).toEqual([{ type: 'text', text: 'Sampling response: Paris' }]);
    const rounds = await client.callTool({ name: 'conf.test_input_required_result_multi_round', arguments: {} });
    expect(rounds.content).toEqual([{ type: 'text', text: 'Ada likes green' }]);
    expect(asked).toEqual(['elicitation: What is your name?', 'sampling', 'elicitation: Step 1: What is your name?', 'elicitation: Step 2: What is your favorite color?']);
    expect(launch.endpoint!.sessionCount()).toBe(0);
    const calls = launch.gateway.exchanges.snapshot().filter((e) => e.kind === 'call' && e.tool?.startsWith('conf.test_input_required'));
    expect(calls.map((e) => [e.agentEra, e.round, e.outcome])).toEqual([
      ['2026-07-28', 1, 'ok'],
      ['2026-07-28', 1, 'ok'],
      ['2026-07-28', 2, 'ok'],
    ]);
  });

  it('sees progress of a call', async () => {
    const seen: number[] = [];
    const r = await client.callTool({ name: 'conf.test_tool_with_progress', arguments: {} }, { onprogress: (p: { progress: number }) => seen.push(p.progress) } as never);
    expect(r.content).toEqual([{ type: 'text', text: 'Tool with progress executed successfully' }]);
    expect(seen).toEqual([0, 50, 100]);
  });
});

describe('the SDK v2 client (auto mode) on the stdio gateway', () => {
  it('negotiates 2026-07-28 on stdio too and gets a bridged elicitation answered', async () => {
    const bundle = buildTestBundle({ cli: 'main/cli/index.ts' });
    const tmp = tempDir('gatehouse-sdk-v2-stdio-');
    const file = writeProfile(tmp.dir, conformanceProfile('sdk-v2-stdio', oldEraFixtureServer()));
    pinProfile(path.join(tmp.dir, 'data'), file);
    const client = new Client({ name: 'sdk-v2-stdio', version: '2.4.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } } as never);
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    try {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [bundle.entry('cli'), 'gateway', '--profile', file, '--data-dir', path.join(tmp.dir, 'data'), '--quiet'], cwd: tmp.dir }));
      expect((client as unknown as { getNegotiatedProtocolVersion(): string }).getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const hello = await client.callTool({ name: 'conf.test_input_required_result_elicitation', arguments: {} });
      expect(hello.content).toEqual([{ type: 'text', text: 'Hello, Grace!' }]);
    } finally {
      await client.close();
      tmp.cleanup();
      bundle.cleanup();
    }
  }, 120_000);
});
