// The approvals relay, gateway side: RelayClient and RelayingApprovalBroker against a real
// window-side relay (startApprovalRelay) on a Unix socket. POSIX only (the named pipe is untested).
import { describe, expect, it } from 'vitest';
import net from 'node:net';
import path from 'node:path';
import { startApprovalRelay } from './relay-server';
import { LineSplitter } from './relay-wire';
import { RELAY_BAD_ANSWER_REASON, RELAY_LOST_REASON, RELAY_NO_APPROVER_REASON, RELAY_NO_QUESTIONS_REASON, RelayClient, RelayingApprovalBroker } from './relaying-broker';
import { aReq, ASK, breq, FORM, posix, SAMPLING_Q, useRelayFixture, waitUntil } from './relay-fixture';

describe.runIf(posix)('approvals relay, gateway side', () => {
  const f = useRelayFixture();

  const client = (socketPath = f.relay.path!) => {
    const c = new RelayClient({ socketPath, profile: 'p', initialBackoffMs: 20, maxBackoffMs: 50 });
    f.clients.push(c);
    c.start();
    return c;
  };

  it('forwards when the window has an approver, and remembers session grants locally', async () => {
    const detach = f.broker.attachApprover({ name: 'ui' });
    const off = f.broker.onEvent((e) => {
      if (e.type === 'requested' && f.broker.get(e.request.id)) f.broker.answer(e.request.id, { choice: 'allow_session', by: 'ui' });
    });
    const c = client();
    await waitUntil(() => c.canForward(), 'connected');
    const local = new RelayingApprovalBroker(c);
    expect(local.route()).toBe('relay');
    const first = await local.request(breq(), { timeoutMs: 5000 });
    expect(first).toMatchObject({ approved: true, how: 'session', by: 'ui' });
    const asked = f.events.filter((e) => e.type === 'requested').length;
    // Same action again: answered here by the remembered grant, the window is not asked.
    expect(await local.request(breq(), { timeoutMs: 5000 })).toMatchObject({ approved: true, how: 'grant', by: 'ui' });
    expect(f.events.filter((e) => e.type === 'requested').length).toBe(asked);
    // Different arguments: asked again.
    expect(await local.request(breq({ args: { other: 1 } }), { timeoutMs: 5000 })).toMatchObject({ approved: true, how: 'session' });
    off();
    detach();
  });

  it('times out locally with the broker wording, and cancels in the window', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const c = client();
    await waitUntil(() => c.canForward(), 'connected');
    const local = new RelayingApprovalBroker(c);
    const outcome = await local.request(breq(), { timeoutMs: 300 });
    expect(outcome).toEqual({ approved: false, how: 'timeout', reason: 'no answer within 0.3s' });
    await waitUntil(() => f.broker.pending().length === 0, 'window side settled');
  });

  it('an aborted call cancels the window request', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const c = client();
    await waitUntil(() => c.canForward(), 'connected');
    const local = new RelayingApprovalBroker(c);
    const ac = new AbortController();
    const p = local.request(breq(), { timeoutMs: 10_000, signal: ac.signal });
    await waitUntil(() => f.broker.pending()[0], 'pending in the window');
    ac.abort();
    expect(await p).toMatchObject({ approved: false, how: 'cancelled' });
    await waitUntil(() => f.broker.pending().length === 0, 'withdrawn from the window');
  });

  it('denies at once, saying how to fix it, with no window or no approver in it', async () => {
    const none = new RelayingApprovalBroker(client(path.join(f.dir, 'nowhere.sock')));
    expect(await none.request(breq(), { timeoutMs: 5000 })).toEqual({ approved: false, how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });
    const c = client();
    await waitUntil(() => c.connected(), 'connected');
    const empty = new RelayingApprovalBroker(c);
    expect(empty.route()).toBe('none');
    expect(await empty.request(breq(), { timeoutMs: 5000 })).toMatchObject({ how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });
    expect(f.broker.pending()).toEqual([]);
  });

  it('a local approver answers first; a window that goes away fails waiting calls, then reconnects', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const c = client();
    await waitUntil(() => c.canForward(), 'connected');
    const local = new RelayingApprovalBroker(c);
    const detachTty = local.attachApprover({ name: 'tty' });
    expect(local.route()).toBe('local');
    const p = local.request(breq(), { timeoutMs: 10_000 });
    local.answer(local.pending()[0]!.id, { choice: 'deny', by: 'tty' });
    expect(await p).toMatchObject({ how: 'denied', by: 'tty' });
    detachTty();

    const waiting = local.request(breq(), { timeoutMs: 10_000 });
    await waitUntil(() => f.broker.pending()[0], 'pending in the window');
    await f.relay.close();
    expect(await waiting).toEqual({ approved: false, how: 'no_approver', reason: RELAY_LOST_REASON });
    expect(await local.request(breq(), { timeoutMs: 10_000 })).toMatchObject({ how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });

    f.relay = await startApprovalRelay({ broker: f.broker, dataDir: f.dataDir });
    await waitUntil(() => c.canForward(), 'reconnected');
    const again = local.request(breq(), { timeoutMs: 10_000 });
    const pending = await waitUntil(() => f.broker.pending()[0], 'pending after reconnect');
    f.broker.answer(pending.id, { choice: 'allow_once', by: 'ui' });
    expect(await again).toMatchObject({ approved: true, how: 'once' });
  });

  describe('questions (ask)', () => {
    const answerFirst = (choice: 'accept' | 'decline' | 'cancel', content?: unknown) =>
      f.broker.onEvent((e) => {
        if (e.type === 'requested' && f.broker.get(e.request.id)) f.broker.answer(e.request.id, { choice, by: 'ui', ...(content !== undefined ? { content } : {}) });
      });

    it('asks the window and returns its answer; a decline declines', async () => {
      f.broker.attachApprover({ name: 'ui' });
      const c = client();
      await waitUntil(() => c.canAsk(), 'connected, takes questions');
      const local = new RelayingApprovalBroker(c);
      let off = answerFirst('accept', { name: 'Ada' });
      expect(await local.ask(aReq(), { timeoutMs: 5000 })).toEqual({ answered: true, by: 'ui', content: { action: 'accept', content: { name: 'Ada' } } });
      off();
      const asked = f.events.find((e) => e.type === 'requested')!.request;
      expect(asked).toMatchObject({ session: expect.stringMatching(/^gateway:\d+$/), kind: 'elicitation', question: FORM, triggerTool: ASK.triggerTool, agentSession: 'agent-1' });
      off = answerFirst('accept', { text: 'forty-two' });
      expect(await local.ask(aReq({ kind: 'sampling', tool: 'sampling/createMessage', question: SAMPLING_Q }), { timeoutMs: 5000 })).toEqual({
        answered: true,
        by: 'ui',
        content: { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'human (Gatehouse)', stopReason: 'endTurn' },
      });
      off();
      off = answerFirst('decline');
      expect(await local.ask(aReq(), { timeoutMs: 5000 })).toEqual({ answered: false, how: 'declined', by: 'ui', reason: 'declined by ui' });
      off();
    });

    it('times out locally, and an aborted call withdraws the question from the window', async () => {
      f.broker.attachApprover({ name: 'ui' });
      const c = client();
      await waitUntil(() => c.canAsk(), 'connected');
      const local = new RelayingApprovalBroker(c);
      expect(await local.ask(aReq(), { timeoutMs: 300 })).toEqual({ answered: false, how: 'timeout', reason: 'no answer within 0.3s' });
      await waitUntil(() => f.broker.pending().length === 0, 'window side settled');
      const ac = new AbortController();
      const p = local.ask(aReq(), { timeoutMs: 10_000, signal: ac.signal });
      await waitUntil(() => f.broker.pending()[0], 'pending in the window');
      ac.abort();
      expect(await p).toMatchObject({ answered: false, how: 'cancelled' });
      await waitUntil(() => f.broker.pending().length === 0, 'withdrawn from the window');
    });

    it('a local approver answers first; a window that goes away fails the question; none at all fails closed', async () => {
      f.broker.attachApprover({ name: 'ui' });
      const c = client();
      await waitUntil(() => c.canAsk(), 'connected');
      const local = new RelayingApprovalBroker(c);
      const detachTty = local.attachApprover({ name: 'tty' });
      const here = local.ask(aReq(), { timeoutMs: 10_000 });
      expect(local.pending()[0]).toMatchObject({ kind: 'elicitation', question: FORM });
      expect(f.broker.pending()).toEqual([]);
      local.answer(local.pending()[0]!.id, { choice: 'accept', by: 'tty', content: { name: 'Bo' } });
      expect(await here).toMatchObject({ answered: true, by: 'tty' });
      detachTty();

      const waiting = local.ask(aReq(), { timeoutMs: 10_000 });
      await waitUntil(() => f.broker.pending()[0], 'pending in the window');
      await f.relay.close();
      expect(await waiting).toEqual({ answered: false, how: 'no_approver', reason: RELAY_LOST_REASON });
      expect(await local.ask(aReq(), { timeoutMs: 10_000 })).toEqual({ answered: false, how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });
    });

    it('fails closed with a window too old for questions, and declines an answer that does not fit', async () => {
      // A stand-in window: welcomes without `questions`, or answers every question with `result`.
      const fake = (welcome: Record<string, unknown>, result: unknown) => {
        const sock = path.join(f.dir, `f${Math.random().toString(36).slice(2, 8)}.sock`);
        const server = net.createServer((s) => {
          const lines = new LineSplitter();
          s.on('data', (chunk: Buffer) => {
            const got = lines.push(chunk);
            if (got === 'overflow') return;
            for (const line of got) {
              const msg = JSON.parse(line) as { type: string; id?: string };
              if (msg.type === 'hello') s.write(`${JSON.stringify(welcome)}\n`);
              if (msg.type === 'ask') s.write(`${JSON.stringify({ type: 'answer', id: msg.id, result })}\n`);
            }
          });
          s.on('error', () => {});
        });
        server.listen(sock);
        return { sock, server };
      };
      const old = fake({ type: 'welcome', approvers: 1 }, undefined);
      const oldClient = client(old.sock);
      await waitUntil(() => oldClient.canForward(), 'connected to the old window');
      expect(oldClient.canAsk()).toBe(false);
      expect(await new RelayingApprovalBroker(oldClient).ask(aReq(), { timeoutMs: 5000 })).toEqual({ answered: false, how: 'no_approver', reason: RELAY_NO_QUESTIONS_REASON });

      const liar = fake({ type: 'welcome', approvers: 1, questions: true }, { answered: true, by: 'ui', content: { action: 'accept', content: { age: 'old' } } });
      const liarClient = client(liar.sock);
      await waitUntil(() => liarClient.canAsk(), 'connected to the other window');
      const res = await new RelayingApprovalBroker(liarClient).ask(aReq(), { timeoutMs: 5000 });
      expect(res).toMatchObject({ answered: false, how: 'declined', by: 'ui' });
      expect(res.answered === false && res.reason).toBe(`${RELAY_BAD_ANSWER_REASON}: 'name' is required`);
      old.server.close();
      liar.server.close();
    });
  });
});
