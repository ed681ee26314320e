// Both eras on the stdio gateway (docs/gateway.md "Two eras downstream"): `node out/cli.mjs gateway --profile P` spoken to
// raw, with the OLD-era conformance fixture behind it. New-era requests need no initialize,
// carry their version in _meta and get `resultType`; the bridge turns the fixture's mid-call
// elicitation into input_required; an old-era initialize on the same stream still opens the
// session it always did; subscriptions/listen tags what it delivers with its id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { buildTestBundle, type TestBundle } from '../support/build';
import { RawStdioPeer } from '../support/raw-stdio';
import { oldEraFixtureServer } from '../support/conformance-suite';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';

const V = '2026-07-28';
const meta = (caps: object = { elicitation: {} }) => ({ 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': caps });

const PROFILE = `
name: stdio-new-era
workspace: ./ws
servers:
  conf:
${oldEraFixtureServer()}
policy:
  default: allow
`;

describe('stdio gateway: MCP 2026-07-28 beside 2025-11-25 on one stream', () => {
  let bundle: TestBundle;
  let tmp: ReturnType<typeof tempDir>;
  let peer: RawStdioPeer;

  beforeAll(() => {
    bundle = buildTestBundle({ cli: 'main/cli/index.ts' });
    tmp = tempDir('gatehouse-stdio-new-era-');
    const file = writeProfile(tmp.dir, PROFILE);
    pinProfile(path.join(tmp.dir, 'data'), file);
    peer = new RawStdioPeer(process.execPath, [bundle.entry('cli'), 'gateway', '--profile', file, '--data-dir', path.join(tmp.dir, 'data'), '--quiet'], { cwd: tmp.dir });
  }, 60_000);

  afterAll(async () => {
    peer?.kill();
    await peer?.exit;
    tmp?.cleanup();
    bundle?.cleanup();
  });

  it('answers new-era requests without initialize, bridges an elicitation, and refuses a wrong version', async () => {
    const list = await peer.request('l1', 'tools/list', { _meta: meta() });
    expect(list.message.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect((list.message.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain('test_input_required_result_elicitation');

    const r1 = await peer.request('c1', 'tools/call', { name: 'conf.test_input_required_result_elicitation', arguments: {}, _meta: meta() });
    const first = r1.message.result as { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { elicitation: { method: 'elicitation/create' } } });
    // No request went out on the stream: MCP 2026-07-28 has no server→client requests.
    expect(peer.frames.filter((f) => f.message.method === 'elicitation/create')).toEqual([]);
    const r2 = await peer.request('c2', 'tools/call', {
      name: 'conf.test_input_required_result_elicitation',
      arguments: {},
      inputResponses: { elicitation: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.requestState,
      _meta: meta(),
    });
    expect(r2.message.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });

    const wrong = await peer.request('w1', 'tools/list', { _meta: { ...meta(), 'io.modelcontextprotocol/protocolVersion': '2099-12-31' } });
    expect(wrong.message.error).toMatchObject({ code: -32022, data: { requested: '2099-12-31', supported: expect.arrayContaining([V, '2025-11-25']) } });
    const missing = await peer.request('w2', 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } });
    expect(missing.message.error).toMatchObject({ code: -32602 });
  });

  it('still opens an old-era session on the same stream, and the two eras keep their own shapes', async () => {
    const init = await peer.request('i1', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
    expect(init.message.result).toMatchObject({ protocolVersion: '2025-11-25' });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const old = await peer.request('o1', 'tools/call', { name: 'conf.test_simple_text', arguments: {} });
    expect(old.message.result).toEqual({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
    const fresh = await peer.request('n1', 'tools/call', { name: 'conf.test_simple_text', arguments: {}, _meta: meta() });
    expect(fresh.message.result).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'gatehouse' } } });
  });

  it('cancels a new-era call on notifications/cancelled (its exchange is found by the id the agent gave)', async () => {
    peer.send({ jsonrpc: '2.0', id: 'x2', method: 'tools/call', params: { name: 'conf.test_tool_with_progress', arguments: {}, _meta: { ...meta(), progressToken: 'p1' } } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x2', reason: 'changed my mind' } });
    // The next request is served; the cancelled one gets no answer (MCP cancellation). The tool
    // answers within ~100 ms when it is not cancelled: by the time the third request is answered
    // and 300 ms more have passed, an answer to x2 would be here.
    const after = await peer.request('x3', 'tools/list', { _meta: meta() });
    expect(after.message.result).toMatchObject({ resultType: 'complete' });
    await new Promise((r) => setTimeout(r, 300));
    expect(peer.frames.filter((f) => f.message.id === 'x2' && ('result' in f.message || 'error' in f.message)).map((f) => f.text)).toEqual([]);
  });

  it('delivers subscriptions/listen notifications tagged with the subscription id, acknowledged first', async () => {
    peer.send({ jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: { notifications: { promptsListChanged: true }, _meta: meta({}) } });
    const ack = await peer.waitFor((f) => f.message.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement');
    expect(ack.message.params).toEqual({ notifications: { promptsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } });
    await peer.request('t1', 'tools/call', { name: 'conf.test_trigger_prompt_change', arguments: {}, _meta: meta() });
    const changed = await peer.waitFor((f) => f.message.method === 'notifications/prompts/list_changed' && (f.message.params as { _meta?: object } | undefined)?._meta !== undefined, 'prompts list_changed on the listen stream');
    expect(changed.message.params).toEqual({ _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } });
    expect(peer.garbage).toEqual([]);
  });

  it('replaces resources/subscribe with a listen stream: the gateway subscribes upstream and tags the updates', async () => {
    const uri = 'test://watched-resource';
    peer.send({ jsonrpc: '2.0', id: 'sub-2', method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: [uri] }, _meta: meta({}) } });
    const ack = await peer.waitFor((f) => f.message.method === 'notifications/subscriptions/acknowledged' && (f.message.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/subscriptionId'] === 'sub-2', 'the acknowledgement');
    expect(ack.message.params).toMatchObject({ notifications: { resourceSubscriptions: [uri] } });
    // The upstream subscription is made as the stream opens; touch until the server says it is subscribed.
    for (let i = 0; ; i++) {
      const r = await peer.request(`touch-${i}`, 'tools/call', { name: 'conf.test_touch_watched_resource', arguments: {}, _meta: meta() });
      if (JSON.stringify(r.message.result).includes('updated')) break;
      if (i > 50) throw new Error('the gateway never subscribed upstream');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const updated = await peer.waitFor((f) => f.message.method === 'notifications/resources/updated' && (f.message.params as { _meta?: object })._meta !== undefined, 'the update on the listen stream');
    expect(updated.message.params).toEqual({ uri, _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-2' } });
  });
});
