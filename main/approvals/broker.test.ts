import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApprovalBroker, NO_APPROVER_REASON, type ApprovalEvent, type ApprovalRequest } from './broker';

const req = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  session: 'launch-1',
  agentSession: 'agent-1',
  tool: 'files.write_file',
  server: 'files',
  args: { path: 'a.txt', content: 'x' },
  reason: 'writes need approval',
  ...over,
});

function setup() {
  const broker = new ApprovalBroker();
  const events: ApprovalEvent[] = [];
  broker.onEvent((e) => events.push(e));
  const detach = broker.attachApprover({ name: 'test' });
  return { broker, events, detach };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ApprovalBroker', () => {
  it('denies at once when no approver is attached', async () => {
    const broker = new ApprovalBroker();
    const events: ApprovalEvent[] = [];
    broker.onEvent((e) => events.push(e));
    const outcome = await broker.request(req(), { timeoutMs: 1000 });
    expect(outcome).toEqual({ approved: false, how: 'no_approver', reason: NO_APPROVER_REASON });
    expect(events.map((e) => e.type)).toEqual(['requested', 'resolved']);
    expect(broker.pending()).toEqual([]);
  });

  it('queues with unguessable ids and times, in order, and lists them', async () => {
    const { broker, events } = setup();
    const p1 = broker.request(req({ exchange: 'x1' }), { timeoutMs: 60_000 });
    const p2 = broker.request(req({ tool: 'files.move', exchange: 'x2' }), { timeoutMs: 60_000 });
    const pending = broker.pending();
    expect(pending.map((p) => p.exchange)).toEqual(['x1', 'x2']);
    expect(pending[0]!.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(pending[0]!.id).not.toBe(pending[1]!.id);
    expect(pending[0]!.expiresAt - pending[0]!.createdAt).toBe(60_000);
    expect(pending[0]!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(pending[0]!.kind).toBe('tool');
    expect(events.filter((e) => e.type === 'requested')).toHaveLength(2);
    broker.answer(pending[1]!.id, { choice: 'deny', by: 'ui', note: 'not now' });
    broker.answer(pending[0]!.id, { choice: 'allow_once', by: 'ui' });
    expect(await p2).toEqual({ approved: false, how: 'denied', by: 'ui', reason: 'denied by ui: not now' });
    expect(await p1).toEqual({ approved: true, how: 'once', by: 'ui', reason: 'allowed once by ui' });
    const resolved = events.filter((e) => e.type === 'resolved');
    expect(resolved.map((e) => e.request.exchange)).toEqual(['x2', 'x1']);
  });

  it('lets the first answer win', async () => {
    const { broker } = setup();
    const p = broker.request(req(), { timeoutMs: 60_000 });
    const id = broker.pending()[0]!.id;
    expect(broker.answer(id, { choice: 'deny', by: 'tty' })).toBe(true);
    expect(broker.answer(id, { choice: 'allow_once', by: 'ui' })).toBe(false);
    expect(broker.answer('no-such-id', { choice: 'allow_once', by: 'ui' })).toBe(false);
    expect((await p).how).toBe('denied');
  });

  it('rejects a malformed answer without resolving', async () => {
    const { broker } = setup();
    const p = broker.request(req(), { timeoutMs: 60_000 });
    const id = broker.pending()[0]!.id;
    expect(broker.answer(id, { choice: 'allow_forever' as never, by: 'ui' })).toBe(false);
    expect(broker.pending()).toHaveLength(1);
    broker.answer(id, { choice: 'deny', by: 'ui' });
    await p;
  });

  it('allow once remembers nothing', async () => {
    const { broker } = setup();
    const p = broker.request(req(), { timeoutMs: 60_000 });
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_once', by: 'ui' });
    await p;
    void broker.request(req(), { timeoutMs: 60_000 });
    expect(broker.pending()).toHaveLength(1);
  });

  it('allow for session is bound to the agent session and the exact action', async () => {
    const { broker } = setup();
    const p = broker.request(req(), { timeoutMs: 60_000 });
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_session', by: 'ui' });
    expect(await p).toMatchObject({ approved: true, how: 'session', by: 'ui' });

    // Same tool, same arguments in another key order: granted at once.
    const again = await broker.request(req({ args: { content: 'x', path: 'a.txt' } }), { timeoutMs: 60_000 });
    expect(again).toMatchObject({ approved: true, how: 'grant', by: 'ui' });
    // Different arguments, another agent session, or another launch: asked again.
    void broker.request(req({ args: { path: 'b.txt', content: 'x' } }), { timeoutMs: 60_000 });
    void broker.request(req({ agentSession: 'agent-2' }), { timeoutMs: 60_000 });
    void broker.request(req({ session: 'launch-2' }), { timeoutMs: 60_000 });
    expect(broker.pending()).toHaveLength(3);
  });

  it('allow tool for session covers any arguments of that tool only', async () => {
    const { broker } = setup();
    const p = broker.request(req(), { timeoutMs: 60_000 });
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_tool_session', by: 'tty' });
    expect(await p).toMatchObject({ approved: true, how: 'tool_session' });
    expect(await broker.request(req({ args: { path: 'other' } }), { timeoutMs: 60_000 })).toMatchObject({ how: 'grant', by: 'tty' });
    void broker.request(req({ tool: 'files.delete_file' }), { timeoutMs: 60_000 });
    void broker.request(req({ kind: 'sampling' }), { timeoutMs: 60_000 });
    expect(broker.pending()).toHaveLength(2);
  });

  it('a fresh grant also answers identical requests already waiting', async () => {
    const { broker } = setup();
    const a = broker.request(req(), { timeoutMs: 60_000 });
    const b = broker.request(req(), { timeoutMs: 60_000 });
    const c = broker.request(req({ args: { path: 'c' } }), { timeoutMs: 60_000 });
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_session', by: 'ui' });
    expect((await a).how).toBe('session');
    expect((await b).how).toBe('grant');
    expect(broker.pending()).toHaveLength(1);
    broker.answer(broker.pending()[0]!.id, { choice: 'deny', by: 'ui' });
    expect((await c).how).toBe('denied');
  });

  it('binds a session grant to a caller-supplied fingerprint of the real arguments', async () => {
    const { broker } = setup();
    const redacted = { token: '«secret:API»' };
    const p = broker.request(req({ args: redacted, fingerprint: 'f1' }), { timeoutMs: 60_000 });
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_session', by: 'ui' });
    await p;
    expect((await broker.request(req({ args: redacted, fingerprint: 'f1' }), { timeoutMs: 60_000 })).how).toBe('grant');
    void broker.request(req({ args: redacted, fingerprint: 'f2' }), { timeoutMs: 60_000 });
    expect(broker.pending()).toHaveLength(1);
  });

  it('clearSession drops that agent session’s grants only', async () => {
    const { broker } = setup();
    for (const agentSession of ['agent-1', 'agent-2']) {
      const p = broker.request(req({ agentSession }), { timeoutMs: 60_000 });
      broker.answer(broker.pending()[0]!.id, { choice: 'allow_tool_session', by: 'ui' });
      await p;
    }
    broker.clearSession('agent-1');
    expect((await broker.request(req({ agentSession: 'agent-2' }), { timeoutMs: 60_000 })).how).toBe('grant');
    void broker.request(req({ agentSession: 'agent-1' }), { timeoutMs: 60_000 });
    expect(broker.pending()).toHaveLength(1);
    broker.clearLaunch('launch-1');
    void broker.request(req({ agentSession: 'agent-2' }), { timeoutMs: 60_000 });
    expect(broker.pending()).toHaveLength(2);
  });

  it('denies when nobody answers before the timeout', async () => {
    vi.useFakeTimers();
    const { broker, events } = setup();
    const p = broker.request(req(), { timeoutMs: 120_000 });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(await p).toEqual({ approved: false, how: 'timeout', reason: 'no answer within 120s' });
    expect(broker.pending()).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'resolved', outcome: { how: 'timeout' } });
  });

  it('cancels when the agent aborts the call, before or while waiting', async () => {
    const { broker } = setup();
    const ac = new AbortController();
    const p = broker.request(req(), { timeoutMs: 60_000, signal: ac.signal });
    const id = broker.pending()[0]!.id;
    ac.abort();
    expect(await p).toMatchObject({ approved: false, how: 'cancelled' });
    expect(broker.answer(id, { choice: 'allow_once', by: 'ui' })).toBe(false);
    expect((await broker.request(req(), { timeoutMs: 60_000, signal: ac.signal })).how).toBe('cancelled');
    expect(broker.pending()).toEqual([]);
  });

  it('isolates listener errors and supports unsubscribe', async () => {
    const errors: unknown[] = [];
    const broker = new ApprovalBroker({ onListenerError: (e) => errors.push(e) });
    broker.attachApprover({ name: 'x' });
    broker.onEvent(() => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    const off = broker.onEvent((e) => seen.push(e.type));
    const p = broker.request(req(), { timeoutMs: 60_000 });
    off();
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_once', by: 'ui' });
    expect((await p).approved).toBe(true);
    expect(seen).toEqual(['requested']);
    expect(errors).toHaveLength(2);
  });

  it('tracks attached approvers; pending requests outlive a detach', async () => {
    const broker = new ApprovalBroker();
    const d1 = broker.attachApprover({ name: 'ui' });
    const d2 = broker.attachApprover({ name: 'ui' });
    expect(broker.approvers()).toEqual(['ui', 'ui']);
    const p = broker.request(req(), { timeoutMs: 60_000 });
    d1();
    d2();
    d2();
    expect(broker.approvers()).toEqual([]);
    expect(broker.pending()).toHaveLength(1);
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_once', by: 'ui' });
    expect((await p).approved).toBe(true);
    expect((await broker.request(req(), { timeoutMs: 60_000 })).how).toBe('no_approver');
  });
});
