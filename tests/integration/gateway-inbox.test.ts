// The approvals inbox answers what an agent's client cannot (docs/gateway.md "Questions from servers"):
// server-everything's sampling and elicitation tools, called through the gateway by an SDK
// client that declares neither capability. The request waits in the broker with its question,
// names the server and the triggering call, and a person's answer becomes the result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Host, type Launch } from '../../main/host';
import type { PendingApproval } from '../../main/approvals/broker';
import { createHostApiDispatcher } from '../../main/api/dispatcher';
import type { DecisionEvent } from '../../main/gateway/gateway';
import { tempDir, writeProfile } from '../support/temp';
import { connectHttp, textOf, waitFor } from '../support/gateway';

const PROFILE = `
name: inbox
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
  approval_timeout_s: 3
  sampling: approve
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let client: Client;
const decisions: DecisionEvent[] = [];

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, PROFILE);
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  launch = await host.launch(file, { httpPort: 0, token: 'inbox-token-1234567890' });
  for (const s of launch.statuses()) expect(s.state, `${s.id}: ${s.reason}`).toBe('ready');
  launch.gateway.on('decision', (d) => decisions.push(d));
  // No sampling, no elicitation: this client can answer neither.
  client = await connectHttp(launch, { capabilities: {} }, 'no-caps-agent');
}, 60_000);

afterAll(async () => {
  await client?.close();
  await host?.shutdown();
  tmp?.cleanup();
});

/** Calls a tool without waiting, and returns the question it put in the inbox. */
async function callAndWait(name: string, args: Record<string, unknown>, kind: 'sampling' | 'elicitation') {
  const before = new Set(host.broker.pending().map((p) => p.id));
  const result = client.callTool({ name, arguments: args }).then(
    (r) => r as CallToolResult,
    (err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }) as CallToolResult,
  );
  const pending = await waitFor(() => host.broker.pending().find((p) => p.kind === kind && !before.has(p.id)), `a ${kind} question in the inbox`);
  return { pending, result };
}

function withApprover<T>(fn: () => Promise<T>): Promise<T> {
  const detach = host.broker.attachApprover({ name: 'test' });
  return fn().finally(detach);
}

const lastDecision = (tool: string) => decisions.filter((d) => d.tool === tool).at(-1);

describe('sampling with no client that can sample', () => {
  it('waits in the inbox with the conversation, naming the server and the call; the reply is the result', () =>
    withApprover(async () => {
      const { pending, result } = await callAndWait('trigger-sampling-request', { prompt: 'what is six times seven', maxTokens: 10 }, 'sampling');
      expect(pending).toMatchObject({ server: 'everything', tool: 'sampling/createMessage', triggerTool: 'everything.trigger-sampling-request' });
      expect(pending.exchange).toMatch(/#/);
      expect(pending.agentSession).toBe(pending.exchange!.split('#')[0]);
      const q = pending.question as { messages: Array<{ role: string; content: { text: string } }>; systemPrompt: string; maxTokens: number };
      expect(q.messages[0]!.role).toBe('user');
      expect(q.messages[0]!.content.text).toContain('what is six times seven');
      expect(q).toMatchObject({ systemPrompt: 'You are a helpful test server.', maxTokens: 10 });
      // The policy says APPROVAL: the reply is the approval, nobody is asked twice.
      expect(host.broker.pending().filter((p) => p.kind === 'sampling')).toHaveLength(1);

      expect(host.broker.answer(pending.id, { choice: 'accept', by: 'test', content: { text: 'forty-two, says a person' } })).toBe(true);
      const res = await result;
      expect(res.isError).toBeFalsy();
      expect(textOf(res)).toContain('forty-two, says a person');
      expect(textOf(res)).toContain('human (Gatehouse)');
      expect(lastDecision('sampling/createMessage')).toMatchObject({ decision: 'APPROVAL', outcome: 'answered', answeredBy: 'test', server: 'everything', exchange: pending.exchange });
    }));

  it('declined: the server gets -1 "User rejected sampling request"', () =>
    withApprover(async () => {
      const { pending, result } = await callAndWait('trigger-sampling-request', { prompt: 'no', maxTokens: 5 }, 'sampling');
      host.broker.answer(pending.id, { choice: 'decline', by: 'test' });
      const res = await result;
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/-1.*User rejected sampling request/);
      expect(lastDecision('sampling/createMessage')).toMatchObject({ outcome: 'declined', answeredBy: 'test' });
    }));

  it('with no approver attached it fails closed, saying why', async () => {
    const res = (await client
      .callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 } })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }))) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/no connected agent session can answer sampling\/createMessage from server 'everything', and approval required but no approver is attached/);
    expect(lastDecision('sampling/createMessage')).toMatchObject({ outcome: 'no_approver' });
  });
});

describe('elicitation with no client that can elicit', () => {
  it('waits in the inbox with the message and schema; accepted values reach the server', () =>
    withApprover(async () => {
      const { pending, result } = await callAndWait('trigger-elicitation-request', {}, 'elicitation');
      expect(pending).toMatchObject({ server: 'everything', tool: 'elicitation/create', triggerTool: 'everything.trigger-elicitation-request' });
      const q = pending.question as { message: string; requestedSchema: { properties: Record<string, unknown>; required: string[] } };
      expect(q.message).toBe('Please provide inputs for the following fields:');
      expect(q.requestedSchema.required).toEqual(['name']);
      expect(Object.keys(q.requestedSchema.properties)).toContain('email');

      // A value of the wrong type is refused and the question keeps waiting.
      expect(host.broker.answer(pending.id, { choice: 'accept', by: 'test', content: { name: 'Ada', integer: 'many' } })).toBe(false);
      expect(host.broker.get(pending.id)).toBeDefined();
      expect(host.broker.answer(pending.id, { choice: 'accept', by: 'test', content: { name: 'Ada Lovelace', check: true, integer: 7, untitledSingleSelectEnum: 'Joey' } })).toBe(true);
      const text = textOf(await result);
      expect(text).toContain('User provided the requested information');
      expect(text).toContain('- Name: Ada Lovelace');
      expect(text).toContain('- Favorite Integer: 7');
      expect(lastDecision('elicitation/create')).toMatchObject({ decision: 'APPROVAL', outcome: 'answered', answeredBy: 'test' });
    }));

  it('declined and cancelled take the server decline and cancel paths', () =>
    withApprover(async () => {
      const first = await callAndWait('trigger-elicitation-request', {}, 'elicitation');
      host.broker.answer(first.pending.id, { choice: 'decline', by: 'test' });
      expect(textOf(await first.result)).toContain('User declined to provide the requested information');
      const second = await callAndWait('trigger-elicitation-request', {}, 'elicitation');
      host.broker.answer(second.pending.id, { choice: 'cancel', by: 'test' });
      expect(textOf(await second.result)).toContain('User cancelled the elicitation dialog');
    }));

  it('unanswered by the timeout declines', () =>
    withApprover(async () => {
      const { result } = await callAndWait('trigger-elicitation-request', {}, 'elicitation');
      expect(textOf(await result)).toContain('User declined to provide the requested information');
      expect(lastDecision('elicitation/create')).toMatchObject({ outcome: 'timeout' });
    }));
});

describe('answered through the host API (approvals:answer with content)', () => {
  it('validates the content against the question, then settles it', async () => {
    const api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
    const off = api.subscribe(() => {}); // a window: the UI approver is attached while it lives
    try {
      const { pending, result } = await callAndWait('trigger-elicitation-request', {}, 'elicitation');
      const listed = (await api.handle('approvals:list', {})) as PendingApproval[];
      expect(listed.find((p) => p.id === pending.id)).toMatchObject({ kind: 'elicitation', triggerTool: 'everything.trigger-elicitation-request', question: { message: 'Please provide inputs for the following fields:' } });
      await expect(api.handle('approvals:answer', { id: pending.id, choice: 'accept', content: { check: true } })).rejects.toThrow(/cannot accept this elicitation request: 'name' is required/);
      await expect(api.handle('approvals:answer', { id: pending.id, choice: 'allow_session' })).rejects.toThrow(/use accept, decline or cancel/);
      await expect(api.handle('approvals:answer', { id: pending.id, choice: 'accept', content: { name: { first: 'Ada' } } })).rejects.toThrow(/invalid input/);
      expect(await api.handle('approvals:answer', { id: pending.id, choice: 'accept', content: { name: 'Grace Hopper' } })).toEqual({ ok: true });
      expect(textOf(await result)).toContain('- Name: Grace Hopper');

      const sampling = await callAndWait('trigger-sampling-request', { prompt: 'hello', maxTokens: 5 }, 'sampling');
      await expect(api.handle('approvals:answer', { id: sampling.pending.id, choice: 'accept', content: { text: 'x'.repeat(100_001) } })).rejects.toThrow(/invalid input/);
      expect(await api.handle('approvals:answer', { id: sampling.pending.id, choice: 'accept', content: { text: 'hi from the window' } })).toEqual({ ok: true });
      expect(textOf(await sampling.result)).toContain('hi from the window');
    } finally {
      off();
      api.close();
    }
  });
});
