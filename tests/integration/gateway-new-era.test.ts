// MCP 2026-07-28 beside 2025-11-25 on one gateway, and the input bridge, attacked (docs/gateway.md "Two eras downstream"):
// both eras on one endpoint at once; a wrong version, missing _meta, header mismatches; a
// tampered, replayed, foreign, misdirected or stolen requestState; a retry after the hold
// expired; an agent that never retries (the server gets a decline, nothing stays held); a
// capability the agent did not declare; the same over stdio. The upstream is the OLD-era
// conformance fixture over stdio (tests/fixtures/conformance/server.mjs), a real process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Host, type Launch } from '../../main/host';
import { conformanceProfile, oldEraFixtureServer } from '../support/conformance-suite';
import { tempDir, writeProfile } from '../support/temp';
import { waitFor } from '../support/gateway';

const V = '2026-07-28';
const ALL_CAPS = { sampling: {}, elicitation: {}, roots: {} };

const PROFILE = (name: string, policy?: string) => conformanceProfile(name, oldEraFixtureServer(), policy);

interface Reply {
  status: number;
  body: { id?: unknown; result?: Record<string, unknown> & { resultType?: string; inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>; requestState?: string }; error?: { code: number; message: string; data?: Record<string, unknown> } };
  headers: Headers;
  /** Every message of an SSE answer (notifications before the answer), or just the answer. */
  events: Array<{ method?: string; params?: Record<string, unknown> }>;
}

let nextId = 1;

/** One new-era POST, with the standard headers unless told otherwise. */
async function post(launch: Launch, method: string, params: Record<string, unknown>, opts: { caps?: object; headers?: Record<string, string | undefined>; token?: string; meta?: Record<string, unknown> | null } = {}): Promise<Reply> {
  const name = method === 'resources/read' ? params.uri : params.name;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${opts.token ?? launch.token}`,
    'mcp-protocol-version': V,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  };
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  const meta = opts.meta === null ? undefined : (opts.meta ?? { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': opts.caps ?? ALL_CAPS, 'io.modelcontextprotocol/clientInfo': { name: 'gatehouse-test', version: '1' } });
  const res = await fetch(launch.endpoint!.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, ...(meta ? { _meta: meta } : {}) } }),
  });
  const text = await res.text();
  const events = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)))
    : [JSON.parse(text)];
  const data = events.find((m: { result?: unknown; error?: unknown }) => m.result !== undefined || m.error !== undefined);
  return { status: res.status, body: data, headers: res.headers, events };
}

const call = (launch: Launch, name: string, extra: Record<string, unknown> = {}, opts?: Parameters<typeof post>[3]) => post(launch, 'tools/call', { name: `conf.${name}`, arguments: {}, ...extra }, opts);

describe('MCP 2026-07-28 downstream and the input bridge (old-era stdio upstream)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let host: Host;
  let launch: Launch;
  let other: Launch;
  let quick: Launch;
  let governed: Launch;

  beforeAll(async () => {
    tmp = tempDir('gatehouse-new-era-');
    host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    launch = await host.launch(writeProfile(tmp.dir, PROFILE('new-era-a'), 'a.yaml'), { httpPort: 0 });
    other = await host.launch(writeProfile(tmp.dir, PROFILE('new-era-b'), 'b.yaml'), { httpPort: 0 });
    // A launch whose held calls are released fast (the bound is configurable).
    process.env.GATEHOUSE_INPUT_HOLD_MS = '400';
    try {
      quick = await host.launch(writeProfile(tmp.dir, PROFILE('new-era-quick'), 'c.yaml'), { httpPort: 0 });
    } finally {
      delete process.env.GATEHOUSE_INPUT_HOLD_MS;
    }
    governed = await host.launch(
      writeProfile(tmp.dir, PROFILE('new-era-governed', '  default: allow\n  sampling: deny\n  approval_timeout_s: 30\n  rules:\n    - { match: ["conf.test_simple_text"], decision: approve }'), 'd.yaml'),
      { httpPort: 0 },
    );
    for (const l of [launch, other, quick, governed]) expect(l.statuses().map((s) => s.state)).toEqual(['ready']);
  }, 60_000);

  afterAll(async () => {
    await host?.shutdown();
    tmp?.cleanup();
  });

  it('serves both eras on one endpoint at once: an SDK v1 session and stateless requests, interleaved', async () => {
    const client = new Client({ name: 'old-era', version: '1' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), { requestInit: { headers: { authorization: `Bearer ${launch.token}` } } }));
    const sessionsBefore = launch.endpoint!.sessionCount();
    const [old, fresh, discover] = await Promise.all([
      client.callTool({ name: 'conf.test_simple_text', arguments: {} }),
      call(launch, 'test_simple_text'),
      post(launch, 'server/discover', {}),
    ]);
    expect(old.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    expect(old).not.toHaveProperty('resultType');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('mcp-session-id')).toBeNull();
    expect(fresh.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
    expect(discover.body.result).toMatchObject({ supportedVersions: expect.arrayContaining([V, '2025-11-25']), capabilities: { tools: {} }, resultType: 'complete' });
    // No session was opened for the stateless requests.
    expect(launch.endpoint!.sessionCount()).toBe(sessionsBefore);
    const list = await post(launch, 'tools/list', {});
    expect(list.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(Number.isInteger(list.body.result!.ttlMs)).toBe(true);
    // The stateless agent is on record as an agent of the launch, named by its token, with the client it named.
    const stateless = (l: Launch) => host.audit!.getSession(l.gateway.session)?.agentSessions.find((a) => a.id.startsWith('stateless-main-'));
    const agent = await waitFor(() => (host.audit!.flush(), stateless(launch)), 'the stateless agent in the audit store');
    expect(agent).toMatchObject({ transport: 'streamable-http', clientName: 'gatehouse-test', clientVersion: '1' });
    // Another launch of the same host (one data directory) has a stateless agent of its own, on record
    // too (both were once `stateless-main`: the second insert failed on the audit store's key).
    await post(other, 'tools/list', {});
    const second = await waitFor(() => (host.audit!.flush(), stateless(other)), "the other launch's stateless agent in the audit store");
    expect(second.id).not.toBe(agent.id);
    // Both calls are exchanges of the same table; the new-era one says its era.
    const exchanges = launch.gateway.exchanges.snapshot().filter((e) => e.tool === 'conf.test_simple_text');
    expect(exchanges.map((e) => e.agentEra)).toEqual(expect.arrayContaining(['2025-11-25', V]));
    await client.close();
  });

  it('refuses a wrong version, a missing _meta and mismatched or missing headers with the spec codes and HTTP 400', async () => {
    const mismatch = await post(launch, 'tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25', 'io.modelcontextprotocol/clientCapabilities': {} } });
    expect([mismatch.status, mismatch.body.error?.code]).toEqual([400, -32020]);
    const unknown = await post(launch, 'tools/list', {}, { headers: { 'mcp-protocol-version': '2099-01-01' }, meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } });
    expect([unknown.status, unknown.body.error?.code]).toEqual([400, -32022]);
    expect(unknown.body.error?.data).toEqual({ supported: expect.arrayContaining([V, '2025-11-25']), requested: '2099-01-01' });
    expect(unknown.body.id).not.toBeNull();
    const noMeta = await post(launch, 'tools/list', {}, { meta: null });
    expect([noMeta.status, noMeta.body.error?.code]).toEqual([400, -32602]);
    const wrongName = await call(launch, 'test_simple_text', {}, { headers: { 'mcp-name': 'conf.test_error_handling' } });
    expect([wrongName.status, wrongName.body.error?.code]).toEqual([400, -32020]);
    const noMethod = await post(launch, 'tools/list', {}, { headers: { 'mcp-method': undefined } });
    expect([noMethod.status, noMethod.body.error?.code]).toEqual([400, -32020]);
    const removed = await post(launch, 'ping', {});
    expect([removed.status, removed.body.error?.code]).toEqual([404, -32601]);
    // No GET stream and no session to DELETE in the new era; a batch is refused; a notification is taken (202).
    const auth = { authorization: `Bearer ${launch.token}`, 'mcp-protocol-version': V, accept: 'application/json, text/event-stream' };
    expect((await fetch(launch.endpoint!.url, { method: 'GET', headers: auth })).status).toBe(405);
    expect((await fetch(launch.endpoint!.url, { method: 'DELETE', headers: auth })).status).toBe(405);
    const batch = await fetch(launch.endpoint!.url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'mcp-method': 'tools/list' }, body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]) });
    expect(batch.status).toBe(400);
    const note = await fetch(launch.endpoint!.url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'mcp-method': 'notifications/cancelled' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }) });
    expect(note.status).toBe(202);
    // Without the token, nothing: the new era keeps the endpoint's authentication.
    expect((await fetch(launch.endpoint!.url, { method: 'POST', headers: { ...auth, authorization: 'Bearer wrong', 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    // Nothing reached the server for the refused calls.
    expect(launch.gateway.exchanges.snapshot().filter((e) => e.tool === 'conf.test_error_handling')).toEqual([]);
  });

  it("sends a server's log messages only to a request that set a log level in _meta, at that level and above", async () => {
    const base = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
    const withLevel = await call(launch, 'test_tool_with_logging', {}, { meta: { ...base, 'io.modelcontextprotocol/logLevel': 'info' } });
    expect(withLevel.body.result).toMatchObject({ resultType: 'complete' });
    expect(withLevel.events.filter((e) => e.method === 'notifications/message').map((e) => e.params?.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    const above = await call(launch, 'test_tool_with_logging', {}, { meta: { ...base, 'io.modelcontextprotocol/logLevel': 'error' } });
    expect(above.events.filter((e) => e.method === 'notifications/message')).toEqual([]);
    const none = await call(launch, 'test_tool_with_logging', {}, { meta: base });
    expect(none.events.filter((e) => e.method === 'notifications/message')).toEqual([]);
    expect(none.body.result).toMatchObject({ resultType: 'complete' });
  });

  it('records Mcp-Param-* headers on the exchange to forward them', async () => {
    const r = await call(launch, 'test_simple_text', {}, { headers: { 'Mcp-Param-Region': 'eu-west', 'mcp-param-trace': '=?base64?SGVsbG8=?=' } });
    expect(r.status).toBe(200);
    const ex = launch.gateway.exchanges.snapshot().filter((e) => e.agentEra === V && e.tool === 'conf.test_simple_text').at(-1)!;
    expect(ex.forwardHeaders).toEqual({ 'mcp-param-region': 'eu-west', 'mcp-param-trace': '=?base64?SGVsbG8=?=' });
  });

  it("checks a tool's x-mcp-header parameters against their Mcp-Param-* headers (SEP-2243) before anything reaches the server", async () => {
    const ok = await call(launch, 'test_custom_headers', { arguments: { region: 'eu-west' } }, { headers: { 'Mcp-Param-Region': 'eu-west' } });
    expect(ok.body.result).toMatchObject({ content: [{ text: 'region=eu-west' }] });
    const b64 = await call(launch, 'test_custom_headers', { arguments: { region: 'Hello' } }, { headers: { 'Mcp-Param-Region': '=?base64?SGVsbG8=?=' } });
    expect(b64.body.result).toMatchObject({ content: [{ text: 'region=Hello' }] });
    const before = launch.gateway.exchanges.snapshot().filter((e) => e.tool === 'conf.test_custom_headers').length;
    for (const headers of [{}, { 'Mcp-Param-Region': 'us-east' }, { 'Mcp-Param-Region': '=?base64?SGVs!!bG8=?=' }]) {
      const r = await call(launch, 'test_custom_headers', { arguments: { region: 'eu-west' } }, { headers });
      expect([r.status, r.body.error?.code], JSON.stringify(headers)).toEqual([400, -32020]);
    }
    expect(launch.gateway.exchanges.snapshot().filter((e) => e.tool === 'conf.test_custom_headers')).toHaveLength(before);
  });

  it('bridges a multi-round elicitation: each round is part of the one exchange, the server requests its children', async () => {
    const r1 = await call(launch, 'test_input_required_result_multi_round');
    expect(r1.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { elicitation: { method: 'elicitation/create', params: { message: 'Step 1: What is your name?' } } } });
    const r2 = await call(launch, 'test_input_required_result_multi_round', { inputResponses: { elicitation: { action: 'accept', content: { name: 'Ada' } } }, requestState: r1.body.result!.requestState });
    expect(r2.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { elicitation_2: { params: { message: 'Step 2: What is your favorite color?' } } } });
    expect(r2.body.result!.requestState).not.toBe(r1.body.result!.requestState);
    // Replaying round 1's state is refused; the call is still held and answers round 2.
    const replay = await call(launch, 'test_input_required_result_multi_round', { inputResponses: { elicitation: { action: 'accept', content: { name: 'Eve' } } }, requestState: r1.body.result!.requestState });
    expect(replay.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('already answered') });
    const r3 = await call(launch, 'test_input_required_result_multi_round', { inputResponses: { elicitation_2: { action: 'accept', content: { color: 'green' } } }, requestState: r2.body.result!.requestState });
    expect(r3.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Ada likes green' }] });
    const call0 = launch.gateway.exchanges.snapshot().find((e) => e.tool === 'conf.test_input_required_result_multi_round' && e.outcome === 'ok')!;
    expect(call0).toMatchObject({ agentEra: V, round: 2, kind: 'call' });
    const children = launch.gateway.exchanges.snapshot().filter((e) => e.parent === call0.id);
    expect(children.map((c) => [c.method, c.outcome])).toEqual([
      ['elicitation/create', 'ok'],
      ['elicitation/create', 'ok'],
    ]);
    // The audit store has the call with its era and rounds, and its two questions under it.
    await waitFor(() => (host.audit!.flush(), host.audit!.queryCalls({ text: call0.id }).find((r) => r.id === call0.id && r.outcome === 'ok')), 'the audit row');
    expect(host.audit!.queryCalls({ text: call0.id }).find((r) => r.id === call0.id)).toMatchObject({ agentEra: V, round: 2, outcome: 'ok' });
    // And after the answer, the used state is worth nothing.
    const late = await call(launch, 'test_input_required_result_multi_round', { inputResponses: {}, requestState: r2.body.result!.requestState });
    expect(late.body.error?.code).toBe(-32602);
  });

  it('refuses a tampered, foreign, misdirected or stolen requestState, and keeps the call held for the right one', async () => {
    const r1 = await call(launch, 'test_input_required_result_request_state');
    const state = r1.body.result!.requestState!;
    const answer = { elicitation: { action: 'accept', content: { ok: true } } };
    const flipped = state.slice(0, -3) + (state.at(-3) === 'A' ? 'B' : 'A') + state.slice(-2);
    const tampered = await call(launch, 'test_input_required_result_request_state', { inputResponses: answer, requestState: flipped });
    expect(tampered.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('integrity') });
    // Another gateway (another launch, another key) cannot read it.
    const foreign = await call(other, 'test_input_required_result_request_state', { inputResponses: answer, requestState: state });
    expect(foreign.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('integrity') });
    // For another tool: refused.
    const misdirected = await call(launch, 'test_input_required_result_tampered_state', { inputResponses: answer, requestState: state });
    expect(misdirected.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('belongs to') });
    // Another token of the same gateway (another terminal) cannot resume it.
    const stolen = launch.endpoint!.issueToken('terminal-x');
    const thief = await call(launch, 'test_input_required_result_request_state', { inputResponses: answer, requestState: state }, { token: stolen.token });
    expect(thief.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('another client') });
    stolen.revoke();
    // A malformed answer is refused without using up the state.
    const bad = await call(launch, 'test_input_required_result_request_state', { inputResponses: { elicitation: 12345 }, requestState: state });
    expect(bad.body.error?.code).toBe(-32602);
    const good = await call(launch, 'test_input_required_result_request_state', { inputResponses: answer, requestState: state });
    expect(good.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'state-ok: confirmed=true' }] });
  });

  it('answers -32021 (HTTP 400) when the server needs a capability the agent did not declare, and lets the call go', async () => {
    const r = await call(launch, 'test_missing_capability', {}, { caps: {} });
    expect([r.status, r.body.error?.code]).toEqual([400, -32021]);
    expect(r.body.error?.data).toEqual({ requiredCapabilities: { sampling: {} } });
    await waitFor(() => launch.gateway.exchanges.openExchanges().filter((e) => e.tool === 'conf.test_missing_capability').length === 0, 'the call to close');
    expect(launch.gateway.newEra().bridge.heldCount()).toBe(0);
  });

  it('releases a call the agent never retries: the server gets a decline, nothing stays held, a late retry is told why', async () => {
    const r1 = await call(quick, 'test_input_required_result_elicitation');
    expect(r1.body.result?.resultType).toBe('input_required');
    const bridge = quick.gateway.newEra().bridge;
    expect(bridge.holdMs).toBe(400);
    await waitFor(() => bridge.heldCount() === 0, 'the hold to be released');
    // The server saw a decline and finished its tool; its elicitation exchange is closed as declined.
    await waitFor(() => quick.gateway.exchanges.openExchanges().length === 0, 'every exchange to close');
    const ex = quick.gateway.exchanges.snapshot().find((e) => e.tool === 'conf.test_input_required_result_elicitation')!;
    expect(ex.reason).toContain('the agent did not retry');
    const child = quick.gateway.exchanges.snapshot().find((e) => e.parent === ex.id)!;
    expect(child).toMatchObject({ method: 'elicitation/create', outcome: 'denied' });
    const late = await call(quick, 'test_input_required_result_elicitation', { inputResponses: { elicitation: { action: 'accept', content: { name: 'Bob' } } }, requestState: r1.body.result!.requestState });
    expect(late.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('was released') });
  });

  it('streams subscriptions/listen over HTTP: acknowledged first, then only the types asked for, tagged, until the agent closes it', async () => {
    const ac = new AbortController();
    const res = await fetch(launch.endpoint!.url, {
      method: 'POST',
      signal: ac.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${launch.token}`, 'mcp-protocol-version': V, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { notifications: { promptsListChanged: true, toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames: Array<{ method?: string; params?: { _meta?: Record<string, unknown>; notifications?: unknown } }> = [];
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffer += value;
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer.slice(0, i).split('\n').find((l) => l.startsWith('data:'));
          buffer = buffer.slice(i + 2);
          if (data) frames.push(JSON.parse(data.slice(5)));
        }
      }
    })();
    await waitFor(() => frames.length > 0, 'the acknowledgement');
    expect(frames[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { promptsListChanged: true, toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } } });
    await call(launch, 'test_trigger_prompt_change');
    const changed = await waitFor(() => frames.find((f) => f.method === 'notifications/prompts/list_changed'), 'prompts list_changed');
    expect(changed.params).toEqual({ _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } });
    // Nothing it did not ask for (resources) came.
    expect(frames.filter((f) => f.method === 'notifications/resources/list_changed')).toEqual([]);
    expect(launch.gateway.newEra().listenerCount()).toBe(1);
    // Tool pinning holds a tool that appears mid-launch, so a tool change may not change the list (docs/gateway.md).
    ac.abort();
    await pump;
    // The closed stream is forgotten.
    await waitFor(() => launch.gateway.newEra().listenerCount() === 0, 'the listener to go');
  });

  it('governs new-era calls as old-era ones: approvals through the broker, policy.sampling before the bridge, a closed request cancels', async () => {
    const detach = host.broker.attachApprover({ name: 'test' });
    try {
      // APPROVAL: the call waits for a person; approved, it runs.
      const pending = call(governed, 'test_simple_text');
      const ask = await waitFor(() => host.broker.pending().find((p) => p.tool === 'conf.test_simple_text'), 'the approval');
      host.broker.answer(ask.id, { choice: 'allow_once', by: 'tester' });
      expect((await pending).body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'This is a simple text response for testing.' }] });
      // The agent closes its request while the approval is pending: the call is cancelled and the question withdrawn.
      const ac = new AbortController();
      const abandoned = fetch(governed.endpoint!.url, {
        method: 'POST',
        signal: ac.signal,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${governed.token}`, 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'conf.test_simple_text' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'gone', method: 'tools/call', params: { name: 'conf.test_simple_text', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      }).catch(() => undefined);
      await waitFor(() => host.broker.pending().find((p) => p.tool === 'conf.test_simple_text'), 'the second approval');
      ac.abort();
      await abandoned;
      await waitFor(() => host.broker.pending().length === 0, 'the approval to be withdrawn');
      const ex = await waitFor(() => governed.gateway.exchanges.snapshot().find((e) => e.downstreamId === 'gone' && e.outcome), 'the exchange to close');
      expect(ex).toMatchObject({ outcome: 'cancelled', agentEra: V });
    } finally {
      detach();
    }
    // policy.sampling deny: the server's sampling request is refused by policy, nothing is asked of the agent.
    const denied = await call(governed, 'test_input_required_result_sampling');
    expect(denied.body.result?.resultType).not.toBe('input_required');
    expect(JSON.stringify(denied.body)).toContain('DENY');
    expect(governed.gateway.newEra().bridge.heldCount()).toBe(0);
  });

  it('asks several questions raised together in one input_required, and re-asks the ones left unanswered', async () => {
    const r1 = await call(launch, 'test_input_required_result_multiple_inputs');
    const reqs = r1.body.result!.inputRequests!;
    expect(Object.values(reqs).map((q) => q.method).sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    const r2 = await call(launch, 'test_input_required_result_multiple_inputs', { inputResponses: { roots: { roots: [{ uri: 'file:///tmp' }] } }, requestState: r1.body.result!.requestState });
    expect(Object.keys(r2.body.result!.inputRequests!).sort()).toEqual(['elicitation', 'sampling']);
    const r3 = await call(launch, 'test_input_required_result_multiple_inputs', {
      inputResponses: { elicitation: { action: 'accept', content: { name: 'Ada' } }, sampling: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } },
      requestState: r2.body.result!.requestState,
    });
    expect(r3.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'name=Ada; greeting=hi; roots=1' }] });
  });
});
