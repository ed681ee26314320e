// Approvals across processes: a "window" (a Host in this process with the approvals relay and a
// UI-like approver, answering through host.broker.answer as the dispatcher does for the UI) and
// the REAL `node cli.mjs gateway --profile P --quiet --data-dir SAME` as a child process spoken
// to over stdio, as Claude Desktop or Cursor would run it. The gateway has no terminal (it runs
// under setsid where available), so its only way to get an answer is the window's relay: for
// tool approvals, and for its servers' questions (elicitation) that its client cannot answer.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { toolsServerEntry } from '../../main/paths';
import { startApprovalRelay, type ApprovalRelay } from '../../main/approvals/relay-server';
import { RELAY_NO_APPROVER_REASON } from '../../main/approvals/relaying-broker';
import type { ApprovalChoice, PendingApproval } from '../../main/approvals/broker';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';
import { RawStdioPeer } from '../support/raw-stdio';
import { waitFor } from '../support/gateway';

const PROFILE = `
name: relay-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: approve
  approval_timeout_s: 2
  rules:
    - { match: "fs.read", decision: allow }
`;

// server-everything asks for input (elicitation) from its trigger-elicitation-request tool.
const QUESTIONS_PROFILE = `
name: relay-questions
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
  approval_timeout_s: 20
`;

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'relay-test', version: '1.0.0' } };

let bundle: TestBundle;
let tmp: ReturnType<typeof tempDir>;
let profileFile: string;
let questionsProfileFile: string;
let dataDir: string;

/** The window: a Host with the relay and one UI approver whose answers the test decides. */
class Window {
  readonly host = new Host({ dataDir });
  relay!: ApprovalRelay;
  readonly seen: PendingApproval[] = [];
  choose: (req: PendingApproval) => ApprovalChoice | undefined = () => undefined;
  private readonly detach = this.host.broker.attachApprover({ name: 'ui' });

  async start(): Promise<this> {
    this.host.broker.onEvent((e) => {
      if (e.type !== 'requested' || !this.host.broker.get(e.request.id)) return;
      this.seen.push(e.request);
      const choice = this.choose(e.request);
      if (choice) this.host.broker.answer(e.request.id, { choice, by: 'ui' });
    });
    this.relay = await startApprovalRelay(this.host);
    expect(this.relay.path).toBe(path.join(dataDir, 'approvals.sock'));
    return this;
  }

  async close(): Promise<void> {
    this.detach();
    await this.relay.close();
    await this.host.shutdown();
  }
}

const peers: RawStdioPeer[] = [];
let window: Window | undefined;
let nextId = 1;

async function startGateway(quiet = true, profile = profileFile): Promise<RawStdioPeer> {
  pinProfile(dataDir, profile);
  const argv = [bundle.entry('cli'), 'gateway', '--profile', profile, ...(quiet ? ['--quiet'] : []), '--data-dir', dataDir];
  // No controlling terminal: otherwise the gateway would ask on the test runner's terminal.
  const peer = existsSync('/usr/bin/setsid') ? new RawStdioPeer('/usr/bin/setsid', [process.execPath, ...argv], { cwd: tmp.dir }) : new RawStdioPeer(process.execPath, argv, { cwd: tmp.dir });
  peers.push(peer);
  await peer.request('init', 'initialize', INIT);
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return peer;
}

async function write(peer: RawStdioPeer, file: string, content: string): Promise<{ text: string; isError: boolean }> {
  const res = await peer.request(nextId++, 'tools/call', { name: 'write_file', arguments: { file_path: file, content } });
  const result = res.message.result as { content: Array<{ type: string; text?: string }>; isError?: boolean };
  return { text: result.content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
}

beforeAll(() => {
  if (!existsSync(toolsServerEntry())) throw new Error(`${toolsServerEntry()} is missing: run node scripts/build.mjs first`);
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'relay');
  tmp = tempDir('gh-relay-');
  profileFile = writeProfile(tmp.dir, PROFILE);
  questionsProfileFile = writeProfile(tmp.dir, QUESTIONS_PROFILE, 'questions.yaml');
  dataDir = path.join(tmp.dir, 'data');
});

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.child.stdin.end();
    const exited = await Promise.race([p.exit.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
    if (!exited) p.kill();
    expect(p.garbage, 'stdout carries protocol only').toEqual([]);
  }
  await window?.close();
  window = undefined;
});

afterAll(() => {
  bundle?.cleanup();
  tmp?.cleanup();
});

describe('approvals relayed from a gateway process to the window', () => {
  it('allow: the call goes through, asked in the window under the gateway label', async () => {
    window = await new Window().start();
    window.choose = () => 'allow_once';
    const peer = await startGateway();
    await waitFor(() => window!.relay.connections() === 1, 'the gateway connected to the relay');
    const r = await write(peer, 'allowed.txt', 'hello');
    expect(r.isError, r.text).toBe(false);
    expect(readFileSync(path.join(tmp.dir, 'ws', 'allowed.txt'), 'utf8')).toBe('hello');
    expect(window.seen).toHaveLength(1);
    expect(window.seen[0]).toMatchObject({ tool: 'fs.write', advertisedName: 'write_file', server: 'workspace', kind: 'tool', session: `gateway:${peer.child.pid}` });
    expect(window.seen[0]!.args).toMatchObject({ file_path: 'allowed.txt' });
    expect(window.host.broker.pending()).toEqual([]);
  });

  it('deny: DENY, and the server never sees the call', async () => {
    window = await new Window().start();
    window.choose = () => 'deny';
    const peer = await startGateway();
    await waitFor(() => window!.relay.connections() === 1, 'the gateway connected to the relay');
    const r = await write(peer, 'denied.txt', 'no');
    expect(r).toEqual({ isError: true, text: 'DENY: denied by ui' });
    expect(existsSync(path.join(tmp.dir, 'ws', 'denied.txt'))).toBe(false);
  });

  it('allow for this session is remembered by the gateway: the same call is not asked again', async () => {
    window = await new Window().start();
    window.choose = () => 'allow_session';
    const peer = await startGateway();
    await waitFor(() => window!.relay.connections() === 1, 'the gateway connected to the relay');
    expect((await write(peer, 'same.txt', 'x')).isError).toBe(false);
    expect((await write(peer, 'same.txt', 'x')).isError).toBe(false);
    expect(window.seen).toHaveLength(1);
    // Other arguments are another action: asked.
    expect((await write(peer, 'other.txt', 'y')).isError).toBe(false);
    expect(window.seen).toHaveLength(2);
  });

  it('no answer: DENY at the timeout, and the window inbox is cleared', async () => {
    window = await new Window().start();
    const peer = await startGateway();
    await waitFor(() => window!.relay.connections() === 1, 'the gateway connected to the relay');
    const r = await write(peer, 'late.txt', 'x');
    expect(r).toEqual({ isError: true, text: 'DENY: no answer within 2s' });
    expect(window.seen).toHaveLength(1);
    await waitFor(() => window!.host.broker.pending().length === 0, 'the window request settled');
  });

  it('window closed: an immediate no_approver DENY that says how to get approvals', async () => {
    window = await new Window().start();
    const peer = await startGateway(false);
    await waitFor(() => peer.stderr.includes('approvals go to the Gatehouse window'), 'the banner');
    await window.close();
    window = undefined;
    // (A call racing the close would get "the Gatehouse window went away…": also a DENY.)
    await waitFor(() => peer.stderr.includes('the Gatehouse window went away'), 'the gateway noticed');
    const r = await write(peer, 'closed.txt', 'x');
    // The no_approver reason, not the timeout's "no answer within 2s": it did not wait for one.
    // (No timed assertion: under load a prompt DENY can still take longer than a fixed bound.)
    expect(r).toEqual({ isError: true, text: `DENY: ${RELAY_NO_APPROVER_REASON}` });
  });

  it('window started after the gateway: it reconnects, then approvals work', async () => {
    const peer = await startGateway(false);
    await waitFor(() => /no approver attached: calls that need approval are denied until a Gatehouse window runs/.test(peer.stderr), 'the banner');
    expect(await write(peer, 'early.txt', 'x')).toEqual({ isError: true, text: `DENY: ${RELAY_NO_APPROVER_REASON}` });
    window = await new Window().start();
    window.choose = () => 'allow_once';
    await waitFor(() => window!.relay.connections() === 1, 'the gateway reconnected', 20_000);
    // The window counts the connection when it accepts it; the gateway routes approvals to it
    // once it has the window's welcome, which it says on stderr.
    await waitFor(() => /approvals now go to the Gatehouse window/.test(peer.stderr), 'the gateway welcomed by the window', 20_000);
    const r = await write(peer, 'later.txt', 'late but fine');
    expect(r.isError, r.text).toBe(false);
    expect(readFileSync(path.join(tmp.dir, 'ws', 'later.txt'), 'utf8')).toBe('late but fine');
  });

  it('the gateway audits the relayed decision in the shared store, answered by the window', async () => {
    window = await new Window().start();
    window.choose = () => 'allow_once';
    const peer = await startGateway();
    await waitFor(() => window!.relay.connections() === 1, 'the gateway connected to the relay');
    expect((await write(peer, 'audited.txt', 'x')).isError).toBe(false);
    const audit = window.host.audit!;
    const row = await waitFor(() => {
      audit.flush();
      return audit.queryDecisions({}).find((d) => d.tool === 'fs.write' && d.outcome === 'approved' && JSON.stringify(d.args ?? null).includes('audited.txt'));
    }, 'the gateway decision in the shared audit store');
    expect(row.answeredBy).toBe('ui');
  });
});

describe("a gateway process's questions (elicitation) answered in the window", () => {
  /** Calls the elicitation tool without waiting; returns the question as the window's inbox has it. */
  async function elicit(peer: RawStdioPeer, w: Window) {
    const id = nextId++;
    const before = new Set(w.host.broker.pending().map((p) => p.id));
    const result = peer.request(id, 'tools/call', { name: 'trigger-elicitation-request', arguments: {} }).then((f) => {
      const r = f.message.result as { content: Array<{ text?: string }>; isError?: boolean } | undefined;
      return { text: r ? r.content.map((c) => c.text ?? '').join('\n') : JSON.stringify(f.message.error), isError: !r || r.isError === true };
    });
    const pending = await waitFor(() => w.host.broker.pending().find((p) => p.kind === 'elicitation' && !before.has(p.id)), 'the question in the window inbox');
    return { pending, result };
  }

  it('the question shows in the window inbox; values answered there reach the server', async () => {
    window = await new Window().start();
    const peer = await startGateway(true, questionsProfileFile);
    await waitFor(() => window!.relay.connections() === 1, 'the gateway connected to the relay');
    const { pending, result } = await elicit(peer, window);
    expect(pending).toMatchObject({ session: `gateway:${peer.child.pid}`, server: 'everything', tool: 'elicitation/create', triggerTool: 'everything.trigger-elicitation-request' });
    const q = pending.question as { message: string; requestedSchema: { required: string[]; properties: Record<string, unknown> } };
    expect(q.message).toBe('Please provide inputs for the following fields:');
    expect(q.requestedSchema.required).toEqual(['name']);
    // The window's validator refuses what does not fit; the question keeps waiting.
    expect(window.host.broker.answer(pending.id, { choice: 'accept', by: 'ui', content: { integer: 'many' } })).toBe(false);
    expect(window.host.broker.answer(pending.id, { choice: 'accept', by: 'ui', content: { name: 'Ada Lovelace', check: true, integer: 7 } })).toBe(true);
    const r = await result;
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('User provided the requested information');
    expect(r.text).toContain('- Name: Ada Lovelace');
    expect(r.text).toContain('- Favorite Integer: 7');
    expect(window.host.broker.pending()).toEqual([]);
  });

  it('declined in the window: the server takes its decline path', async () => {
    window = await new Window().start();
    const peer = await startGateway(true, questionsProfileFile);
    await waitFor(() => window!.relay.connections() === 1, 'the gateway connected to the relay');
    const { pending, result } = await elicit(peer, window);
    window.host.broker.answer(pending.id, { choice: 'decline', by: 'ui' });
    expect((await result).text).toContain('User declined to provide the requested information');
  });
});
