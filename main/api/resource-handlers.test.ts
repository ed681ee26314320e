// The Resources and Prompts commands, the HAR and curl exports and the Audit view's outcome
// filter, totals and export, against a real Host: server-everything (it has resources, templates,
// prompts and subscriptions), an SDK client over the gateway's Streamable HTTP, a real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CommandOutput, EventName, EventPayload } from '../../common/host-api';
import { Host } from '../host';
import { waitFor } from '../../tests/support/gateway';
import { tempDir, writeProfile } from '../../tests/support/temp';
import { createHostApiDispatcher, type HostApiDispatcher } from './dispatcher';

const TOKEN = 'har-test-token-0123456789abcdef';
const PROFILE = `
name: views-test
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: approve
  approval_timeout_s: 1
  rules:
    - { match: ["everything.echo", "everything.toggle-subscriber-updates"], decision: allow }
    - { match: "everything.get-env", decision: deny, reason: the environment is private }
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let api: HostApiDispatcher;
let launchId: string;
let client: Client;
const seen: Array<{ event: EventName; payload: unknown }> = [];

const call = <T>(command: string, input: unknown) => api.handle(command, input) as Promise<T>;

const events = <E extends EventName>(event: E) => seen.filter((s) => s.event === event).map((s) => s.payload as EventPayload<E>);

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, PROFILE);
  host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_PROFILES_DIR: path.join(tmp.dir, 'profiles') } });
  api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
  api.subscribe((event, payload) => seen.push({ event, payload }));
  const launch = await host.launch(file, { httpPort: 0, token: TOKEN });
  launchId = launch.id;
  await waitFor(() => launch.supervisor.get('everything')?.status().state === 'ready', 'everything ready');
  client = new Client({ name: 'har-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  api?.close();
  await host?.shutdown();
  tmp?.cleanup();
});

describe('resources through the gateway', () => {
  it('lists resources and templates, reads text and blob contents, each read an exchange of the UI session', async () => {
    const list = await call<CommandOutput<'resources:list'>>('resources:list', { launchId });
    expect(list.resources.length).toBeGreaterThan(0);
    expect(list.templates.map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');

    const text = await call<CommandOutput<'resources:read'>>('resources:read', { launchId, uri: 'demo://resource/dynamic/text/1' });
    expect(text.error).toBeUndefined();
    expect(text.result?.contents[0]?.text).toContain('Resource 1');
    expect(text.exchange).toMatch(/^ui-web#resource-\d+$/);
    const blob = await call<CommandOutput<'resources:read'>>('resources:read', { launchId, uri: 'demo://resource/dynamic/blob/2' });
    expect(Buffer.from(blob.result?.contents[0]?.blob ?? '', 'base64').toString()).toContain('Resource 2');

    // The read is an exchange: its upstream legs carry its id, and the window heard of it.
    const legs = host.tap.snapshot().filter((e) => e.exchange === text.exchange);
    expect(legs.map((e) => `${e.direction}:${e.kind}`).sort()).toEqual(['gateway_to_server:request', 'server_to_gateway:response']);
    expect(legs[0]?.method).toBe('resources/read');
    await waitFor(() => events('exchange:batch').some((b) => b.changes.some((c) => c.exchange.id === text.exchange && c.phase === 'closed' && c.exchange.outcome === 'ok')), 'the read closed ok');
  });

  it('a URI no server offers is an error shown to the person, and the exchange ends as an error', async () => {
    const out = await call<CommandOutput<'resources:read'>>('resources:read', { launchId, uri: 'nowhere://nothing' });
    expect(out.result).toBeUndefined();
    expect(out.error).toMatch(/nowhere:\/\/nothing/);
    await waitFor(() => events('exchange:batch').some((b) => b.changes.some((c) => c.exchange.id === out.exchange && c.exchange.outcome === 'error')), 'the failed read closed');
  });

  it('subscribes the window; an update arrives as resource:updated; unsubscribing stops tracking it', async () => {
    const uri = 'demo://resource/dynamic/text/3';
    const on = await call<CommandOutput<'resources:subscribe'>>('resources:subscribe', { launchId, uri, subscribed: true });
    expect(on.subscribed).toContain(uri);
    // server-everything sends updates for subscribed URIs once this tool turns them on.
    const toggled = await call<CommandOutput<'tools:call'>>('tools:call', { launchId, name: 'toggle-subscriber-updates', arguments: {} });
    expect(toggled.error).toBeUndefined();
    await waitFor(() => events('resource:updated').some((e) => e.uri === uri && e.launchId === launchId), 'resource:updated');
    const off = await call<CommandOutput<'resources:subscribe'>>('resources:subscribe', { launchId, uri, subscribed: false });
    expect(off.subscribed).not.toContain(uri);
    expect((await call<CommandOutput<'resources:list'>>('resources:list', { launchId })).subscribed).toEqual([]);
  }, 30_000);
});

describe('the window as one more subscriber', () => {
  const unsubscribes = (uri: string) =>
    host.tap.snapshot().filter((e) => e.direction === 'gateway_to_server' && e.method === 'resources/unsubscribe' && JSON.stringify(e.message).includes(uri)).length;

  it('the server stays subscribed while an agent or the window still wants the URI', async () => {
    const uri = 'demo://resource/dynamic/text/9';
    await client.subscribeResource({ uri });
    await call('resources:subscribe', { launchId, uri, subscribed: true });
    await call('resources:subscribe', { launchId, uri, subscribed: false });
    // The agent still holds it: the window's unsubscribe is not passed on.
    expect(unsubscribes(uri)).toBe(0);
    await client.unsubscribeResource({ uri });
    await waitFor(() => unsubscribes(uri) === 1, 'the upstream unsubscribe once nobody wants it');

    const other = 'demo://resource/dynamic/text/10';
    await call('resources:subscribe', { launchId, uri: other, subscribed: true });
    await client.subscribeResource({ uri: other });
    await client.unsubscribeResource({ uri: other });
    // The window still holds it.
    expect(unsubscribes(other)).toBe(0);
    await call('resources:subscribe', { launchId, uri: other, subscribed: false });
    await waitFor(() => unsubscribes(other) === 1, 'the upstream unsubscribe after the window let go');
  });
});

describe('prompts through the gateway', () => {
  it('lists prompts with their arguments and gets one with arguments, as an exchange', async () => {
    const prompts = await call<CommandOutput<'prompts:list'>>('prompts:list', { launchId });
    const args = prompts.find((p) => p.name === 'args-prompt');
    expect(args?.arguments?.map((a) => [a.name, a.required ?? false])).toEqual([['city', true], ['state', false]]);
    const out = await call<CommandOutput<'prompts:get'>>('prompts:get', { launchId, name: 'args-prompt', arguments: { city: 'Lyon', state: 'Rhône' } });
    expect(out.error).toBeUndefined();
    expect(JSON.stringify(out.result?.messages)).toContain('Lyon');
    const legs = host.tap.snapshot().filter((e) => e.exchange === out.exchange);
    expect(legs.some((e) => e.direction === 'gateway_to_server' && e.method === 'prompts/get')).toBe(true);
  });

  it('a missing required argument comes back as the server\'s error, not a throw', async () => {
    const out = await call<CommandOutput<'prompts:get'>>('prompts:get', { launchId, name: 'args-prompt', arguments: {} });
    expect(out.result).toBeUndefined();
    expect(out.error).toMatch(/city/i);
  });

  it('refuses non-string prompt arguments at the contract', async () => {
    await expect(api.handle('prompts:get', { launchId, name: 'args-prompt', arguments: { city: 7 } })).rejects.toThrow(/invalid input for 'prompts:get'/);
  });
});

describe('HAR and curl', () => {
  it('exports the agent\'s HTTP exchanges as HAR 1.2 that validates, with MCP headers and no token', async () => {
    await client.callTool({ name: 'echo', arguments: { message: 'har-entry' } });
    await client.readResource({ uri: 'demo://resource/dynamic/text/5' });
    const out = await waitFor(async () => {
      const h = await call<CommandOutput<'traffic:har'>>('traffic:har', { session: launchId });
      return JSON.stringify(h.har).includes('har-entry') && JSON.stringify(h.har).includes('dynamic/text/5') ? h : undefined;
    }, 'the echo call in the HAR');

    const require = createRequire(import.meta.url);
    const schemas = require('har-schema') as Record<string, Record<string, unknown>>;
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
    addFormats.default(ajv);
    for (const [name, schema] of Object.entries(schemas)) if (name !== 'har') ajv.addSchema(schema);
    const validate = ajv.compile(schemas.har!);
    expect(validate(out.har), JSON.stringify(validate.errors)).toBe(true);
    // The validator is live: an entry without its request is refused.
    expect(validate({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [{ startedDateTime: new Date().toISOString(), time: 0 }] } })).toBe(false);

    const text = JSON.stringify(out.har);
    expect(text).not.toContain(TOKEN);
    const entries = (out.har.log as { entries: Array<{ request: { headers: Array<{ name: string; value: string }>; postData: { text: string } }; response: { status: number; content: { text?: string } } }> }).entries;
    expect(out.entries).toBe(entries.length);
    // initialize, notifications/initialized, and at least the echo and the read.
    expect(entries.length).toBeGreaterThanOrEqual(4);
    // The window's own calls have no HTTP leg: not in the HAR.
    expect(text).not.toContain('ui-web');
    const echo = entries.find((e) => e.request.postData.text.includes('har-entry'))!;
    const h = Object.fromEntries(echo.request.headers.map((x) => [x.name, x.value]));
    expect(h.Authorization).toBe('Bearer $GATEHOUSE_TOKEN');
    expect(h['Mcp-Session-Id']).toBe(client.transport && (client.transport as StreamableHTTPClientTransport).sessionId);
    expect(h['MCP-Protocol-Version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(echo.response.status).toBe(200);
    expect(echo.response.content.text).toContain('har-entry');
  });

  it('copy as curl: the agent request with the token as $GATEHOUSE_TOKEN, never in clear', async () => {
    await client.callTool({ name: 'echo', arguments: { message: "curl it's quoted" } });
    const row = await waitFor(
      () => host.tap.snapshot().find((e) => e.direction === 'agent_to_gateway' && e.kind === 'request' && JSON.stringify(e.message).includes('curl it')),
      'the curl call in the tap',
    );
    const { command } = await call<CommandOutput<'traffic:curl'>>('traffic:curl', { session: launchId, exchange: row.exchange! });
    expect(command).toContain('-H "Authorization: Bearer $GATEHOUSE_TOKEN"');
    expect(command).not.toContain(TOKEN);
    expect(command).toContain(`'Mcp-Session-Id: ${(client.transport as StreamableHTTPClientTransport).sessionId}'`);
    expect(command).toContain(`it'\\''s quoted`);
    expect(command.startsWith(`curl -sS -X POST '${host.launches.get(launchId)!.endpoint!.url}'`)).toBe(true);
  });

  it('curl of an exchange without an HTTP request (the window\'s own call) says why', async () => {
    const read = await call<CommandOutput<'resources:read'>>('resources:read', { launchId, uri: 'demo://resource/dynamic/text/6' });
    await expect(api.handle('traffic:curl', { session: launchId, exchange: read.exchange })).rejects.toThrow(/no HTTP leg/);
  });
});

describe('Audit: outcome filter, totals, export', () => {
  it('denied includes the approval timeout\'s denial; totals count every match beyond the page', async () => {
    await client.callTool({ name: 'get-env', arguments: {} }); // denied by a rule
    await client.callTool({ name: 'get-tiny-image', arguments: {} }); // approve: nobody answers within 1 s
    const denied = await waitFor(async () => {
      const q = await call<CommandOutput<'audit:query'>>('audit:query', { session: launchId, group: 'denied' });
      return (q.calls ?? []).length >= 2 ? q : undefined;
    }, 'two denials on record');
    const by = (denied.calls ?? []).map((c) => String(c.decidedBy)).sort();
    expect(by).toEqual(expect.arrayContaining(['rule', 'timeout']));
    const timeouts = await call<CommandOutput<'audit:query'>>('audit:query', { session: launchId, group: 'timeout_denied' });
    expect((timeouts.calls ?? []).every((c) => c.decidedBy === 'timeout')).toBe(true);
    expect(timeouts.calls?.length).toBeGreaterThanOrEqual(1);

    const all = await call<CommandOutput<'audit:query'>>('audit:query', { session: launchId });
    const page = await call<CommandOutput<'audit:query'>>('audit:query', { session: launchId, limit: 2 });
    expect(page.calls?.length).toBe(2);
    expect(page.callsTotal).toBe(all.callsTotal);
    expect(all.callsTotal).toBe(all.calls?.length);
    expect(all.callsTotal).toBeGreaterThan(2);
  }, 30_000);

  it('exports the same JSON Lines as the CLI, per stream, with no secret', async () => {
    const calls = await call<CommandOutput<'audit:export'>>('audit:export', { session: launchId, stream: 'calls' });
    const lines = calls.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBe(calls.count);
    expect(lines.some((l) => l.method === 'resources/read' && String(l.id).startsWith('ui-web#resource-'))).toBe(true);
    expect(calls.fileName).toMatch(/^gatehouse-audit-calls-.*\.jsonl$/);
    const messages = await call<CommandOutput<'audit:export'>>('audit:export', { session: launchId });
    expect(messages.count).toBeGreaterThan(0);
    expect(messages.text).not.toContain(TOKEN);
  });
});
