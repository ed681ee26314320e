// Session grants through the real broker: listed with what they cover, revoked (the next call
// asks again), and a tool grant narrowed to an argument pattern covers only matching calls.
import { describe, expect, it } from 'vitest';
import { ApprovalBroker, type ApprovalRequest, type PendingApproval } from './broker';

const write = (path: string): ApprovalRequest => ({ session: 'launch-1', agentSession: 'agent-1', tool: 'fs.write', server: 'builtin', args: { path }, reason: 'writes need approval' });

function setup() {
  const broker = new ApprovalBroker();
  broker.attachApprover({ name: 'test' });
  const asked: PendingApproval[] = [];
  broker.onEvent((e) => {
    if (e.type === 'requested') asked.push(e.request);
  });
  const call = (req: ApprovalRequest) => broker.request(req, { timeoutMs: 60_000 });
  return { broker, asked, call };
}

describe('session grants', () => {
  it('a tool grant narrowed to a pattern answers matching calls only, is listed, and revoking it asks again', async () => {
    const { broker, asked, call } = setup();
    const first = call(write('docs/a.md'));
    expect(broker.answer(asked[0]!.id, { choice: 'allow_tool_session', by: 'alice', narrow: { arg: 'path', pattern: 'docs/.*' } })).toBe(true);
    expect(await first).toMatchObject({ approved: true, how: 'tool_session' });

    expect(await call(write('docs/b/c.md'))).toMatchObject({ approved: true, how: 'grant', by: 'alice' });
    // Outside the pattern (and a prefix trick): asked, not granted.
    const outside = call(write('src/docs/x.ts'));
    expect(asked.at(-1)!.args).toEqual({ path: 'src/docs/x.ts' });
    const pendingId = asked.at(-1)!.id;
    expect(broker.get(pendingId)).toBeDefined();
    broker.answer(pendingId, { choice: 'deny', by: 'alice' });
    expect(await outside).toMatchObject({ approved: false, how: 'denied' });

    const [grant] = broker.listGrants();
    expect(broker.listGrants()).toHaveLength(1);
    expect(grant).toMatchObject({ session: 'launch-1', agentSession: 'agent-1', grant: 'pattern', tool: 'fs.write', arg: 'path', pattern: 'docs/.*', by: 'alice' });
    expect(broker.revokeGrant(grant!.id)).toMatchObject({ id: grant!.id });
    expect(broker.listGrants()).toEqual([]);
    expect(broker.revokeGrant(grant!.id)).toBeUndefined();
    const again = call(write('docs/a.md'));
    expect(broker.get(asked.at(-1)!.id)).toBeDefined(); // waits for a person again
    broker.answer(asked.at(-1)!.id, { choice: 'allow_once', by: 'alice' });
    expect(await again).toMatchObject({ how: 'once' });
  });

  it('a narrowing that does not cover the call being answered, or does not compile, grants nothing', async () => {
    const { broker, asked, call } = setup();
    void call(write('src/a.ts'));
    expect(broker.answer(asked[0]!.id, { choice: 'allow_tool_session', by: 'alice', narrow: { arg: 'path', pattern: 'docs/.*' } })).toBe(false);
    expect(broker.answer(asked[0]!.id, { choice: 'allow_tool_session', by: 'alice', narrow: { arg: 'path', pattern: '(' } })).toBe(false);
    expect(broker.listGrants()).toEqual([]);
    expect(broker.get(asked[0]!.id)).toBeDefined();
  });

  it('same-arguments and whole-tool grants are listed too, and end with their agent session', async () => {
    const { broker, asked, call } = setup();
    const a = call(write('x.md'));
    broker.answer(asked[0]!.id, { choice: 'allow_session', by: 'bob' });
    await a;
    const b = call({ ...write('y.md'), tool: 'fs.delete' });
    broker.answer(asked[1]!.id, { choice: 'allow_tool_session', by: 'bob' });
    await b;
    expect(broker.listGrants().map((g) => [g.grant, g.tool, g.args])).toEqual([
      ['action', 'fs.write', { path: 'x.md' }],
      ['tool', 'fs.delete', undefined],
    ]);
    broker.clearSession('agent-1');
    expect(broker.listGrants()).toEqual([]);
  });
});
