// UpstreamInput's own checks on what a new-era server sends (the integration test,
// tests/integration/upstream-input.test.ts, runs the rounds against a real SDK v2 server; these
// are the replies a conforming SDK server refuses to produce, so the "server" here is a function
// returning them — a stand-in for a broken or hostile implementation).
import { describe, expect, it } from 'vitest';
import type { RpcReply } from '../protocol/exchange-channel';
import type { Exchange } from './exchanges';
import { UpstreamInput, isInputRequired } from './upstream-input';

const ex = { id: 'a#1', kind: 'call', session: 's', method: 'tools/call', receivedAt: 0 } as Exchange;
const reply = (result: Record<string, unknown>): RpcReply => ({ jsonrpc: '2.0', id: 1, result });

function run(first: RpcReply, next: RpcReply[] = []) {
  const asked: Array<[string, unknown]> = [];
  const sent: Array<Record<string, unknown>> = [];
  const input = new UpstreamInput(
    async (_s, method, params) => (asked.push([method, params]), { action: 'accept', content: {} }),
    () => {},
  );
  const promise = input.run({
    ex,
    serverId: 'srv',
    params: { name: 't', arguments: {}, _meta: { progressToken: 'p' }, inputResponses: { stale: {} }, requestState: 'stale' },
    first,
    resend: async (p) => (sent.push(p), next.shift() ?? reply({ content: [] })),
    pause: () => {},
    rearm: () => {},
    signal: new AbortController().signal,
  });
  return { promise, asked, sent };
}

describe('UpstreamInput', () => {
  it('refuses an inputRequests entry with a method a client does not answer, naming both', async () => {
    const { promise, asked } = run(reply({ resultType: 'input_required', inputRequests: { nope: { method: 'tools/call', params: {} } } }));
    await expect(promise).rejects.toThrow("server 'srv' asked for input 'nope' with 'tools/call'; expected elicitation/create, sampling/createMessage or roots/list");
    expect(asked).toEqual([]);
  });

  it('refuses inputRequests that is not an object, and an input_required with neither requests nor state', async () => {
    await expect(run(reply({ resultType: 'input_required', inputRequests: ['x'] })).promise).rejects.toThrow('inputRequests that is not an object (found an array)');
    await expect(run(reply({ resultType: 'input_required' })).promise).rejects.toThrow('neither inputRequests nor requestState');
  });

  it('retries with the original params, this round\'s responses and the server\'s state byte for byte (never a stale one)', async () => {
    const { promise, sent } = run(reply({ resultType: 'input_required', inputRequests: { q: { method: 'roots/list' } }, requestState: 'S1 ✓' }), [reply({ content: [{ type: 'text', text: 'done' }] })]);
    expect(await promise).toEqual(reply({ content: [{ type: 'text', text: 'done' }] }));
    expect(sent).toEqual([{ name: 't', arguments: {}, _meta: { progressToken: 'p' }, inputResponses: { q: { action: 'accept', content: {} } }, requestState: 'S1 ✓' }]);
  });

  it('a state-only round (no questions) sends the state back without inputResponses', async () => {
    const { promise, sent, asked } = run(reply({ resultType: 'input_required', requestState: 'only' }));
    await promise;
    expect(asked).toEqual([]);
    expect(sent).toEqual([{ name: 't', arguments: {}, _meta: { progressToken: 'p' }, requestState: 'only' }]);
  });

  it('knows an input_required reply from a complete one and from an error', () => {
    expect(isInputRequired(reply({ resultType: 'input_required' }))).toBe(true);
    expect(isInputRequired(reply({ resultType: 'complete' }))).toBe(false);
    expect(isInputRequired({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } })).toBe(false);
  });
});
