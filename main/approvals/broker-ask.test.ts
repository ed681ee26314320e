// ApprovalBroker.ask: sampling and elicitation questions a person answers in the inbox
// (docs/gateway.md "Questions from servers"), and the answer checks of questions.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApprovalBroker, NO_APPROVER_REASON, type ApprovalEvent, type AskRequest } from './broker';
import { HUMAN_MODEL, MAX_SAMPLING_REPLY_BYTES, acceptAnswer, validateElicitationContent } from './questions';

const FORM = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2 },
      check: { type: 'boolean' },
      age: { type: 'integer', minimum: 1, maximum: 150 },
      pet: { type: 'string', enum: ['cat', 'dog'] },
      hero: { type: 'string', oneOf: [{ const: 'hero-1', title: 'Superman' }, { const: 'hero-2', title: 'Batman' }] },
      tools: { type: 'array', items: { type: 'string', enum: ['Guitar', 'Piano'] }, maxItems: 1 },
      email: { type: 'string', format: 'email' },
    },
    required: ['name'],
  },
};

const SAMPLING = { messages: [{ role: 'user', content: { type: 'text', text: 'what is 6 x 7?' } }], systemPrompt: 'Be brief.', maxTokens: 10 };

const ask = (over: Partial<AskRequest> = {}): AskRequest => ({
  session: 'launch-1',
  agentSession: 'agent-1',
  exchange: 'agent-1#7',
  tool: 'elicitation/create',
  server: 'everything',
  args: FORM,
  reason: 'server asks for input',
  kind: 'elicitation',
  question: FORM,
  triggerTool: 'everything.trigger-elicitation-request',
  ...over,
});

function setup() {
  const broker = new ApprovalBroker();
  const events: ApprovalEvent[] = [];
  broker.onEvent((e) => events.push(e));
  broker.attachApprover({ name: 'test' });
  return { broker, events };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ApprovalBroker.ask', () => {
  it('queues a question with the request ones, carrying the question and the triggering call', async () => {
    const { broker, events } = setup();
    const tool = broker.request({ session: 'launch-1', tool: 'files.write', server: 'files', args: {}, reason: 'r' }, { timeoutMs: 60_000 });
    const q = broker.ask(ask(), { timeoutMs: 30_000 });
    const pending = broker.pending();
    expect(pending.map((p) => p.kind)).toEqual(['tool', 'elicitation']);
    const p = pending[1]!;
    expect(p.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(p).toMatchObject({ question: FORM, triggerTool: 'everything.trigger-elicitation-request', exchange: 'agent-1#7', server: 'everything' });
    expect(p.expiresAt - p.createdAt).toBe(30_000);
    expect(events.filter((e) => e.type === 'requested').map((e) => e.request.id)).toEqual(pending.map((x) => x.id));

    expect(broker.answer(p.id, { choice: 'accept', by: 'ui', content: { name: 'Ada', check: true, hero: 'hero-2', tools: ['Piano'] } })).toBe(true);
    expect(await q).toEqual({ answered: true, by: 'ui', content: { action: 'accept', content: { name: 'Ada', check: true, hero: 'hero-2', tools: ['Piano'] } } });
    const resolved = events.find((e) => e.type === 'resolved' && e.request.id === p.id);
    expect(resolved && resolved.type === 'resolved' && resolved.outcome).toMatchObject({ approved: true, by: 'ui', reason: 'answered by ui' });
    broker.answer(pending[0]!.id, { choice: 'deny', by: 'ui' });
    await tool;
  });

  it('refuses content that does not fit the requested schema and keeps waiting', async () => {
    const { broker } = setup();
    const q = broker.ask(ask(), { timeoutMs: 60_000 });
    const id = broker.pending()[0]!.id;
    for (const content of [undefined, { check: true }, { name: 'A' }, { name: 'Ada', age: 3.5 }, { name: 'Ada', pet: 'fish' }, { name: 'Ada', extra: 1 }, { name: 'Ada', tools: ['Guitar', 'Piano'] }, { name: 'Ada', email: 'nope' }]) {
      expect(broker.answer(id, { choice: 'accept', by: 'ui', content }), JSON.stringify(content)).toBe(false);
    }
    // Approval-only answers do not fit a question either.
    expect(broker.answer(id, { choice: 'allow_session', by: 'ui' })).toBe(false);
    expect(broker.answer(id, { choice: 'allow_tool_session', by: 'ui' })).toBe(false);
    expect(broker.pending()).toHaveLength(1);
    // allow_once is accept.
    expect(broker.answer(id, { choice: 'allow_once', by: 'ui', content: { name: 'Ada' } })).toBe(true);
    expect(await q).toMatchObject({ answered: true, content: { action: 'accept', content: { name: 'Ada' } } });
  });

  it('decline, deny and cancel', async () => {
    const { broker } = setup();
    const a = broker.ask(ask(), { timeoutMs: 60_000 });
    const b = broker.ask(ask(), { timeoutMs: 60_000 });
    const c = broker.ask(ask({ kind: 'sampling', tool: 'sampling/createMessage', question: SAMPLING }), { timeoutMs: 60_000 });
    const [pa, pb, pc] = broker.pending();
    expect(broker.answer(pa!.id, { choice: 'decline', by: 'ui', note: 'no thanks' })).toBe(true);
    expect(broker.answer(pb!.id, { choice: 'cancel', by: 'ui' })).toBe(true);
    expect(broker.answer(pc!.id, { choice: 'deny', by: 'tty' })).toBe(true);
    expect(await a).toEqual({ answered: false, how: 'declined', by: 'ui', reason: 'declined by ui: no thanks' });
    expect(await b).toEqual({ answered: false, how: 'cancelled', by: 'ui', reason: 'cancelled by ui' });
    expect(await c).toEqual({ answered: false, how: 'declined', by: 'tty', reason: 'declined by tty' });
  });

  it('a sampling answer is the assistant reply a person wrote', async () => {
    const { broker } = setup();
    const q = broker.ask(ask({ kind: 'sampling', tool: 'sampling/createMessage', question: SAMPLING }), { timeoutMs: 60_000 });
    const id = broker.pending()[0]!.id;
    expect(broker.answer(id, { choice: 'accept', by: 'ui' })).toBe(false);
    expect(broker.answer(id, { choice: 'accept', by: 'ui', content: { text: '   ' } })).toBe(false);
    expect(broker.answer(id, { choice: 'accept', by: 'ui', content: { text: 'x'.repeat(MAX_SAMPLING_REPLY_BYTES + 1) } })).toBe(false);
    expect(broker.answer(id, { choice: 'accept', by: 'ui', content: { text: '42', model: 'gpt' } })).toBe(false);
    expect(broker.answer(id, { choice: 'accept', by: 'ui', content: { text: '42' } })).toBe(true);
    expect(await q).toEqual({
      answered: true,
      by: 'ui',
      content: { role: 'assistant', content: { type: 'text', text: '42' }, model: HUMAN_MODEL, stopReason: 'endTurn' },
    });
  });

  it('unanswered by the timeout is a decline', async () => {
    vi.useFakeTimers();
    const { broker, events } = setup();
    const q = broker.ask(ask(), { timeoutMs: 5_000 });
    vi.advanceTimersByTime(5_000);
    expect(await q).toEqual({ answered: false, how: 'timeout', reason: 'no answer within 5s' });
    expect(broker.pending()).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['requested', 'resolved']);
  });

  it('the caller cancelling withdraws the question', async () => {
    const { broker } = setup();
    const ac = new AbortController();
    const q = broker.ask(ask(), { timeoutMs: 60_000, signal: ac.signal });
    expect(broker.pending()).toHaveLength(1);
    ac.abort();
    expect(await q).toMatchObject({ answered: false, how: 'cancelled' });
    expect(broker.pending()).toEqual([]);
    const pre = new AbortController();
    pre.abort();
    expect(await broker.ask(ask(), { timeoutMs: 60_000, signal: pre.signal })).toMatchObject({ answered: false, how: 'cancelled' });
  });

  it('fails closed at once with no approver attached', async () => {
    const broker = new ApprovalBroker();
    const events: ApprovalEvent[] = [];
    broker.onEvent((e) => events.push(e));
    expect(await broker.ask(ask(), { timeoutMs: 60_000 })).toEqual({ answered: false, how: 'no_approver', reason: NO_APPROVER_REASON });
    expect(events.map((e) => e.type)).toEqual(['requested', 'resolved']);
  });

  it('grants never answer a question', async () => {
    const { broker } = setup();
    // A person allowed sampling as a whole (an APPROVAL request) for this agent session…
    const approval = broker.request({ session: 'launch-1', agentSession: 'agent-1', tool: 'sampling/createMessage', server: 'everything', args: SAMPLING, reason: 'r', kind: 'sampling' }, { timeoutMs: 60_000 });
    const q = broker.ask(ask({ kind: 'sampling', tool: 'sampling/createMessage', args: SAMPLING, question: SAMPLING }), { timeoutMs: 60_000 });
    broker.answer(broker.pending()[0]!.id, { choice: 'allow_tool_session', by: 'ui' });
    expect((await approval).approved).toBe(true);
    // …the question still waits for a reply.
    expect(broker.pending().map((p) => p.kind)).toEqual(['sampling']);
    broker.answer(broker.pending()[0]!.id, { choice: 'decline', by: 'ui' });
    expect(await q).toMatchObject({ answered: false, how: 'declined' });
  });

  it('a URL elicitation is accepted or declined, without content', async () => {
    const { broker } = setup();
    const question = { mode: 'url', message: 'Sign in', url: 'https://example.com/auth', elicitationId: 'e1' };
    const q = broker.ask(ask({ question, args: question }), { timeoutMs: 60_000 });
    const id = broker.pending()[0]!.id;
    expect(broker.answer(id, { choice: 'accept', by: 'ui', content: { name: 'x' } })).toBe(false);
    expect(broker.answer(id, { choice: 'accept', by: 'ui' })).toBe(true);
    expect(await q).toEqual({ answered: true, by: 'ui', content: { action: 'accept' } });
  });
});

describe('questions', () => {
  it('accepts the elicitation content the spec allows and says why it refuses the rest', () => {
    const schema = FORM.requestedSchema;
    expect(validateElicitationContent(schema, { name: 'Ada', age: 36, pet: 'dog', email: 'ada@example.org' })).toBeUndefined();
    expect(validateElicitationContent(schema, {})).toBe("'name' is required");
    expect(validateElicitationContent(schema, { name: 42 })).toBe("'name' must be a string, found number");
    expect(validateElicitationContent(schema, { name: 'Ada', age: 0 })).toBe("'age' must be at least 1");
    expect(validateElicitationContent(schema, { name: 'Ada', hero: 'hero-9' })).toMatch(/'hero' must be one of "hero-1", "hero-2"/);
    expect(validateElicitationContent(schema, { name: 'Ada', nope: true })).toBe("'nope' is not a field of the requested schema");
    expect(validateElicitationContent(schema, [])).toBe('content must be an object of field values');
  });

  it('builds the protocol results', () => {
    expect(acceptAnswer('elicitation', FORM, { name: 'Ada' })).toEqual({ ok: true, result: { action: 'accept', content: { name: 'Ada' } } });
    expect(acceptAnswer('sampling', SAMPLING, { text: 'hi' })).toMatchObject({ ok: true, result: { model: HUMAN_MODEL } });
    expect(acceptAnswer('sampling', SAMPLING, { text: 1 })).toEqual({ ok: false, error: 'a sampling reply needs content {text: string}' });
  });
});
