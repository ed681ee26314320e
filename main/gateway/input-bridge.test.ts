import { describe, expect, it } from 'vitest';
import { ExchangeTable } from './exchanges';
import { InputBridge } from './input-bridge';
import { RequestStateError, RequestStateSealer } from './request-state';

function setup(holdMs = 60_000) {
  const table = new ExchangeTable();
  const bridge = new InputBridge({ table, sealer: new RequestStateSealer(), holdMs });
  const ex = table.openExchange({ kind: 'call', session: 's', agentSession: 'a', downstreamId: 1, method: 'tools/call' });
  table.update(ex, { agentEra: '2026-07-28' });
  const ctx = { caller: 'http:', target: 'tools/call:t', capabilities: { elicitation: {}, sampling: {} } };
  const ask = (method: string, params?: Record<string, unknown>) => bridge.routedSession(ex, method === 'sampling/createMessage' ? 'sampling' : 'elicitation')!.channel.request(method, params, { stamp: ex });
  return { table, bridge, ex, ctx, ask };
}

describe('InputBridge', () => {
  it('turns questions raised together into one input_required, and answers them from the retry', async () => {
    const { bridge, ex, ctx, ask } = setup();
    const first = bridge.start(ex, ctx, async () => {
      const [a, b] = await Promise.all([ask('elicitation/create', { message: 'name?' }), ask('sampling/createMessage', { messages: [] })]);
      return { content: [{ type: 'text', text: JSON.stringify([a, b]) }] };
    });
    const r1 = await first;
    expect(r1).toMatchObject({ result: { resultType: 'input_required', inputRequests: { elicitation: { method: 'elicitation/create' }, sampling: { method: 'sampling/createMessage' } } } });
    const state = (r1 as { result: { requestState: string } }).result.requestState;
    const r2 = await bridge.resume(state, { elicitation: { action: 'accept', content: { n: 'x' } }, sampling: { role: 'assistant', content: { type: 'text', text: 'hi' } } }, ctx);
    expect(JSON.stringify(r2)).toContain('accept');
    expect(bridge.heldCount()).toBe(0);
    await expect(bridge.resume(state, {}, ctx)).rejects.toBeInstanceOf(RequestStateError);
  });

  it("keeps a new-era server's own key when the upstream side passes it (inputKey)", async () => {
    const { bridge, ex, ctx } = setup();
    const session = () => bridge.routedSession(ex, 'elicitation')!;
    const r = await bridge.start(ex, ctx, async () => {
      const reply = await session().channel.request('elicitation/create', { message: 'name?' }, { stamp: ex, inputKey: 'user_name' } as never);
      return { reply } as Record<string, unknown>;
    });
    expect(r).toMatchObject({ result: { inputRequests: { user_name: { method: 'elicitation/create' } } } });
  });

  it('answers -32021 when the agent lacks sampling, declines an elicitation it lacks, and declines when the hold expires', async () => {
    const s = setup(50);
    const noCaps = { ...s.ctx, capabilities: {} };
    const r = await s.bridge.start(s.ex, noCaps, async () => {
      const reply = await s.ask('sampling/createMessage', {});
      return { reply } as Record<string, unknown>;
    });
    expect(r).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });

    // Elicitation has a benign answer: declined to the server, and its next question (sampling,
    // declared) still reaches the agent as input_required. Failing the whole call here failed
    // the suite's capability-check with an old-era upstream that asks for both.
    const u = setup();
    const samplingOnly = { ...u.ctx, capabilities: { sampling: {} } };
    let declined: unknown;
    const both = await u.bridge.start(u.ex, samplingOnly, async () => {
      declined = await u.ask('elicitation/create', { message: 'name?' });
      const sampled = await u.ask('sampling/createMessage', { messages: [] });
      return { content: [{ type: 'text', text: JSON.stringify(sampled) }] };
    });
    expect(declined).toMatchObject({ result: { action: 'decline' } });
    expect(both).toMatchObject({ result: { resultType: 'input_required', inputRequests: { sampling: { method: 'sampling/createMessage' } } } });
    expect(Object.keys((both as { result: { inputRequests: object } }).result.inputRequests)).toEqual(['sampling']);

    const t = setup(50);
    let answered: unknown;
    const started = t.bridge.start(t.ex, t.ctx, async () => {
      answered = await t.ask('elicitation/create', {});
      return { done: true };
    });
    expect(await started).toMatchObject({ result: { resultType: 'input_required' } });
    // Released by its timer: wait for it however slow the machine is.
    while (answered === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toMatchObject({ result: { action: 'decline' } });
    expect(t.bridge.heldCount()).toBe(0);
    expect(t.ex.reason).toContain('did not retry');
  });
});

describe('the hold bound', () => {
  it('defaults to 120 s, takes GATEHOUSE_INPUT_HOLD_MS, and an explicit option over both', () => {
    const table = new ExchangeTable();
    const sealer = new RequestStateSealer();
    const before = process.env.GATEHOUSE_INPUT_HOLD_MS;
    try {
      delete process.env.GATEHOUSE_INPUT_HOLD_MS;
      expect(new InputBridge({ table, sealer }).holdMs).toBe(120_000);
      process.env.GATEHOUSE_INPUT_HOLD_MS = '5000';
      expect(new InputBridge({ table, sealer }).holdMs).toBe(5000);
      process.env.GATEHOUSE_INPUT_HOLD_MS = 'soon';
      expect(new InputBridge({ table, sealer }).holdMs).toBe(120_000);
      expect(new InputBridge({ table, sealer, holdMs: 750 }).holdMs).toBe(750);
    } finally {
      if (before === undefined) delete process.env.GATEHOUSE_INPUT_HOLD_MS;
      else process.env.GATEHOUSE_INPUT_HOLD_MS = before;
    }
  });
});
