// The call pipeline against a fake upstream (named as such: it stands in for a server's
// exchange channel, so each path's exchange record can be checked without a process). The
// policy and the approvals broker are the real ones.
import { describe, expect, it } from 'vitest';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { ApprovalBroker } from '../approvals/broker';
import { compilePolicy } from '../policy/engine';
import type { PolicyRule } from '../profiles/types';
import type { ChannelRequestOptions, RpcReply } from '../protocol/exchange-channel';
import { CallPipeline, type DecisionEvent, type UpstreamPort } from './call-pipeline';
import { GatewayError } from './errors';
import { CancelledError, ExchangeTable } from './exchanges';
import type { CapabilitiesReport } from '../policy/capabilities';
import { Redactor } from '../secrets/redactor';
import { buildSurface } from './tool-surface';

interface Sent {
  id: RequestId;
  method: string;
  params: Record<string, unknown> | undefined;
  options: ChannelRequestOptions;
}

/** A fake upstream: records what it was sent and answers with `answer` (or never). */
class FakeUpstream implements UpstreamPort {
  readonly sent: Sent[] = [];
  private n = 0;
  constructor(private readonly answer: (s: Sent) => Promise<RpcReply> | 'never') {}
  request(method: string, params: Record<string, unknown> | undefined, options: ChannelRequestOptions, onId?: (id: RequestId) => void): Promise<RpcReply> {
    const id = `gatehouse-${++this.n}`;
    onId?.(id);
    const s = { id, method, params, options };
    this.sent.push(s);
    const a = this.answer(s);
    if (a !== 'never') return a;
    return new Promise((_, reject) => options.signal?.addEventListener('abort', () => reject(options.signal!.reason), { once: true }));
  }
}

function setup(opts: { rules?: PolicyRule[]; upstream?: FakeUpstream; approver?: boolean; timeoutMs?: number; down?: string; firstStarts?: () => Promise<void> } = {}) {
  const table = new ExchangeTable();
  const broker = new ApprovalBroker();
  if (opts.approver) broker.attachApprover({ name: 'tester' });
  const policy = compilePolicy({ default: 'allow', rules: opts.rules ?? [], approvalTimeoutS: 120, sampling: 'approve' }, { workspace: '/ws' });
  const surface = buildSurface(
    [{ serverId: 'files', builtin: false, tools: [{ name: 'read', inputSchema: { type: 'object' } }, { name: 'write', inputSchema: { type: 'object' } }] }],
    { surface: 'friendly', aliases: {} },
  );
  const upstream = opts.upstream ?? new FakeUpstream(async (s) => ({ jsonrpc: '2.0', id: s.id, result: { content: [{ type: 'text', text: 'ok' }], extra: 1 } }));
  const decisions: DecisionEvent[] = [];
  const pipeline = new CallPipeline({
    session: 'launch-1',
    table,
    policy,
    broker,
    redactor: new Redactor(),
    approvalTimeoutMs: () => opts.timeoutMs ?? 60_000,
    tools: { currentSurface: () => surface, heldFor: () => undefined, heldServerFor: () => undefined, searchTools: () => [] },
    servers: {
      upstream: () => (opts.down ? { unavailable: opts.down } : { port: upstream, timeoutMs: 5_000 }),
      describeServer: () => 'ready (test)',
      firstStarts: opts.firstStarts ?? (() => Promise.resolve()),
    },
    capabilities: { capabilitiesReport: () => ({}) as CapabilitiesReport },
    events: { decided: (d) => decisions.push(d) },
  });
  const open = (id = 7) => table.openExchange({ kind: 'call', session: 'launch-1', agentSession: 'agent-1', downstreamId: id, method: 'tools/call' });
  return { table, broker, pipeline, upstream, decisions, open };
}

describe('CallPipeline', () => {
  it('allowed: forwards with an id the gateway assigns and records the whole exchange', async () => {
    const { pipeline, upstream, open, table } = setup();
    const ex = open();
    const result = await pipeline.toolsCall(ex, { name: 'read', arguments: { path: 'a' } });
    // Passed through as it came, unknown fields included.
    expect(result).toEqual({ content: [{ type: 'text', text: 'ok' }], extra: 1 });
    expect(upstream.sent).toHaveLength(1);
    expect(upstream.sent[0]!.params).toEqual({ name: 'read', arguments: { path: 'a' } });
    expect(upstream.sent[0]!.options.stamp).toBe(ex);
    expect(table.get('agent-1#7')).toMatchObject({
      tool: 'files.read',
      advertised: 'read',
      server: 'files',
      downstreamId: 7,
      upstreamId: 'gatehouse-1',
      decision: 'ALLOW',
      decidedBy: 'rule',
      outcome: 'ok',
    });
    expect(ex.sentAt).toBeGreaterThanOrEqual(ex.receivedAt);
    expect(ex.answeredAt).toBeGreaterThanOrEqual(ex.sentAt!);
    expect(table.byUpstream('files', 'gatehouse-1')).toBeUndefined();
  });

  it('denied by policy: never reaches the server; the exchange says the rule decided', async () => {
    const { pipeline, upstream, open, decisions } = setup({ rules: [{ match: ['files.write'], decision: 'deny' }] });
    const ex = open();
    const result = await pipeline.toolsCall(ex, { name: 'write', arguments: {} });
    expect(result.isError).toBe(true);
    expect(upstream.sent).toEqual([]);
    expect(ex).toMatchObject({ decision: 'DENY', decidedBy: 'rule', outcome: 'denied' });
    expect(decisions.at(-1)).toMatchObject({ exchange: ex.id, decision: 'DENY', decidedBy: 'rule', outcome: 'denied' });
  });

  it('approval with nobody to ask: denied, decided by "no approver"', async () => {
    const { pipeline, upstream, open } = setup({ rules: [{ match: ['files.write'], decision: 'approve' }] });
    const ex = open();
    await pipeline.toolsCall(ex, { name: 'write', arguments: {} });
    expect(upstream.sent).toEqual([]);
    expect(ex).toMatchObject({ decision: 'APPROVAL', decidedBy: 'no_approver', outcome: 'denied' });
  });

  it('approval unanswered: denied by the timeout', async () => {
    const { pipeline, open } = setup({ rules: [{ match: ['files.write'], decision: 'approve' }], approver: true, timeoutMs: 50 });
    const ex = open();
    await pipeline.toolsCall(ex, { name: 'write', arguments: {} });
    expect(ex).toMatchObject({ decision: 'APPROVAL', decidedBy: 'timeout', outcome: 'denied' });
  });

  it('approval denied by a person, and allowed by a person', async () => {
    const { pipeline, open, broker, upstream } = setup({ rules: [{ match: ['files.write'], decision: 'approve' }], approver: true });
    const denied = open(1);
    const p1 = pipeline.toolsCall(denied, { name: 'write', arguments: { n: 1 } });
    await new Promise((r) => setTimeout(r, 5));
    broker.answer(broker.pending()[0]!.id, { choice: 'deny', by: 'alice' });
    await p1;
    expect(denied).toMatchObject({ decidedBy: 'person', answeredBy: 'alice', outcome: 'denied' });
    const allowed = open(2);
    const p2 = pipeline.toolsCall(allowed, { name: 'write', arguments: { n: 2 } });
    await new Promise((r) => setTimeout(r, 5));
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_once', by: 'bob' });
    await p2;
    expect(allowed).toMatchObject({ decision: 'APPROVAL', decidedBy: 'person', answeredBy: 'bob', outcome: 'ok' });
    expect(upstream.sent).toHaveLength(1);
  });

  it('cancelled while it waits for a first start: never asked, never sent (found in review)', async () => {
    let started!: () => void;
    const starting = new Promise<void>((r) => (started = r));
    const { pipeline, upstream, open, table, broker } = setup({ approver: true, rules: [{ match: ['*'], decision: 'approve' }], firstStarts: () => starting });
    const ex = open();
    const call = pipeline.toolsCall(ex, { name: 'read_later', arguments: {} });
    // The agent cancels (or goes away) before anyone asked for the exchange's signal.
    table.cancel(ex, 'the agent cancelled');
    started();
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    expect(ex.outcome).toBe('cancelled');
    expect(broker.pending()).toHaveLength(0);
    expect(upstream.sent).toHaveLength(0);
  });

  it('unknown tool: a JSON-RPC error with one bare message; the exchange exists and says so', async () => {
    const { pipeline, open } = setup();
    const ex = open();
    const err = await pipeline.toolsCall(ex, { name: 'nope', arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe(-32602);
    expect((err as GatewayError).message).toBe('Unknown tool: nope');
    expect(ex).toMatchObject({ outcome: 'error', error: 'Unknown tool: nope' });
  });

  it('an upstream JSON-RPC error passes through with its own code and message', async () => {
    const upstream = new FakeUpstream(async (s) => ({ jsonrpc: '2.0', id: s.id, error: { code: -32000, message: 'disk on fire', data: { x: 1 } } }));
    const { pipeline, open } = setup({ upstream });
    const ex = open();
    const err = (await pipeline.toolsCall(ex, { name: 'read', arguments: {} }).catch((e: unknown) => e)) as GatewayError;
    expect([err.code, err.message, err.data]).toEqual([-32000, 'disk on fire', { x: 1 }]);
    expect(ex.outcome).toBe('error');
  });

  it('server unavailable: a tool error, outcome unavailable, nothing sent', async () => {
    const { pipeline, open, upstream } = setup({ down: "server 'files' is unavailable: restarting (crashed)" });
    const ex = open();
    const result = await pipeline.toolsCall(ex, { name: 'read', arguments: {} });
    expect(result.isError).toBe(true);
    expect(upstream.sent).toEqual([]);
    expect(ex.outcome).toBe('unavailable');
  });

  it('progress: the upstream token maps back to the agent token through the table', async () => {
    let release!: () => void;
    const upstream = new FakeUpstream(
      (s) =>
        new Promise((resolve) => {
          release = () => resolve({ jsonrpc: '2.0', id: s.id, result: { content: [] } });
        }),
    );
    const { pipeline, open, table } = setup({ upstream });
    const ex = open();
    const got: unknown[] = [];
    const done = pipeline.toolsCall(ex, { name: 'read', arguments: {}, _meta: { progressToken: 'agent-token' } }, (token) => ({
      token,
      send: async (p) => void got.push(p),
    }));
    await new Promise((r) => setTimeout(r, 5));
    const upstreamToken = (upstream.sent[0]!.params!._meta as { progressToken: string }).progressToken;
    expect(upstreamToken).not.toBe('agent-token');
    expect(table.byProgress('files', upstreamToken)).toBe(ex);
    table.progressSink(ex)!({ progress: 1, total: 2 });
    release();
    await done;
    expect(got).toEqual([{ progress: 1, total: 2, progressToken: 'agent-token' }]);
    expect(table.byProgress('files', upstreamToken)).toBeUndefined();
  });

  it('cancelled by the agent: the upstream request is aborted, no answer, outcome cancelled', async () => {
    const upstream = new FakeUpstream(() => 'never');
    const { pipeline, open, table } = setup({ upstream });
    const ex = open();
    const done = pipeline.toolsCall(ex, { name: 'read', arguments: {} }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 5));
    table.cancel(ex, 'user pressed stop');
    expect(await done).toBeInstanceOf(CancelledError);
    expect(upstream.sent[0]!.options.signal!.aborted).toBe(true);
    expect(ex.outcome).toBe('cancelled');
  });
});
