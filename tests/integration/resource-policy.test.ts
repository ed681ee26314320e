// Policy for resources/read and prompts/get through the real gateway in front of a real
// server-everything (docs/gateway.md "Resources and prompts under policy"): an agent's read
// denied by a rule (both protocol eras), approved by a person through the host API, timing out
// to a denial; a prompt get asked of a person; the window's own reads treated the same; a
// completion decided by the rules of what it completes; every decision in the audit store with
// who decided; the default (allow) unchanged for the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CommandOutput, EventName, EventPayload } from '../../common/host-api';
import { Host, type Launch } from '../../main/host';
import { createHostApiDispatcher, type HostApiDispatcher } from '../../main/api/dispatcher';
import { tempDir, writeProfile } from '../support/temp';
import { connectHttp, waitFor } from '../support/gateway';

const TOKEN = 'resource-policy-token-0123456789';
const PROFILE = `
name: resource-policy
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
  approval_timeout_s: 1.5
  rules:
    - { resource: "demo://resource/dynamic/text/1*", decision: deny, reason: resource one is private }
    - { resource: "demo://resource/dynamic/text/2", decision: approve }
    - { prompt: args-prompt, args: { city: { pattern: "Paris" } }, decision: allow }
    - { prompt: args-prompt, decision: approve }
    - { resource: "demo://resource/dynamic/blob/**", decision: deny, reason: blobs are private }
    - { prompt: completable-prompt, args: { department: { pattern: "Engineering" } }, decision: deny, reason: engineering is private }
    - { prompt: completable-prompt, decision: approve }
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let api: HostApiDispatcher;
let launch: Launch;
let agent: Client;
const seen: Array<{ event: EventName; payload: unknown }> = [];
const events = <E extends EventName>(event: E) => seen.filter((s) => s.event === event).map((s) => s.payload as EventPayload<E>);

function decisionsFor(tool: string) {
  host.audit!.flush();
  return host.audit!.queryDecisions({ session: launch.id }).filter((d) => d.tool === tool);
}

/** The next approval the window is shown, once it is pending. */
async function nextApproval(tool: string) {
  return waitFor(async () => ((await api.handle('approvals:list', {})) as CommandOutput<'approvals:list'>).find((a) => a.tool === tool), `an approval for ${tool}`);
}

let nextId = 1;
/** One MCP 2026-07-28 (stateless) request straight to the gateway. */
async function newEra(method: string, params: Record<string, unknown>) {
  const V = '2026-07-28';
  const name = method === 'resources/read' ? params.uri : params.name;
  const res = await fetch(launch.endpoint!.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${TOKEN}`,
      'mcp-protocol-version': V,
      'mcp-method': method,
      'mcp-name': String(name),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'new-era-agent', version: '1' } } },
    }),
  });
  const text = await res.text();
  const messages = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)))
    : [JSON.parse(text)];
  return messages.find((m: { result?: unknown; error?: unknown }) => m.result !== undefined || m.error !== undefined) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, PROFILE);
  host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_PROFILES_DIR: path.join(tmp.dir, 'profiles') } });
  api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
  api.subscribe((event, payload) => seen.push({ event, payload }));
  launch = await host.launch(file, { httpPort: 0, token: TOKEN });
  await waitFor(() => launch.supervisor.get('everything')?.status().state === 'ready', 'everything ready');
  agent = await connectHttp(launch, {}, 'reader-agent');
}, 60_000);

afterAll(async () => {
  await agent?.close().catch(() => {});
  api?.close();
  await host?.shutdown();
  tmp?.cleanup();
});

describe('resources/read under policy', () => {
  it('a denied read is a JSON-RPC error naming the rule, never reaches the server, and is on record', async () => {
    const before = host.tap.snapshot().filter((e) => e.direction === 'gateway_to_server' && e.method === 'resources/read').length;
    await expect(agent.readResource({ uri: 'demo://resource/dynamic/text/1' })).rejects.toThrow(/DENY: resource one is private/);
    // A dot segment does not walk around the glob.
    await expect(agent.readResource({ uri: 'demo://resource/dynamic/blob/../text/1' })).rejects.toThrow(/DENY/);
    expect(host.tap.snapshot().filter((e) => e.direction === 'gateway_to_server' && e.method === 'resources/read').length).toBe(before);
    const d = await waitFor(() => decisionsFor('resource:demo://resource/dynamic/text/1')[0], 'the denial in the audit');
    expect(d).toMatchObject({ decision: 'DENY', outcome: 'denied', rule: 'policy.rules[0]', server: 'everything' });
  });

  it('the new era gets the same denial', async () => {
    const r = await newEra('resources/read', { uri: 'demo://resource/dynamic/text/1' });
    expect(r.result).toBeUndefined();
    expect(r.error?.message).toMatch(/DENY: resource one is private/);
  });

  it('a read no rule matches goes through as before, and is recorded as allowed by policy.resources', async () => {
    const r = await agent.readResource({ uri: 'demo://resource/dynamic/text/3' });
    expect(JSON.stringify(r.contents)).toContain('Resource 3');
    const d = await waitFor(() => decisionsFor('resource:demo://resource/dynamic/text/3')[0], 'the allowed read');
    expect(d).toMatchObject({ decision: 'ALLOW', outcome: 'allowed', rule: 'policy.resources' });
  });

  it('an approve rule shows a resource card; a person allowing it through the host API lets the read through', async () => {
    const reading = agent.readResource({ uri: 'demo://resource/dynamic/text/2' });
    const card = await nextApproval('resource:demo://resource/dynamic/text/2');
    expect(card).toMatchObject({ kind: 'resource', server: 'everything', args: { uri: 'demo://resource/dynamic/text/2' }, rule: 'policy.rules[1]' });
    expect((await api.handle('approvals:answer', { id: card.id, choice: 'allow_once' })) as { ok: boolean }).toEqual({ ok: true });
    expect(JSON.stringify((await reading).contents)).toContain('Resource 2');
    const d = await waitFor(() => decisionsFor('resource:demo://resource/dynamic/text/2').find((x) => x.outcome === 'approved'), 'the approval in the audit');
    expect(d).toMatchObject({ decision: 'APPROVAL', rule: 'policy.rules[1]' });
    expect(d.answeredBy).toBeTruthy();
  });

  it('an unanswered approval denies at the timeout', async () => {
    const started = Date.now();
    const reading = agent.readResource({ uri: 'demo://resource/dynamic/text/2' });
    await nextApproval('resource:demo://resource/dynamic/text/2');
    await expect(reading).rejects.toThrow(/DENY: .*(timed out|no answer|unanswered)/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const d = await waitFor(() => decisionsFor('resource:demo://resource/dynamic/text/2').find((x) => x.outcome === 'timeout'), 'the timeout in the audit');
    expect(d.decision).toBe('APPROVAL');
  });
});

describe('prompts/get under policy', () => {
  it('argument constraints decide; a prompt card is denied by a person and the agent is told', async () => {
    const ok = await agent.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris' } });
    expect(JSON.stringify(ok.messages)).toContain('Paris');
    const getting = agent.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } });
    const card = await nextApproval('prompt:everything.args-prompt');
    expect(card).toMatchObject({ kind: 'prompt', args: { city: 'Oslo' }, rule: 'policy.rules[3]' });
    await api.handle('approvals:answer', { id: card.id, choice: 'deny' });
    await expect(getting).rejects.toThrow(/DENY: denied by/);
    const d = await waitFor(() => decisionsFor('prompt:everything.args-prompt').find((x) => x.outcome === 'denied'), 'the denial in the audit');
    expect(d).toMatchObject({ decision: 'APPROVAL', rule: 'policy.rules[3]' });
  });
});

describe('completion/complete under the policy of what it completes', () => {
  const upstreamCompletions = () => host.tap.snapshot().filter((e) => e.direction === 'gateway_to_server' && e.method === 'completion/complete').length;

  it('a template no rule matches completes as before', async () => {
    const r = await agent.complete({ ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '5' } });
    expect(r.completion.values).toEqual(['5']);
  });

  it("a denied template's completions are a DENY naming it, and never reach the server", async () => {
    const before = upstreamCompletions();
    await expect(agent.complete({ ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/blob/{resourceId}' }, argument: { name: 'resourceId', value: '' } })).rejects.toThrow(
      /DENY: completions for resource:demo:\/\/resource\/dynamic\/blob\/\{resourceId\}: blobs are private/,
    );
    // args: constraints see the arguments typed so far (context) and the value being completed.
    await expect(agent.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Engineering' } } })).rejects.toThrow(/engineering is private/);
    expect(upstreamCompletions()).toBe(before);
  });

  it('a prompt that needs approval completes with no values, asks nobody, and says why in the audit', async () => {
    const before = upstreamCompletions();
    const r = await agent.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'S' } });
    expect(r.completion.values).toEqual([]);
    expect(upstreamCompletions()).toBe(before);
    expect((await api.handle('approvals:list', {})) as unknown[]).toEqual([]);
    const d = await waitFor(() => decisionsFor('prompt:everything.completable-prompt').find((x) => x.outcome === 'declined'), 'the withheld completion in the audit');
    expect(d).toMatchObject({ decision: 'APPROVAL', rule: 'policy.rules[6]', args: { department: 'S' } });
    expect(d.reason).toMatch(/not forwarded: it needs approval/);
  });
});

describe("the window's own reads", () => {
  it('are governed the same: a denied URI is an error in the Resources view, its exchange closed as denied', async () => {
    const out = (await api.handle('resources:read', { launchId: launch.id, uri: 'demo://resource/dynamic/text/1' })) as CommandOutput<'resources:read'>;
    expect(out.result).toBeUndefined();
    expect(out.error).toMatch(/DENY: resource one is private/);
    await waitFor(() => events('exchange:batch').some((b) => b.changes.some((c) => c.exchange.id === out.exchange && c.exchange.outcome === 'denied')), 'the window read closed as denied');
    const prompt = (await api.handle('prompts:get', { launchId: launch.id, name: 'args-prompt', arguments: { city: 'Paris' } })) as CommandOutput<'prompts:get'>;
    expect(prompt.error).toBeUndefined();
  });
});
