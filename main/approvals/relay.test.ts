// The approvals relay in one process: the wire schemas, the window side (startApprovalRelay)
// spoken to over a real Unix socket by a raw client, and the gateway side
// (RelayClient + RelayingApprovalBroker) against it. POSIX only (the named pipe is untested).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApprovalBroker, type ApprovalEvent, type ApprovalRequest, type AskRequest } from './broker';
import { startApprovalRelay, type ApprovalRelay } from './relay-server';
import { ClientMessageSchema, LineSplitter, RELAY_LIMITS, relayLimitReason, relaySocketPath, ServerMessageSchema } from './relay-wire';

const RELAY_MAX_PENDING = RELAY_LIMITS.perConnectionPending;
/** Every peer in these tests is this process: the kernel says so, whatever hello claims. */
const ME = `gateway:${process.pid}`;
import { RELAY_BAD_ANSWER_REASON, RELAY_LOST_REASON, RELAY_NO_APPROVER_REASON, RELAY_NO_QUESTIONS_REASON, RelayClient, RelayingApprovalBroker } from './relaying-broker';

const posix = process.platform !== 'win32';

const REQ = {
  tool: 'fs.write',
  advertisedName: 'write_file',
  server: 'workspace',
  args: { path: 'a.txt', content: '[redacted]' },
  reason: 'writes need approval',
  kind: 'tool' as const,
  agentSession: 'agent-1',
  session: 'launch-1',
};

const breq = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({ ...REQ, ...over });

/** An elicitation as the gateway relays it: the request fields, the kind, the (redacted) question. */
const FORM = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string', title: 'Name' }, age: { type: 'integer', minimum: 0 } },
    required: ['name'],
  },
};
const ASK = {
  tool: 'elicitation/create',
  server: 'everything',
  args: FORM,
  reason: "server 'everything' asks for input",
  kind: 'elicitation' as const,
  question: FORM,
  triggerTool: 'everything.trigger-elicitation-request',
  agentSession: 'agent-1',
  session: 'launch-1',
};
const SAMPLING_Q = { messages: [{ role: 'user', content: { type: 'text', text: 'six times seven?' } }], maxTokens: 5 };
const aReq = (over: Partial<AskRequest> = {}): AskRequest => ({ ...ASK, ...over });

async function waitUntil<T>(check: () => T, what: string, limitMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A raw peer on the relay socket: writes lines, collects parsed lines, knows when it closed. */
class RawPeer {
  readonly socket: net.Socket;
  readonly messages: Array<Record<string, unknown>> = [];
  closed = false;
  private buf = '';
  constructor(socketPath: string) {
    this.socket = net.connect(socketPath);
    this.socket.setEncoding('utf8');
    this.socket.on('data', (s: string) => {
      this.buf += s;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        this.messages.push(JSON.parse(this.buf.slice(0, nl)) as Record<string, unknown>);
        this.buf = this.buf.slice(nl + 1);
      }
    });
    this.socket.on('error', () => {});
    this.socket.on('close', () => (this.closed = true));
  }
  send(msg: unknown): void {
    this.socket.write(`${JSON.stringify(msg)}\n`);
  }
  async hello(pid = 4242): Promise<Record<string, unknown>> {
    this.send({ type: 'hello', pid, profile: 'p', version: '1' });
    return waitUntil(() => this.messages.find((m) => m.type === 'welcome'), 'welcome');
  }
  outcome(id: string) {
    return waitUntil(() => this.messages.find((m) => m.type === 'outcome' && m.id === id), `outcome ${id}`);
  }
  end(): void {
    this.socket.destroy();
  }
}

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
  let dir: string;
  let dataDir: string;
  let broker: ApprovalBroker;
  let relay: ApprovalRelay;
  let events: ApprovalEvent[];
  const peers: RawPeer[] = [];
  const clients: RelayClient[] = [];

  const peer = () => {
    const p = new RawPeer(relay.path!);
    peers.push(p);
    return p;
  };

  beforeEach(async () => {
    // Short: a Unix socket path has a ~104 byte limit.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-relay-'));
    dataDir = path.join(dir, 'data');
    broker = new ApprovalBroker();
    events = [];
    broker.onEvent((e) => events.push(e));
    relay = await startApprovalRelay({ broker, dataDir });
  });

  afterEach(async () => {
    for (const p of peers.splice(0)) p.end();
    for (const c of clients.splice(0)) c.close();
    await relay.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('listens on <dataDir>/approvals.sock, 0600 in a 0700 folder', () => {
    expect(relay.path).toBe(path.join(dataDir, 'approvals.sock'));
    expect(fs.statSync(relay.path!).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('puts a request in the window broker, labelled by the gateway, and returns the answer', async () => {
    broker.attachApprover({ name: 'ui' });
    const p = peer();
    expect(await p.hello(777)).toEqual({ type: 'welcome', approvers: 1, questions: true });
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    const pending = await waitUntil(() => broker.pending()[0], 'the pending request');
    // hello said 777 (a forgery): the card carries the pid the kernel reports for the socket.
    expect(pending).toMatchObject({ session: ME, tool: 'fs.write', agentSession: 'agent-1', args: REQ.args, kind: 'tool' });
    broker.answer(pending.id, { choice: 'allow_once', by: 'ui' });
    expect((await p.outcome('r1')).outcome).toEqual({ approved: true, how: 'once', by: 'ui', reason: 'allowed once by ui' });
  });

  it('tells the gateway when approvers attach and detach', async () => {
    const p = peer();
    expect(await p.hello()).toEqual({ type: 'welcome', approvers: 0, questions: true });
    const detach = broker.attachApprover({ name: 'ui' });
    await waitUntil(() => p.messages.find((m) => m.type === 'approvers' && m.count === 1), 'count 1');
    detach();
    await waitUntil(() => p.messages.find((m) => m.type === 'approvers' && m.count === 0), 'count 0');
  });

  it(`denies the ${RELAY_MAX_PENDING + 1}th waiting request of one connection at once`, async () => {
    broker.attachApprover({ name: 'ui' });
    const p = peer();
    await p.hello();
    for (let i = 0; i <= RELAY_MAX_PENDING; i++) p.send({ type: 'request', id: `r${i}`, request: { ...REQ, args: { i } }, timeoutMs: 10_000 });
    const limit = `${RELAY_MAX_PENDING} pending per gateway`;
    expect((await p.outcome(`r${RELAY_MAX_PENDING}`)).outcome).toEqual({ approved: false, how: 'denied', reason: relayLimitReason(limit) });
    expect(broker.pending()).toHaveLength(RELAY_MAX_PENDING);
    // Refused ones are one notice line, not cards.
    expect(broker.notices.list()).toEqual([expect.objectContaining({ count: 1, text: `refused 1 request from gateway pid ${process.pid}: limit ${limit}` })]);
    // A second gateway has its own budget.
    const q = peer();
    await q.hello(5);
    q.send({ type: 'request', id: 'x', request: REQ, timeoutMs: 10_000 });
    await waitUntil(() => broker.pending().length === RELAY_MAX_PENDING + 1, 'the other connection queued');
    expect(broker.pending().at(-1)!.session).toBe(`${ME}#2`);
  });

  it('refuses by bytes and in all: 1 MiB per connection, 64 and 4 MiB across connections; one notice per peer', async () => {
    broker.attachApprover({ name: 'ui' });
    const big = 'x'.repeat(200 * 1024);
    const conns = Array.from({ length: 8 }, () => peer());
    for (const c of conns) await c.hello();
    // 8 × 8 requests of ~200 KiB: 5 fit a connection's 1 MiB, 20 fit the 4 MiB in all.
    for (const [n, c] of conns.entries()) for (let i = 0; i < 8; i++) c.send({ type: 'request', id: `c${n}-${i}`, request: { ...REQ, args: { big } }, timeoutMs: 10_000 });
    const outcomes = await waitUntil(() => {
      const got = conns.flatMap((c) => c.messages.filter((m) => m.type === 'outcome'));
      return got.length + broker.pending().length === 64 ? got : undefined;
    }, 'every request answered or queued');
    const pending = broker.pending();
    expect(pending.length).toBeLessThanOrEqual(RELAY_LIMITS.totalBytes / (200 * 1024));
    expect(pending.length).toBeGreaterThan(0);
    for (const c of conns) expect(c.messages.filter((m) => m.type === 'outcome').length).toBeGreaterThanOrEqual(8 - 5);
    for (const o of outcomes) expect((o.outcome as { reason: string }).reason).toMatch(/^relay queue full: .*limit (1 MiB pending per gateway|4 MiB pending in all)/);
    const notices = broker.notices.list();
    expect(notices).toHaveLength(1);
    expect(notices[0]!.count).toBe(outcomes.length);
    expect(notices[0]!.text).toMatch(new RegExp(`^refused ${outcomes.length} requests from gateway pid ${process.pid}: limit `));
    // Answering frees budget: a small request fits again.
    for (const r of pending) broker.answer(r.id, { choice: 'deny', by: 'ui' });
    await waitUntil(() => broker.pending().length === 0, 'all answered');
    conns[0]!.send({ type: 'request', id: 'after', request: REQ, timeoutMs: 10_000 });
    await waitUntil(() => broker.pending().length === 1, 'accepted again after the budget came back');
  });

  it('counts the pending cap in all (64) across connections', async () => {
    broker.attachApprover({ name: 'ui' });
    const conns = Array.from({ length: 5 }, () => peer());
    for (const c of conns) await c.hello();
    for (const [n, c] of conns.entries()) for (let i = 0; i < 16; i++) c.send({ type: 'request', id: `c${n}-${i}`, request: { ...REQ, args: { i } }, timeoutMs: 10_000 });
    await waitUntil(() => conns.flatMap((c) => c.messages.filter((m) => m.type === 'outcome')).length === 16, '16 refused');
    expect(broker.pending()).toHaveLength(RELAY_LIMITS.totalPending);
    expect(broker.notices.list()[0]!.text).toBe(`refused 16 requests from gateway pid ${process.pid}: limit 64 pending in all`);
  });

  it('refuses a peer of another uid before it says anything', async () => {
    await relay.close();
    const logs: string[] = [];
    const uid = (process.getuid?.() ?? 0) + 1;
    relay = await startApprovalRelay({ broker, dataDir }, { log: (l) => logs.push(l), peerCredentials: () => ({ verified: true, pid: 31337, uid, gid: uid }) });
    const p = peer();
    p.send({ type: 'hello', pid: 1, profile: 'p', version: '1' });
    await waitUntil(() => p.closed, 'closed');
    expect(p.messages).toEqual([]);
    expect(logs.join('\n')).toContain(`refused a connection from uid ${uid} (pid 31337)`);
  });

  it('without peer credentials the card says "unverified", never the pid the peer declared', async () => {
    await relay.close();
    relay = await startApprovalRelay({ broker, dataDir }, { peerCredentials: () => ({ verified: false, reason: 'addon not built' }) });
    broker.attachApprover({ name: 'ui' });
    const p = peer();
    await p.hello(4242);
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    const pending = await waitUntil(() => broker.pending()[0], 'pending');
    expect(pending.session).toBe('gateway:unverified');
    expect(JSON.stringify(pending)).not.toContain('4242');
  });

  it('reads the real credentials from the socket (the addon is built)', async () => {
    const { peerCredentials } = await import('./peer-credentials');
    const server = net.createServer();
    const sock = path.join(dir, 'pc.sock');
    await new Promise<void>((r) => server.listen(sock, r));
    const got = new Promise<ReturnType<typeof peerCredentials>>((resolve) => server.once('connection', (s) => resolve(peerCredentials(s))));
    const client = net.connect(sock);
    expect(await got).toEqual({ verified: true, pid: process.pid, uid: process.getuid!(), gid: process.getgid!() });
    client.destroy();
    server.close();
  });

  it('closes the connection on a malformed line, a request before hello, or an endless line', async () => {
    const a = peer();
    await a.hello();
    a.socket.write('{not json\n');
    await waitUntil(() => a.closed, 'close after garbage');

    const b = peer();
    b.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 1000 });
    await waitUntil(() => b.closed, 'close on request before hello');

    const c = peer();
    await c.hello();
    c.socket.write('x'.repeat(1024 * 1024 + 10));
    await waitUntil(() => c.closed, 'close on an endless line');
    expect(broker.pending()).toEqual([]);
  });

  it('cancel withdraws the request from the inbox', async () => {
    broker.attachApprover({ name: 'ui' });
    const p = peer();
    await p.hello();
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    await waitUntil(() => broker.pending()[0], 'pending');
    p.send({ type: 'cancel', id: 'r1' });
    await waitUntil(() => broker.pending().length === 0, 'withdrawn');
    const resolved = events.find((e) => e.type === 'resolved');
    expect(resolved).toMatchObject({ outcome: { approved: false, how: 'cancelled' } });
  });

  it('a dropped connection cancels its waiting requests and forgets its grants', async () => {
    broker.attachApprover({ name: 'ui' });
    const p = peer();
    await p.hello(99);
    p.send({ type: 'request', id: 'r1', request: REQ, timeoutMs: 10_000 });
    const first = await waitUntil(() => broker.pending()[0], 'pending');
    broker.answer(first.id, { choice: 'allow_tool_session', by: 'ui' });
    await p.outcome('r1');
    p.send({ type: 'request', id: 'r2', request: { ...REQ, tool: 'process.exec' }, timeoutMs: 10_000 });
    await waitUntil(() => broker.pending()[0], 'second pending');
    p.end();
    await waitUntil(() => broker.pending().length === 0, 'cancelled on disconnect');
    expect(events.filter((e) => e.type === 'resolved').at(-1)).toMatchObject({ outcome: { how: 'cancelled' } });
    // The tool grant was scoped to that connection and went with it.
    expect(broker.grantFor({ ...REQ, session: ME })).toBeUndefined();
  });

  describe('questions (ask)', () => {
    const answerOf = (p: RawPeer, id: string) => waitUntil(() => p.messages.find((m) => m.type === 'answer' && m.id === id), `answer ${id}`);

    it('asks in the window inbox with its question and label; accepted content comes back as the result', async () => {
      broker.attachApprover({ name: 'ui' });
      const p = peer();
      await p.hello(321);
      p.send({ type: 'ask', id: 'q1', request: ASK, timeoutMs: 10_000 });
      const pending = await waitUntil(() => broker.pending()[0], 'the question');
      expect(pending).toMatchObject({ session: ME, kind: 'elicitation', tool: 'elicitation/create', question: FORM, triggerTool: ASK.triggerTool });
      // The window's own validator: a bad answer is refused and the question keeps waiting.
      expect(broker.answer(pending.id, { choice: 'accept', by: 'ui', content: { age: 3 } })).toBe(false);
      expect(broker.answer(pending.id, { choice: 'accept', by: 'ui', content: { name: 'Ada', age: 36 } })).toBe(true);
      expect((await answerOf(p, 'q1')).result).toEqual({ answered: true, by: 'ui', content: { action: 'accept', content: { name: 'Ada', age: 36 } } });
    });

    it('a declined or cancelled question comes back unanswered, saying why', async () => {
      broker.attachApprover({ name: 'ui' });
      const p = peer();
      await p.hello();
      p.send({ type: 'ask', id: 'q1', request: { ...ASK, kind: 'sampling', question: SAMPLING_Q, tool: 'sampling/createMessage' }, timeoutMs: 10_000 });
      const first = await waitUntil(() => broker.pending()[0], 'the sampling question');
      broker.answer(first.id, { choice: 'decline', by: 'ui' });
      expect((await answerOf(p, 'q1')).result).toEqual({ answered: false, how: 'declined', by: 'ui', reason: 'declined by ui' });
      p.send({ type: 'ask', id: 'q2', request: ASK, timeoutMs: 10_000 });
      const second = await waitUntil(() => broker.pending()[0], 'the elicitation');
      broker.answer(second.id, { choice: 'cancel', by: 'ui' });
      expect((await answerOf(p, 'q2')).result).toEqual({ answered: false, how: 'cancelled', by: 'ui', reason: 'cancelled by ui' });
    });

    it('times out in the window, is withdrawn by cancel, and by a dropped connection', async () => {
      broker.attachApprover({ name: 'ui' });
      const p = peer();
      await p.hello();
      p.send({ type: 'ask', id: 'late', request: ASK, timeoutMs: 200 });
      expect((await answerOf(p, 'late')).result).toEqual({ answered: false, how: 'timeout', reason: 'no answer within 0.2s' });

      p.send({ type: 'ask', id: 'q1', request: ASK, timeoutMs: 10_000 });
      await waitUntil(() => broker.pending()[0], 'pending');
      p.send({ type: 'cancel', id: 'q1' });
      await waitUntil(() => broker.pending().length === 0, 'withdrawn');
      expect(events.filter((e) => e.type === 'resolved').at(-1)).toMatchObject({ request: { kind: 'elicitation' }, outcome: { how: 'cancelled' } });

      p.send({ type: 'ask', id: 'q2', request: ASK, timeoutMs: 10_000 });
      await waitUntil(() => broker.pending()[0], 'pending again');
      p.end();
      await waitUntil(() => broker.pending().length === 0, 'cancelled on disconnect');
      expect(events.filter((e) => e.type === 'resolved').at(-1)).toMatchObject({ outcome: { how: 'cancelled' } });
    });

    it('shares the per-connection bound with requests, and the window caps its timeout', async () => {
      broker.attachApprover({ name: 'ui' });
      const p = peer();
      await p.hello();
      for (let i = 0; i < RELAY_MAX_PENDING; i++) p.send({ type: 'request', id: `r${i}`, request: { ...REQ, args: { i } }, timeoutMs: 10_000 });
      p.send({ type: 'ask', id: 'q', request: ASK, timeoutMs: 10_000 });
      expect((await answerOf(p, 'q')).result).toEqual({ answered: false, how: 'declined', reason: relayLimitReason(`${RELAY_MAX_PENDING} pending per gateway`) });
      expect(broker.pending().filter((r) => r.kind === 'elicitation')).toEqual([]);
    });

    it('without a UI approver in the window it fails closed at once', async () => {
      const p = peer();
      await p.hello();
      p.send({ type: 'ask', id: 'q', request: ASK, timeoutMs: 10_000 });
      expect((await answerOf(p, 'q')).result).toMatchObject({ answered: false, how: 'no_approver' });
    });
  });

  it('nothing a connection can send approves anything', async () => {
    broker.attachApprover({ name: 'ui' });
    const victim = peer();
    await victim.hello(1);
    victim.send({ type: 'request', id: 'v1', request: REQ, timeoutMs: 10_000 });
    const pending = await waitUntil(() => broker.pending()[0], 'the victim request');

    // An attacker that can reach the socket, knows the pending id and tries every shape of "answer".
    const attempts: unknown[] = [
      { type: 'answer', id: pending.id, choice: 'allow_tool_session', by: 'ui' },
      { type: 'approve', id: pending.id },
      { type: 'outcome', id: 'v1', outcome: { approved: true, how: 'once', by: 'ui', reason: 'x' } },
      { type: 'request', id: 'a1', request: REQ, timeoutMs: 1000, answer: { id: pending.id, choice: 'allow_once' } },
      { type: 'cancel', id: 'v1' }, // not its request: its own ids only
    ];
    for (const msg of attempts) {
      const a = peer();
      await a.hello(1); // even claiming the victim's pid
      a.send(msg);
      if ((msg as { type: string }).type !== 'cancel') await waitUntil(() => a.closed, `close after ${JSON.stringify(msg)}`);
      else await new Promise((r) => setTimeout(r, 50));
      a.end();
    }
    expect(broker.get(pending.id)).toBeDefined();
    expect(events.filter((e) => e.type === 'resolved' && e.outcome.approved)).toEqual([]);
    // Claiming the same pid never shares the victim's grant scope.
    expect(broker.pending()[0]!.session).toBe(ME);
    broker.answer(pending.id, { choice: 'deny', by: 'ui' });
    expect((await victim.outcome('v1')).outcome).toMatchObject({ approved: false, how: 'denied' });
  });

  it('leaves a socket that answers alone, and replaces a stale one', async () => {
    const second = await startApprovalRelay({ broker: new ApprovalBroker(), dataDir }, { log: () => {} });
    expect(second.path).toBeUndefined();
    await relay.close();

    // A window killed with SIGKILL leaves its socket file behind.
    const stale = path.join(dir, 's', 'approvals.sock');
    fs.mkdirSync(path.dirname(stale), { mode: 0o700 });
    const r = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(r.signal).toBe('SIGKILL');
    expect(fs.lstatSync(stale).isSocket()).toBe(true);
    relay = await startApprovalRelay({ broker, dataDir: path.dirname(stale) });
    expect(relay.path).toBe(stale);
    const p = peer();
    expect(await p.hello()).toMatchObject({ type: 'welcome' });
  });

  describe('gateway side', () => {
    const client = (socketPath = relay.path!) => {
      const c = new RelayClient({ socketPath, profile: 'p', initialBackoffMs: 20, maxBackoffMs: 50 });
      clients.push(c);
      c.start();
      return c;
    };

    it('forwards when the window has an approver, and remembers session grants locally', async () => {
      const detach = broker.attachApprover({ name: 'ui' });
      const off = broker.onEvent((e) => {
        if (e.type === 'requested' && broker.get(e.request.id)) broker.answer(e.request.id, { choice: 'allow_session', by: 'ui' });
      });
      const c = client();
      await waitUntil(() => c.canForward(), 'connected');
      const local = new RelayingApprovalBroker(c);
      expect(local.route()).toBe('relay');
      const first = await local.request(breq(), { timeoutMs: 5000 });
      expect(first).toMatchObject({ approved: true, how: 'session', by: 'ui' });
      const asked = events.filter((e) => e.type === 'requested').length;
      // Same action again: answered here by the remembered grant, the window is not asked.
      expect(await local.request(breq(), { timeoutMs: 5000 })).toMatchObject({ approved: true, how: 'grant', by: 'ui' });
      expect(events.filter((e) => e.type === 'requested').length).toBe(asked);
      // Different arguments: asked again.
      expect(await local.request(breq({ args: { other: 1 } }), { timeoutMs: 5000 })).toMatchObject({ approved: true, how: 'session' });
      off();
      detach();
    });

    it('times out locally with the broker wording, and cancels in the window', async () => {
      broker.attachApprover({ name: 'ui' });
      const c = client();
      await waitUntil(() => c.canForward(), 'connected');
      const local = new RelayingApprovalBroker(c);
      const outcome = await local.request(breq(), { timeoutMs: 300 });
      expect(outcome).toEqual({ approved: false, how: 'timeout', reason: 'no answer within 0.3s' });
      await waitUntil(() => broker.pending().length === 0, 'window side settled');
    });

    it('an aborted call cancels the window request', async () => {
      broker.attachApprover({ name: 'ui' });
      const c = client();
      await waitUntil(() => c.canForward(), 'connected');
      const local = new RelayingApprovalBroker(c);
      const ac = new AbortController();
      const p = local.request(breq(), { timeoutMs: 10_000, signal: ac.signal });
      await waitUntil(() => broker.pending()[0], 'pending in the window');
      ac.abort();
      expect(await p).toMatchObject({ approved: false, how: 'cancelled' });
      await waitUntil(() => broker.pending().length === 0, 'withdrawn from the window');
    });

    it('denies at once, saying how to fix it, with no window or no approver in it', async () => {
      const none = new RelayingApprovalBroker(client(path.join(dir, 'nowhere.sock')));
      expect(await none.request(breq(), { timeoutMs: 5000 })).toEqual({ approved: false, how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });
      const c = client();
      await waitUntil(() => c.connected(), 'connected');
      const empty = new RelayingApprovalBroker(c);
      expect(empty.route()).toBe('none');
      expect(await empty.request(breq(), { timeoutMs: 5000 })).toMatchObject({ how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });
      expect(broker.pending()).toEqual([]);
    });

    it('a local approver answers first; a window that goes away fails waiting calls, then reconnects', async () => {
      broker.attachApprover({ name: 'ui' });
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
      await waitUntil(() => broker.pending()[0], 'pending in the window');
      await relay.close();
      expect(await waiting).toEqual({ approved: false, how: 'no_approver', reason: RELAY_LOST_REASON });
      expect(await local.request(breq(), { timeoutMs: 10_000 })).toMatchObject({ how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });

      relay = await startApprovalRelay({ broker, dataDir });
      await waitUntil(() => c.canForward(), 'reconnected');
      const again = local.request(breq(), { timeoutMs: 10_000 });
      const pending = await waitUntil(() => broker.pending()[0], 'pending after reconnect');
      broker.answer(pending.id, { choice: 'allow_once', by: 'ui' });
      expect(await again).toMatchObject({ approved: true, how: 'once' });
    });

    describe('questions (ask)', () => {
      const answerFirst = (choice: 'accept' | 'decline' | 'cancel', content?: unknown) =>
        broker.onEvent((e) => {
          if (e.type === 'requested' && broker.get(e.request.id)) broker.answer(e.request.id, { choice, by: 'ui', ...(content !== undefined ? { content } : {}) });
        });

      it('asks the window and returns its answer; a decline declines', async () => {
        broker.attachApprover({ name: 'ui' });
        const c = client();
        await waitUntil(() => c.canAsk(), 'connected, takes questions');
        const local = new RelayingApprovalBroker(c);
        let off = answerFirst('accept', { name: 'Ada' });
        expect(await local.ask(aReq(), { timeoutMs: 5000 })).toEqual({ answered: true, by: 'ui', content: { action: 'accept', content: { name: 'Ada' } } });
        off();
        const asked = events.find((e) => e.type === 'requested')!.request;
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
        broker.attachApprover({ name: 'ui' });
        const c = client();
        await waitUntil(() => c.canAsk(), 'connected');
        const local = new RelayingApprovalBroker(c);
        expect(await local.ask(aReq(), { timeoutMs: 300 })).toEqual({ answered: false, how: 'timeout', reason: 'no answer within 0.3s' });
        await waitUntil(() => broker.pending().length === 0, 'window side settled');
        const ac = new AbortController();
        const p = local.ask(aReq(), { timeoutMs: 10_000, signal: ac.signal });
        await waitUntil(() => broker.pending()[0], 'pending in the window');
        ac.abort();
        expect(await p).toMatchObject({ answered: false, how: 'cancelled' });
        await waitUntil(() => broker.pending().length === 0, 'withdrawn from the window');
      });

      it('a local approver answers first; a window that goes away fails the question; none at all fails closed', async () => {
        broker.attachApprover({ name: 'ui' });
        const c = client();
        await waitUntil(() => c.canAsk(), 'connected');
        const local = new RelayingApprovalBroker(c);
        const detachTty = local.attachApprover({ name: 'tty' });
        const here = local.ask(aReq(), { timeoutMs: 10_000 });
        expect(local.pending()[0]).toMatchObject({ kind: 'elicitation', question: FORM });
        expect(broker.pending()).toEqual([]);
        local.answer(local.pending()[0]!.id, { choice: 'accept', by: 'tty', content: { name: 'Bo' } });
        expect(await here).toMatchObject({ answered: true, by: 'tty' });
        detachTty();

        const waiting = local.ask(aReq(), { timeoutMs: 10_000 });
        await waitUntil(() => broker.pending()[0], 'pending in the window');
        await relay.close();
        expect(await waiting).toEqual({ answered: false, how: 'no_approver', reason: RELAY_LOST_REASON });
        expect(await local.ask(aReq(), { timeoutMs: 10_000 })).toEqual({ answered: false, how: 'no_approver', reason: RELAY_NO_APPROVER_REASON });
      });

      it('fails closed with a window too old for questions, and declines an answer that does not fit', async () => {
        // A stand-in window: welcomes without `questions`, or answers every question with `result`.
        const fake = (welcome: Record<string, unknown>, result: unknown) => {
          const sock = path.join(dir, `f${Math.random().toString(36).slice(2, 8)}.sock`);
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
});
