import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApprovalBroker, type ApprovalRequest } from './broker';
import { attachTtyApprover, formatArgs, openControllingTty, sanitize } from './tty-approver';

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

function setup() {
  const broker = new ApprovalBroker();
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = '';
  output.setEncoding('utf8');
  output.on('data', (s: string) => (screen += s));
  const detach = attachTtyApprover(broker, { input, output });
  const type = async (text: string) => {
    input.write(text);
    await new Promise((r) => setImmediate(r));
  };
  return { broker, input, type, detach, screen: () => screen };
}

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
    const big = formatArgs({ items: Array.from({ length: 100 }, (_, i) => i), long: 'x'.repeat(500) }, 24, 2000);
    const lines = big.split('\n');
    expect(lines).toHaveLength(25);
    expect(lines.at(-1)).toMatch(/^… \(\d+ more lines\)$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(160);
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
