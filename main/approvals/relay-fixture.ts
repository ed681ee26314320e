// What the approvals relay tests share (relay.test.ts: the wire and the window side;
// relaying-broker.test.ts: the gateway side): requests, a raw peer on the socket, and one relay
// per test on a real Unix socket in a fresh data dir.
import { afterEach, beforeEach } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApprovalBroker, type ApprovalEvent, type ApprovalRequest, type AskRequest } from './broker';
import { startApprovalRelay, type ApprovalRelay } from './relay-server';
import type { RelayClient } from './relaying-broker';

export const posix = process.platform !== 'win32';
/** Every peer in these tests is this process: the kernel says so, whatever hello claims. */
export const ME = `gateway:${process.pid}`;

export const REQ = {
  tool: 'fs.write',
  advertisedName: 'write_file',
  server: 'workspace',
  args: { path: 'a.txt', content: '[redacted]' },
  reason: 'writes need approval',
  kind: 'tool' as const,
  agentSession: 'agent-1',
  session: 'launch-1',
};

export const breq = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({ ...REQ, ...over });

/** An elicitation as the gateway relays it: the request fields, the kind, the (redacted) question. */
export const FORM = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string', title: 'Name' }, age: { type: 'integer', minimum: 0 } },
    required: ['name'],
  },
};
export const ASK = {
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
export const SAMPLING_Q = { messages: [{ role: 'user', content: { type: 'text', text: 'six times seven?' } }], maxTokens: 5 };
export const aReq = (over: Partial<AskRequest> = {}): AskRequest => ({ ...ASK, ...over });

export async function waitUntil<T>(check: () => T, what: string, limitMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A raw peer on the relay socket: writes lines, collects parsed lines, knows when it closed. */
export class RawPeer {
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

/** One relay per test (beforeEach/afterEach): its broker, the events it saw, and the peers and clients to close. */
export interface RelayFixture {
  dir: string;
  dataDir: string;
  broker: ApprovalBroker;
  relay: ApprovalRelay;
  events: ApprovalEvent[];
  peers: RawPeer[];
  clients: RelayClient[];
  /** A raw peer on this test's relay socket. */
  peer(): RawPeer;
}

export function useRelayFixture(): RelayFixture {
  const f = { peers: [], clients: [] } as unknown as RelayFixture;
  f.peer = () => {
    const p = new RawPeer(f.relay.path!);
    f.peers.push(p);
    return p;
  };
  beforeEach(async () => {
    // Short: a Unix socket path has a ~104 byte limit.
    f.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-relay-'));
    f.dataDir = path.join(f.dir, 'data');
    f.broker = new ApprovalBroker();
    f.events = [];
    f.broker.onEvent((e) => f.events.push(e));
    f.relay = await startApprovalRelay({ broker: f.broker, dataDir: f.dataDir });
  });
  afterEach(async () => {
    for (const p of f.peers.splice(0)) p.end();
    for (const c of f.clients.splice(0)) c.close();
    await f.relay.close();
    fs.rmSync(f.dir, { recursive: true, force: true });
  });
  return f;
}
