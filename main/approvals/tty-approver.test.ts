import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApprovalBroker, type ApprovalRequest, type AskRequest } from './broker';
import { attachTtyApprover } from './tty-approver';
import { openControllingTty } from './controlling-tty';
import { CONTINUED, fullArgs, sanitize } from './terminal-text';
import { readField } from './tty-form-field';

const req = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  session: 'l',
  agentSession: 'a',
  tool: 'files.write_file',
  advertisedName: 'write_file',
  server: 'files',
  args: { path: 'notes.txt', content: 'hello' },
  reason: 'writes need approval',
  rule: 'policy.rules[1]',
  ...over,
});

function setup(opts: { raw?: boolean; pageLines?: number } = {}) {
  const broker = new ApprovalBroker();
  const input = new PassThrough();
  const rawModes: boolean[] = [];
  // A stand-in terminal: raw mode on while a prompt is up, one key at a time.
  if (opts.raw) Object.assign(input, { isTTY: true, setRawMode: (on: boolean) => rawModes.push(on) });
  const output = new PassThrough();
  let screen = '';
  output.setEncoding('utf8');
  output.on('data', (s: string) => (screen += s));
  let interrupts = 0;
  const detach = attachTtyApprover(broker, { input, output, onInterrupt: () => interrupts++, ...(opts.pageLines ? { pageLines: opts.pageLines } : {}) });
  const type = async (text: string) => {
    input.write(text);
    await new Promise((r) => setImmediate(r));
  };
  return { broker, input, type, detach, screen: () => screen, interrupts: () => interrupts, rawModes };
}

const FORM = {
  message: 'Please provide inputs for the following fields:',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Full name', description: 'Your full, legal name' },
      age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150 },
      hero: { type: 'string', title: 'Hero', oneOf: [{ const: 'hero-1', title: 'Superman' }, { const: 'hero-2', title: 'Green Lantern' }] },
      agree: { type: 'boolean', title: 'Agree', default: false },
      email: { type: 'string', format: 'email' },
    },
    required: ['name'],
  },
};

const ask = (over: Partial<AskRequest> = {}): AskRequest => ({
  session: 'l',
  agentSession: 'a',
  tool: 'elicitation/create',
  server: 'everything',
  args: FORM,
  reason: "server 'everything' asks for input, and no connected agent can ask its user",
  kind: 'elicitation',
  question: FORM,
  triggerTool: 'everything.trigger-elicitation-request',
  ...over,
});

const SAMPLING = {
  systemPrompt: 'You are a helpful test server.',
  messages: [
    { role: 'user', content: { type: 'text', text: 'what is six times seven' } },
    { role: 'assistant', content: { type: 'text', text: 'let me think\x1b[2J' } },
    { role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }, { type: 'text', text: 'x'.repeat(5000) }] },
  ],
  maxTokens: 10,
};
const samplingAsk = () => ask({ kind: 'sampling', tool: 'sampling/createMessage', args: SAMPLING, question: SAMPLING, reason: 'asks for an LLM completion' });

const T = { timeoutMs: 60_000 };

describe('attachTtyApprover over a pair of streams', () => {
  it('attaches as an approver named tty and prompts with tool, server, reason and args', async () => {
    const { broker, type, screen } = setup();
    expect(broker.approvers()).toEqual(['tty']);
    const p = broker.request(req(), T);
    await type('');
    expect(screen()).toContain('files.write_file (called as write_file)');
    expect(screen()).toContain('server  files');
    expect(screen()).toContain('writes need approval [policy.rules[1]]');
    expect(screen()).toContain('"path": "notes.txt"');
    expect(screen()).toContain('[a] allow once');
    await type('a\n');
    expect(await p).toEqual({ approved: true, how: 'once', by: 'tty', reason: 'allowed once by tty' });
    expect(screen()).toContain('→ allowed once by tty');
  });

  it('maps s, t, d and Enter; one request at a time, in order', async () => {
    const { broker, type } = setup();
    const ps = [
      broker.request(req({ args: { n: 1 } }), T),
      broker.request(req({ tool: 'files.move', args: { n: 2 } }), T),
      broker.request(req({ tool: 'files.copy', args: { n: 3 } }), T),
      broker.request(req({ tool: 'files.zap', args: { n: 4 } }), T),
    ];
    await type('s\n');
    await type('T\n');
    await type('d\n');
    await type('\n');
    const outcomes = await Promise.all(ps);
    expect(outcomes.map((o) => o.how)).toEqual(['session', 'tool_session', 'denied', 'denied']);
    expect(outcomes.every((o) => o.by === 'tty')).toBe(true);
  });

  it('asks again on an unknown key and answers at most one request per chunk', async () => {
    const { broker, type, screen } = setup();
    const p1 = broker.request(req({ args: { n: 1 } }), T);
    const p2 = broker.request(req({ args: { n: 2 } }), T);
    await type('x\n');
    expect(screen()).toContain('press a, s, t or d');
    expect(broker.pending()).toHaveLength(2);
    await type('a\na\n'); // a paste: only the request on screen is answered
    expect((await p1).how).toBe('once');
    expect(broker.pending()).toHaveLength(1);
    await type('d\n');
    expect((await p2).how).toBe('denied');
  });

  it('ignores keys typed while nothing is asked', async () => {
    const { broker, type } = setup();
    await type('a\n');
    const p = broker.request(req(), T);
    await type('d\n');
    expect((await p).how).toBe('denied');
  });

  it('skips a request resolved elsewhere and moves to the next', async () => {
    const { broker, type, screen } = setup();
    const p1 = broker.request(req({ args: { n: 1 } }), T);
    const p2 = broker.request(req({ tool: 'files.second', args: { n: 2 } }), T);
    broker.answer(broker.pending()[0]!.id, { choice: 'deny', by: 'ui' });
    expect((await p1).by).toBe('ui');
    expect(screen()).toContain('(no longer waiting: denied by ui)');
    expect(screen()).toContain('files.second');
    await type('a\n');
    expect(await p2).toMatchObject({ how: 'once', by: 'tty' });
  });

  it('stops prompting after detach', async () => {
    const { broker, type, detach } = setup();
    detach();
    expect(broker.approvers()).toEqual([]);
    expect((await broker.request(req(), T)).how).toBe('no_approver');
    await type('a\n');
  });

  it('escapes terminal control sequences and bounds the arguments shown', () => {
    expect(sanitize('evil\x1b[2J\u009b31m\u202eok', true)).toBe('evil\\u001b[2J\\u009b31m\\u202eok');
    expect(sanitize('a\nb', false)).toBe('a\nb');
    expect(sanitize('a\nb', true)).toBe('a\\u000ab');
    // Arguments are never cut: wrapped to the width, every character kept, hidden ones shown.
    const lines = fullArgs({ items: Array.from({ length: 100 }, (_, i) => i), long: `${'x'.repeat(500)}\u200B|sh` }, 80);
    expect(lines).toHaveLength(104 + 7);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(lines.join('\n').replaceAll(`\n${CONTINUED}`, '')).toContain(`"long": "${'x'.repeat(500)}\\u200B|sh"`);
  });
});

describe('attachTtyApprover answering questions', () => {
  it('asks each field of an elicitation form in turn, re-asks an invalid value, then accepts', async () => {
    const { broker, type, screen } = setup();
    const p = broker.ask(ask(), T);
    await type('');
    expect(screen()).toContain('a server asks you a question');
    expect(screen()).toContain('server  everything (during everything.trigger-elicitation-request)');
    expect(screen()).toContain('message Please provide inputs for the following fields:');
    expect(screen()).toContain('fields  name, age, hero, agree, email');
    expect(screen()).toContain('[a] answer  [d/Enter] decline  [c] cancel');
    await type('a\n');
    expect(screen()).toContain('[1/5] Full name (name), required');
    expect(screen()).toContain('Your full, legal name');
    await type('\n'); // required: asked again
    expect(screen()).toContain("✗ 'name' is required: try again");
    await type('Ada Lovelace\n');
    expect(screen()).toContain('[2/5] Age (age)');
    expect(screen()).toContain('a whole number, at least 0, at most 150');
    await type('many\n');
    expect(screen()).toContain("✗ 'age' must be a number, found string: try again");
    await type('200\n');
    expect(screen()).toContain("✗ 'age' must be at most 150: try again");
    await type('36\n');
    expect(screen()).toContain('one of: 1) Superman [hero-1]  2) Green Lantern [hero-2]');
    await type('green lantern\n'); // by title; a number or the value work too
    expect(screen()).toContain('[4/5] Agree (agree)');
    expect(screen()).toContain('yes or no');
    expect(screen()).toContain('default false (Enter keeps it)');
    await type('\n');
    expect(screen()).toContain('optional (Enter leaves it out)');
    await type('not-an-email\n');
    expect(screen()).toContain("✗ 'email' must be an email address: try again");
    await type('\n');
    expect(screen()).toContain('name = "Ada Lovelace"');
    expect(screen()).toContain('hero = "hero-2"');
    expect(broker.pending()).toHaveLength(1); // nothing is sent before the person confirms
    await type('a\n');
    expect(await p).toEqual({ answered: true, by: 'tty', content: { action: 'accept', content: { name: 'Ada Lovelace', age: 36, hero: 'hero-2', agree: false } } });
    expect(screen()).toContain('→ answered by tty');
  });

  it('declines or cancels an elicitation, from the first prompt or the last', async () => {
    const { broker, type } = setup();
    const first = broker.ask(ask(), T);
    await type('d\n');
    expect(await first).toMatchObject({ answered: false, how: 'declined', by: 'tty' });
    const second = broker.ask(ask(), T);
    await type('c\n');
    expect(await second).toMatchObject({ answered: false, how: 'cancelled', by: 'tty' });
    const third = broker.ask(ask({ question: { message: 'ok?', requestedSchema: { type: 'object', properties: { n: { type: 'number' } } } } }), T);
    await type('a\n');
    await type('4.5\n');
    await type('\n'); // Enter at the confirmation declines
    expect(await third).toMatchObject({ answered: false, how: 'declined' });
  });

  it('shows a URL elicitation and accepts it (or declines)', async () => {
    const { broker, type, screen } = setup();
    const q = { mode: 'url', message: 'Sign in to continue', url: 'https://example.com/auth?x=1\u202e', elicitationId: 'e1' };
    const p = broker.ask(ask({ question: q, args: q }), T);
    await type('');
    expect(screen()).toContain('open    https://example.com/auth?x=1\\u202E');
    expect(screen()).toContain('[a] accept  [d/Enter] decline');
    await type('a\n');
    expect(await p).toEqual({ answered: true, by: 'tty', content: { action: 'accept' } });
    const again = broker.ask(ask({ question: q, args: q }), T);
    await type('\n');
    expect(await again).toMatchObject({ answered: false, how: 'declined' });
  });

  it('pages a sampling conversation whole and escaped before it takes a reply, and sends a one-line reply', async () => {
    const { broker, type, screen } = setup();
    const p = broker.ask(samplingAsk(), T);
    await type('');
    expect(screen()).toContain('a server asks for an LLM reply');
    expect(screen()).toContain('[system] You are a helpful test server.');
    expect(screen()).toContain('[user] what is six times seven');
    expect(screen()).toContain('[assistant] let me think\\u001B[2J');
    expect(screen()).toContain('[image image/png]');
    expect(screen()).toContain('lines shown: space/Enter for more');
    await type('a\n'); // not yet: the rest of the conversation comes first
    expect(screen()).toContain('read to the end first');
    for (let i = 0; i < 20 && !screen().includes('[a] write a reply'); i++) await type('\n');
    // All 5000 characters of the last message were drawn (wrapped), none cut.
    expect(screen().match(/x/g)!.length).toBeGreaterThanOrEqual(5000);
    expect(screen()).toContain('max tokens 10');
    expect(screen().indexOf('max tokens 10')).toBeLessThan(screen().indexOf('[a] write a reply'));
    await type('a\n');
    await type('forty-two\n');
    expect(screen()).toContain('your reply:\n    forty-two');
    expect(broker.pending()).toHaveLength(1);
    await type('s\n');
    expect(await p).toEqual({ answered: true, by: 'tty', content: { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'human (Gatehouse)', stopReason: 'endTurn' } });
  });

  it('reads a reply of several lines ended by "." (even pasted at once), and declines with Enter', async () => {
    const { broker, type } = setup({ pageLines: 500 });
    const p = broker.ask(samplingAsk(), T);
    await type('a\n');
    await type('\nline one\n\nline three\n.\ns\n'); // the paste ends the reply; its trailing "s" is dropped
    expect(broker.pending()).toHaveLength(1);
    await type('s\n');
    expect(await p).toMatchObject({ answered: true, content: { content: { text: 'line one\n\nline three' } } });
    const declined = broker.ask(samplingAsk(), T);
    await type('\n');
    expect(await declined).toMatchObject({ answered: false, how: 'declined', by: 'tty' });
  });

  it('refuses an empty reply and asks again; "e" writes it again', async () => {
    const { broker, type, screen } = setup({ pageLines: 500 });
    const p = broker.ask(samplingAsk(), T);
    await type('a\n');
    await type('\n');
    await type('.\n');
    expect(screen()).toContain('✗ the reply is empty');
    await type('first try\n');
    await type('e\n');
    await type('second try\n');
    await type('s\n');
    expect(await p).toMatchObject({ answered: true, content: { content: { text: 'second try' } } });
  });

  it('one chunk answers at most one prompt; Ctrl-C declines', async () => {
    const { broker, type, interrupts } = setup();
    const p = broker.ask(ask(), T);
    await type('a\nAda\n'); // the paste opens the form; "Ada" is dropped
    await type('\n');
    await type('Ada\n');
    await type('\x03\n');
    expect(await p).toMatchObject({ answered: false, how: 'declined', by: 'tty' });
    expect(interrupts()).toBe(1);
  });

  it('on a terminal: keys answer at once, and values are typed with a small line editor', async () => {
    const { broker, type, screen, rawModes } = setup({ raw: true });
    const p = broker.ask(ask({ question: { message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } }), T);
    await type('');
    expect(rawModes).toEqual([true]);
    await type('a');
    await type('Adx\x7fa\x1b[D\r'); // backspace, an arrow key (ignored)
    await type('\n'); // CR LF is one Enter, even split: this LF does not decline the confirmation
    expect(screen()).toContain('Ada');
    expect(screen()).toContain('name = "Ada"');
    expect(broker.pending()).toHaveLength(1);
    await type('a');
    expect(await p).toEqual({ answered: true, by: 'tty', content: { action: 'accept', content: { name: 'Ada' } } });
    expect(rawModes.at(-1)).toBe(false);
  });

  it('a question answered elsewhere mid-form leaves the screen and the next one is asked', async () => {
    const { broker, type, screen } = setup();
    const p1 = broker.ask(ask(), T);
    const p2 = broker.request(req(), T);
    await type('a\n');
    broker.answer(broker.pending()[0]!.id, { choice: 'decline', by: 'ui' });
    expect((await p1).answered).toBe(false);
    expect(screen()).toContain('(no longer waiting: declined by ui)');
    await type('a\n');
    expect(await p2).toMatchObject({ approved: true, by: 'tty' });
  });

  it('readField reads numbers, booleans, enums by number and lists, with the broker validator', () => {
    expect(readField('n', { type: 'integer' }, true, ' 7 ')).toEqual({ value: 7 });
    expect(readField('n', { type: 'integer' }, true, '7.5')).toEqual({ error: "'n' must be an integer" });
    expect(readField('b', { type: 'boolean' }, false, 'Yes')).toEqual({ value: true });
    expect(readField('b', { type: 'boolean' }, false, 'maybe')).toEqual({ error: "'b' must be true or false, found string" });
    expect(readField('c', { type: 'string', enum: ['Red', 'Blue'] }, false, '2')).toEqual({ value: 'Blue' });
    expect(readField('c', { type: 'string', enum: ['Red', 'Blue'] }, false, 'Pink')).toEqual({ error: `'c' must be one of "Red", "Blue"` });
    expect(readField('l', { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }, { const: 'f2', title: 'Salmon' }] } }, false, 'tuna, 2')).toEqual({ value: ['f1', 'f2'] });
    expect(readField('o', { type: 'string' }, false, '')).toEqual({ value: undefined });
  });
});

describe('openControllingTty', () => {
  it('returns streams for the terminal, or undefined without one', () => {
    const t = openControllingTty();
    if (t) {
      expect(t.input.isTTY).toBe(true);
      t.close();
    } else {
      expect(t).toBeUndefined();
    }
  });
});
