// The approvals relay in one process: the wire schemas and the window side (startApprovalRelay)
// spoken to over a real Unix socket by a raw client (the gateway side: relaying-broker.test.ts).
// POSIX only (the named pipe is untested).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startApprovalRelay } from './relay-server';
import { ClientMessageSchema, LineSplitter, RELAY_LIMITS, relayLimitReason, relaySocketPath, ServerMessageSchema } from './relay-wire';
import { ApprovalBroker } from './broker';
import { ASK, FORM, ME, posix, RawPeer, REQ, SAMPLING_Q, waitUntil, useRelayFixture } from './relay-fixture';

const RELAY_MAX_PENDING = RELAY_LIMITS.perConnectionPending;

describe('relay wire schemas', () => {
  it('accepts the three client messages and nothing else', () => {
    expect(ClientMessageSchema.safeParse({ type: 'hello', pid: 1, profile: 'demo', version: '1' }).success).toBe(true);
    expect(ClientMessageSchema.safeParse({ type: 'request', id: '1', request: REQ, timeoutMs: 1000 }).success).toBe(true);
    expect(ClientMessageSchema.safeParse({ type: 'cancel', id: '1' }).success).toBe(true);
    for (const bad of [
      { type: 'answer', id: '1', choice: 'allow_once' },
      { type: 'outcome', id: '1', outcome: { approved: true, how: 'once', reason: 'x' } },
      { type: 'request', id: '1', request: REQ, timeoutMs: 1000, answer: 'allow_once' },
      { type: 'request', id: '1', request: { ...REQ, approved: true }, timeoutMs: 1000 },
      { type: 'request', id: '', request: REQ, timeoutMs: 1000 },
      { type: 'request', id: '1', request: REQ, timeoutMs: 0 },
      { type: 'request', id: '1', request: { ...REQ, kind: 'shell' }, timeoutMs: 1000 },
      { type: 'hello', pid: -1, profile: 'p', version: '1' },
    ]) {
      expect(ClientMessageSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('accepts a question (ask) with its kind and question, and nothing looser', () => {
    expect(ClientMessageSchema.safeParse({ type: 'ask', id: 'q1', request: ASK, timeoutMs: 1000 }).success).toBe(true);
    expect(ClientMessageSchema.safeParse({ type: 'ask', id: 'q1', request: { ...ASK, kind: 'sampling', question: SAMPLING_Q }, timeoutMs: 1000 }).success).toBe(true);
    const { question: _q, ...noQuestion } = ASK;
    for (const bad of [
      { type: 'ask', id: 'q1', request: { ...ASK, kind: 'tool' }, timeoutMs: 1000 },
      { type: 'ask', id: 'q1', request: noQuestion, timeoutMs: 1000 },
      { type: 'ask', id: 'q1', request: { ...ASK, question: 'what?' }, timeoutMs: 1000 },
      { type: 'ask', id: 'q1', request: { ...ASK, content: { name: 'x' } }, timeoutMs: 1000 },
      { type: 'ask', id: 'q1', request: ASK, timeoutMs: 1000, result: { answered: true } },
      { type: 'ask', id: 'q1', request: ASK, timeoutMs: -1 },
      { type: 'answer', id: 'q1', result: { answered: true, by: 'ui', content: { action: 'accept' } } },
    ]) {
      expect(ClientMessageSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('accepts an answer (the broker ask result) from the window', () => {
    expect(ServerMessageSchema.safeParse({ type: 'welcome', approvers: 1, questions: true }).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ type: 'answer', id: 'q1', result: { answered: true, by: 'ui', content: { action: 'accept', content: { name: 'Ada' } } } }).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ type: 'answer', id: 'q1', result: { answered: false, how: 'declined', by: 'ui', reason: 'declined by ui' } }).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ type: 'answer', id: 'q1', result: { answered: false, how: 'timeout', reason: 'x' } }).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ type: 'answer', id: 'q1', result: { answered: false, how: 'approved', reason: 'x' } }).success).toBe(false);
    expect(ServerMessageSchema.safeParse({ type: 'answer', id: 'q1', result: { answered: true, by: 'ui' } }).success).toBe(false);
  });

  it('accepts the server messages', () => {
    expect(ServerMessageSchema.safeParse({ type: 'welcome', approvers: 1 }).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ type: 'approvers', count: 0 }).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ type: 'outcome', id: '1', outcome: { approved: false, how: 'timeout', reason: 'x' } }).success).toBe(true);
    expect(ServerMessageSchema.safeParse({ type: 'outcome', id: '1', outcome: { approved: true, how: 'whatever', reason: 'x' } }).success).toBe(false);
  });

  it('splits lines across chunks and refuses an endless one', () => {
    const s = new LineSplitter(10);
    expect(s.push(Buffer.from('ab'))).toEqual([]);
    expect(s.push(Buffer.from('c\nde\r\nf'))).toEqual(['abc', 'de']);
    expect(s.push(Buffer.from('0123456789'))).toBe('overflow');
  });

  it('puts the socket in the data dir (a hashed pipe name on Windows)', () => {
    expect(relaySocketPath('/x/data', 'linux')).toBe('/x/data/approvals.sock');
    expect(relaySocketPath('C:\\Users\\a\\data', 'win32')).toMatch(/^\\\\\.\\pipe\\gatehouse-approvals-[0-9a-f]{16}$/);
  });
});

describe.runIf(posix)('approvals relay', () => {
  const f = useRelayFixture();

  it('listens on <dataDir>/approvals.sock, 0600 in a 0700 folder', () => {
    expect(f.relay.path).toBe(path.join(f.dataDir, 'approvals.sock'));
    expect(fs.statSync(f.relay.path!).mode & 0o777).toBe(0o600);
    expect(fs.statSync(f.dataDir).mode & 0o777).toBe(0o700);
  });

  it('puts a request in the window broker, labelled by the gateway, and returns the answer', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const p = f.peer();
    expect(await p.hello(777)).toEqual({ type: 'welcome', approvers: 1, questions: true });
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    const pending = await waitUntil(() => f.broker.pending()[0], 'the pending request');
    // hello said 777 (a forgery): the card carries the pid the kernel reports for the socket.
    expect(pending).toMatchObject({ session: ME, tool: 'fs.write', agentSession: 'agent-1', args: REQ.args, kind: 'tool' });
    f.broker.answer(pending.id, { choice: 'allow_once', by: 'ui' });
    expect((await p.outcome('r1')).outcome).toEqual({ approved: true, how: 'once', by: 'ui', reason: 'allowed once by ui' });
  });

  it('tells the gateway when approvers attach and detach', async () => {
    const p = f.peer();
    expect(await p.hello()).toEqual({ type: 'welcome', approvers: 0, questions: true });
    const detach = f.broker.attachApprover({ name: 'ui' });
    await waitUntil(() => p.messages.find((m) => m.type === 'approvers' && m.count === 1), 'count 1');
    detach();
    await waitUntil(() => p.messages.find((m) => m.type === 'approvers' && m.count === 0), 'count 0');
  });

  it(`denies the ${RELAY_MAX_PENDING + 1}th waiting request of one connection at once`, async () => {
    f.broker.attachApprover({ name: 'ui' });
    const p = f.peer();
    await p.hello();
    for (let i = 0; i <= RELAY_MAX_PENDING; i++) p.send({ type: 'request', id: `r${i}`, request: { ...REQ, args: { i } }, timeoutMs: 10_000 });
    const limit = `${RELAY_MAX_PENDING} pending per gateway`;
    expect((await p.outcome(`r${RELAY_MAX_PENDING}`)).outcome).toEqual({ approved: false, how: 'denied', reason: relayLimitReason(limit) });
    expect(f.broker.pending()).toHaveLength(RELAY_MAX_PENDING);
    // Refused ones are one notice line, not cards.
    expect(f.broker.notices.list()).toEqual([expect.objectContaining({ count: 1, text: `refused 1 request from gateway pid ${process.pid}: limit ${limit}` })]);
    // A second gateway has its own budget.
    const q = f.peer();
    await q.hello(5);
    q.send({ type: 'request', id: 'x', request: REQ, timeoutMs: 10_000 });
    await waitUntil(() => f.broker.pending().length === RELAY_MAX_PENDING + 1, 'the other connection queued');
    expect(f.broker.pending().at(-1)!.session).toBe(`${ME}#2`);
  });

  it('refuses by bytes and in all: 1 MiB per connection, 64 and 4 MiB across connections; one notice per peer', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const big = 'x'.repeat(200 * 1024);
    const conns = Array.from({ length: 8 }, () => f.peer());
    for (const c of conns) await c.hello();
    // 8 × 8 requests of ~200 KiB: 5 fit a connection's 1 MiB, 20 fit the 4 MiB in all.
    for (const [n, c] of conns.entries()) for (let i = 0; i < 8; i++) c.send({ type: 'request', id: `c${n}-${i}`, request: { ...REQ, args: { big } }, timeoutMs: 10_000 });
    const outcomes = await waitUntil(() => {
      const got = conns.flatMap((c) => c.messages.filter((m) => m.type === 'outcome'));
      return got.length + f.broker.pending().length === 64 ? got : undefined;
    }, 'every request answered or queued');
    const pending = f.broker.pending();
    expect(pending.length).toBeLessThanOrEqual(RELAY_LIMITS.totalBytes / (200 * 1024));
    expect(pending.length).toBeGreaterThan(0);
    for (const c of conns) expect(c.messages.filter((m) => m.type === 'outcome').length).toBeGreaterThanOrEqual(8 - 5);
    for (const o of outcomes) expect((o.outcome as { reason: string }).reason).toMatch(/^relay queue full: .*limit (1 MiB pending per gateway|4 MiB pending in all)/);
    const notices = f.broker.notices.list();
    expect(notices).toHaveLength(1);
    expect(notices[0]!.count).toBe(outcomes.length);
    expect(notices[0]!.text).toMatch(new RegExp(`^refused ${outcomes.length} requests from gateway pid ${process.pid}: limit `));
    // Answering frees budget: a small request fits again.
    for (const r of pending) f.broker.answer(r.id, { choice: 'deny', by: 'ui' });
    await waitUntil(() => f.broker.pending().length === 0, 'all answered');
    conns[0]!.send({ type: 'request', id: 'after', request: REQ, timeoutMs: 10_000 });
    await waitUntil(() => f.broker.pending().length === 1, 'accepted again after the budget came back');
  });

  it('counts the pending cap in all (64) across connections', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const conns = Array.from({ length: 5 }, () => f.peer());
    for (const c of conns) await c.hello();
    for (const [n, c] of conns.entries()) for (let i = 0; i < 16; i++) c.send({ type: 'request', id: `c${n}-${i}`, request: { ...REQ, args: { i } }, timeoutMs: 10_000 });
    await waitUntil(() => conns.flatMap((c) => c.messages.filter((m) => m.type === 'outcome')).length === 16, '16 refused');
    expect(f.broker.pending()).toHaveLength(RELAY_LIMITS.totalPending);
    expect(f.broker.notices.list()[0]!.text).toBe(`refused 16 requests from gateway pid ${process.pid}: limit 64 pending in all`);
  });

  it('refuses a peer of another uid before it says anything', async () => {
    await f.relay.close();
    const logs: string[] = [];
    const uid = (process.getuid?.() ?? 0) + 1;
    f.relay = await startApprovalRelay({ broker: f.broker, dataDir: f.dataDir }, { log: (l) => logs.push(l), peerCredentials: () => ({ verified: true, pid: 31337, uid, gid: uid }) });
    const p = f.peer();
    p.send({ type: 'hello', pid: 1, profile: 'p', version: '1' });
    await waitUntil(() => p.closed, 'closed');
    expect(p.messages).toEqual([]);
    expect(logs.join('\n')).toContain(`refused a connection from uid ${uid} (pid 31337)`);
  });

  it('without peer credentials the card says "unverified", never the pid the peer declared', async () => {
    await f.relay.close();
    f.relay = await startApprovalRelay({ broker: f.broker, dataDir: f.dataDir }, { peerCredentials: () => ({ verified: false, reason: 'addon not built' }) });
    f.broker.attachApprover({ name: 'ui' });
    const p = f.peer();
    await p.hello(4242);
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    const pending = await waitUntil(() => f.broker.pending()[0], 'pending');
    expect(pending.session).toBe('gateway:unverified');
    expect(JSON.stringify(pending)).not.toContain('4242');
  });

  it('reads the real credentials from the socket (the addon is built)', async () => {
    const { peerCredentials } = await import('./peer-credentials');
    const server = net.createServer();
    const sock = path.join(f.dir, 'pc.sock');
    await new Promise<void>((r) => server.listen(sock, r));
    const got = new Promise<ReturnType<typeof peerCredentials>>((resolve) => server.once('connection', (s) => resolve(peerCredentials(s))));
    const client = net.connect(sock);
    expect(await got).toEqual({ verified: true, pid: process.pid, uid: process.getuid!(), gid: process.getgid!() });
    client.destroy();
    server.close();
  });

  it('closes the connection on a malformed line, a request before hello, or an endless line', async () => {
    const a = f.peer();
    await a.hello();
    a.socket.write('{not json\n');
    await waitUntil(() => a.closed, 'close after garbage');

    const b = f.peer();
    b.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 1000 });
    await waitUntil(() => b.closed, 'close on request before hello');

    const c = f.peer();
    await c.hello();
    c.socket.write('x'.repeat(1024 * 1024 + 10));
    await waitUntil(() => c.closed, 'close on an endless line');
    expect(f.broker.pending()).toEqual([]);
  });

  it('cancel withdraws the request from the inbox', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const p = f.peer();
    await p.hello();
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    await waitUntil(() => f.broker.pending()[0], 'pending');
    p.send({ type: 'cancel', id: 'r1' });
    await waitUntil(() => f.broker.pending().length === 0, 'withdrawn');
    const resolved = f.events.find((e) => e.type === 'resolved');
    expect(resolved).toMatchObject({ outcome: { approved: false, how: 'cancelled' } });
  });

  it('a dropped connection cancels its waiting requests and forgets its grants', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const p = f.peer();
    await p.hello(99);
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    const first = await waitUntil(() => f.broker.pending()[0], 'pending');
    f.broker.answer(first.id, { choice: 'allow_tool_session', by: 'ui' });
    await p.outcome('r1');
    p.send({ type: 'request', id: 'r2', request: { ...REQ, tool: 'process.exec' }, timeoutMs: 10_000 });
    await waitUntil(() => f.broker.pending()[0], 'second pending');
    p.end();
    await waitUntil(() => f.broker.pending().length === 0, 'cancelled on disconnect');
    expect(f.events.filter((e) => e.type === 'resolved').at(-1)).toMatchObject({ outcome: { how: 'cancelled' } });
    // The tool grant was scoped to that connection and went with it.
    expect(f.broker.grantFor({ ...REQ, session: ME })).toBeUndefined();
  });

  describe('questions (ask)', () => {
    const answerOf = (p: RawPeer, id: string) => waitUntil(() => p.messages.find((m) => m.type === 'answer' && m.id === id), `answer ${id}`);

    it('asks in the window inbox with its question and label; accepted content comes back as the result', async () => {
      f.broker.attachApprover({ name: 'ui' });
      const p = f.peer();
      await p.hello(321);
      p.send({ type: 'ask', id: 'q1', request: ASK, timeoutMs: 10_000 });
      const pending = await waitUntil(() => f.broker.pending()[0], 'the question');
      expect(pending).toMatchObject({ session: ME, kind: 'elicitation', tool: 'elicitation/create', question: FORM, triggerTool: ASK.triggerTool });
      // The window's own validator: a bad answer is refused and the question keeps waiting.
      expect(f.broker.answer(pending.id, { choice: 'accept', by: 'ui', content: { age: 3 } })).toBe(false);
      expect(f.broker.answer(pending.id, { choice: 'accept', by: 'ui', content: { name: 'Ada', age: 36 } })).toBe(true);
      expect((await answerOf(p, 'q1')).result).toEqual({ answered: true, by: 'ui', content: { action: 'accept', content: { name: 'Ada', age: 36 } } });
    });

    it('a declined or cancelled question comes back unanswered, saying why', async () => {
      f.broker.attachApprover({ name: 'ui' });
      const p = f.peer();
      await p.hello();
      p.send({ type: 'ask', id: 'q1', request: { ...ASK, kind: 'sampling', question: SAMPLING_Q, tool: 'sampling/createMessage' }, timeoutMs: 10_000 });
      const first = await waitUntil(() => f.broker.pending()[0], 'the sampling question');
      f.broker.answer(first.id, { choice: 'decline', by: 'ui' });
      expect((await answerOf(p, 'q1')).result).toEqual({ answered: false, how: 'declined', by: 'ui', reason: 'declined by ui' });
      p.send({ type: 'ask', id: 'q2', request: ASK, timeoutMs: 10_000 });
      const second = await waitUntil(() => f.broker.pending()[0], 'the elicitation');
      f.broker.answer(second.id, { choice: 'cancel', by: 'ui' });
      expect((await answerOf(p, 'q2')).result).toEqual({ answered: false, how: 'cancelled', by: 'ui', reason: 'cancelled by ui' });
    });

    it('times out in the window, is withdrawn by cancel, and by a dropped connection', async () => {
      f.broker.attachApprover({ name: 'ui' });
      const p = f.peer();
      await p.hello();
      p.send({ type: 'ask', id: 'late', request: ASK, timeoutMs: 200 });
      expect((await answerOf(p, 'late')).result).toEqual({ answered: false, how: 'timeout', reason: 'no answer within 0.2s' });

      p.send({ type: 'ask', id: 'q1', request: ASK, timeoutMs: 10_000 });
      await waitUntil(() => f.broker.pending()[0], 'pending');
      p.send({ type: 'cancel', id: 'q1' });
      await waitUntil(() => f.broker.pending().length === 0, 'withdrawn');
      expect(f.events.filter((e) => e.type === 'resolved').at(-1)).toMatchObject({ request: { kind: 'elicitation' }, outcome: { how: 'cancelled' } });

      p.send({ type: 'ask', id: 'q2', request: ASK, timeoutMs: 10_000 });
      await waitUntil(() => f.broker.pending()[0], 'pending again');
      p.end();
      await waitUntil(() => f.broker.pending().length === 0, 'cancelled on disconnect');
      expect(f.events.filter((e) => e.type === 'resolved').at(-1)).toMatchObject({ outcome: { how: 'cancelled' } });
    });

    it('shares the per-connection bound with requests, and the window caps its timeout', async () => {
      f.broker.attachApprover({ name: 'ui' });
      const p = f.peer();
      await p.hello();
      for (let i = 0; i < RELAY_MAX_PENDING; i++) p.send({ type: 'request', id: `r${i}`, request: { ...REQ, args: { i } }, timeoutMs: 10_000 });
      p.send({ type: 'ask', id: 'q', request: ASK, timeoutMs: 10_000 });
      expect((await answerOf(p, 'q')).result).toEqual({ answered: false, how: 'declined', reason: relayLimitReason(`${RELAY_MAX_PENDING} pending per gateway`) });
      expect(f.broker.pending().filter((r) => r.kind === 'elicitation')).toEqual([]);
    });

    it('without a UI approver in the window it fails closed at once', async () => {
      const p = f.peer();
      await p.hello();
      p.send({ type: 'ask', id: 'q', request: ASK, timeoutMs: 10_000 });
      expect((await answerOf(p, 'q')).result).toMatchObject({ answered: false, how: 'no_approver' });
    });
  });

  it('nothing a connection can send approves anything', async () => {
    f.broker.attachApprover({ name: 'ui' });
    const victim = f.peer();
    await victim.hello(1);
    victim.send({ type: 'request', id: 'v1', request: REQ, timeoutMs: 10_000 });
    const pending = await waitUntil(() => f.broker.pending()[0], 'the victim request');

    // An attacker that can reach the socket, knows the pending id and tries every shape of "answer".
    const attempts: unknown[] = [
      { type: 'answer', id: pending.id, choice: 'allow_tool_session', by: 'ui' },
      { type: 'approve', id: pending.id },
      { type: 'outcome', id: 'v1', outcome: { approved: true, how: 'once', by: 'ui', reason: 'x' } },
      { type: 'request', id: 'a1', request: REQ, timeoutMs: 1000, answer: { id: pending.id, choice: 'allow_once' } },
      { type: 'cancel', id: 'v1' }, // not its request: its own ids only
    ];
    for (const msg of attempts) {
      const a = f.peer();
      await a.hello(1); // even claiming the victim's pid
      a.send(msg);
      if ((msg as { type: string }).type !== 'cancel') await waitUntil(() => a.closed, `close after ${JSON.stringify(msg)}`);
      else await new Promise((r) => setTimeout(r, 50));
      a.end();
    }
    expect(f.broker.get(pending.id)).toBeDefined();
    expect(f.events.filter((e) => e.type === 'resolved' && e.outcome.approved)).toEqual([]);
    // Claiming the same pid never shares the victim's grant scope.
    expect(f.broker.pending()[0]!.session).toBe(ME);
    f.broker.answer(pending.id, { choice: 'deny', by: 'ui' });
    expect((await victim.outcome('v1')).outcome).toMatchObject({ approved: false, how: 'denied' });
  });

  it('leaves a socket that answers alone, and replaces a stale one', async () => {
    const second = await startApprovalRelay({ broker: new ApprovalBroker(), dataDir: f.dataDir }, { log: () => {} });
    expect(second.path).toBeUndefined();
    await f.relay.close();

    // A window killed with SIGKILL leaves its socket file behind.
    const stale = path.join(f.dir, 's', 'approvals.sock');
    fs.mkdirSync(path.dirname(stale), { mode: 0o700 });
    const r = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(r.signal).toBe('SIGKILL');
    expect(fs.lstatSync(stale).isSocket()).toBe(true);
    f.relay = await startApprovalRelay({ broker: f.broker, dataDir: path.dirname(stale) });
    expect(f.relay.path).toBe(stale);
    const p = f.peer();
    expect(await p.hello()).toMatchObject({ type: 'welcome' });
  });
});
