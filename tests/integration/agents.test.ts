// Agents with names (docs/gateway.md, "Agents with names"), on the real host in front of
// server-everything: `gatehouse connect --agent NAME` (the bundled CLI, in a child process)
// mints a per-agent token into the real secret store (the encrypted file); two SDK clients
// with different clientInfo names and tokens call one gateway; `gatehouse audit calls --json`
// names each call's agent, and a policy rule with `agents:` matches one and not the other. The
// same for stateless new-era agents (the SDK v2 client, 2026-07-28, no initialize): named by the
// clientInfo of each request's `_meta`, and by the minted token over anything `_meta` says.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { Host, type Launch } from '../../main/host';
import { buildTestBundle, type TestBundle } from '../support/build';
import { autoApprover, textOf, waitFor } from '../support/gateway';
import { tempDir, writeProfile } from '../support/temp';

const PROFILE = `
name: agents-test
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
  rules:
    - { match: "everything.get-sum", agents: [reviewer], decision: deny, reason: reviewers only read }
    - { match: "everything.echo", decision: approve }
`;

let bundle: TestBundle;
let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let file: string;
let dataDir: string;
const env = () => ({ ...process.env, GATEHOUSE_SECRET_STORE: 'file', GATEHOUSE_TOKEN: undefined, GATEHOUSE_DATA_DIR: dataDir });
const clients: Array<{ close(): Promise<void> }> = [];

function cli(...args: string[]) {
  return spawnSync(process.execPath, [bundle.entry('cli'), ...args], { encoding: 'utf8', timeout: 60_000, env: env() });
}

async function connect(token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '2.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** A stateless new-era agent: the SDK v2 client in auto mode, which finds the gateway speaks 2026-07-28. */
async function connectNewEra(token: string, name: string): Promise<ClientV2> {
  const client = new ClientV2({ name, version: '2.4.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } } as never);
  await client.connect(new StreamableHTTPClientTransportV2(new URL(launch.endpoint!.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect((client as unknown as { getNegotiatedProtocolVersion(): string }).getNegotiatedProtocolVersion()).toBe('2026-07-28');
  clients.push(client);
  return client;
}

/** `gatehouse audit calls --json` of this launch: the rows of one tool. */
async function auditCalls(tool: string, count: number) {
  host.audit!.flush();
  await waitFor(() => host.audit!.queryCalls({ session: launch.id }).filter((c) => c.tool === tool && c.outcome !== 'pending').length >= count, `${count} ${tool} calls in the audit`);
  const r = cli('audit', 'calls', '--json', '--session', launch.id, '--data-dir', dataDir);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ tool?: string; agentName?: string; agentVersion?: string; agentEra?: string; outcome: string }>).filter((c) => c.tool === tool);
}

/** The token `gatehouse connect --agent NAME` prints for the person (stderr), read back here. */
function mintedToken(name: string): string {
  const r = cli('connect', '--profile', file, '--client', 'claude-code', '--url', launch.endpoint!.url, '--agent', name, '--data-dir', dataDir);
  expect(r.status, r.stderr).toBe(0);
  const env = `GATEHOUSE_TOKEN_${name.toUpperCase()}`;
  // The configuration names the variable, never the token itself.
  expect(r.stdout).toContain(env);
  const m = new RegExp(`export ${env}=(\\S+)`).exec(r.stderr);
  expect(m, r.stderr).toBeTruthy();
  expect(r.stdout).not.toContain(m![1]);
  return m![1]!;
}

beforeAll(async () => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'agents-test');
  tmp = tempDir('gh-agents-');
  dataDir = path.join(tmp.dir, 'data');
  file = writeProfile(tmp.dir, PROFILE);
  host = new Host({ dataDir, env: env() });
  launch = await host.launch(file, { httpPort: 0, token: 'agents-main-token-1234567890' });
  for (const s of launch.statuses()) expect(s.state, `${s.id}: ${s.reason}`).toBe('ready');
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await host?.shutdown();
  tmp?.cleanup();
  bundle?.cleanup();
});

describe('two agents on one gateway', () => {
  it('are told apart by their tokens: audit calls --json names each, and an agents: rule matches one only', async () => {
    const reviewerToken = mintedToken('reviewer');
    const builderToken = mintedToken('builder');
    expect(reviewerToken).not.toBe(builderToken);
    // Minting again gives the same token (kept, like the gateway token).
    expect(mintedToken('reviewer')).toBe(reviewerToken);

    const reviewer = await connect(reviewerToken, 'claude-code');
    const builder = await connect(builderToken, 'codex');
    const denied = await reviewer.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toBe('DENY: reviewers only read');
    const allowed = await builder.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(allowed.isError, textOf(allowed)).toBeFalsy();
    expect(textOf(allowed)).toContain('3');
    // An agent naming itself "reviewer" in clientInfo, on the main token, is not the reviewer's token...
    const impostor = await connect(launch.token!, 'codex');
    expect((await impostor.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })).isError).toBeFalsy();
    // ...and a wrong token is refused outright.
    await expect(connect('not-a-minted-token', 'x')).rejects.toThrow(/401|Unauthorized/);

    host.audit!.flush();
    await waitFor(() => host.audit!.queryCalls({ session: launch.id }).filter((c) => c.tool === 'everything.get-sum' && c.outcome !== 'pending').length >= 3, 'the calls in the audit');
    const r = cli('audit', 'calls', '--json', '--session', launch.id, '--data-dir', dataDir);
    expect(r.status, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ tool?: string; agentName?: string; agentVersion?: string; outcome: string }>;
    const sums = rows.filter((c) => c.tool === 'everything.get-sum').map((c) => [c.agentName, c.agentVersion, c.outcome]);
    expect(sums).toEqual(expect.arrayContaining([
      ['reviewer', '2.1.0', 'denied'],
      ['builder', '2.1.0', 'ok'],
      ['codex', '2.1.0', 'ok'],
    ]));
    // No minted token in anything the audit printed.
    expect(r.stdout).not.toContain(reviewerToken);
    expect(r.stdout).not.toContain(builderToken);
  }, 180_000);
});

describe('stateless new-era agents (no initialize: clientInfo rides in each request)', () => {
  it('are named by their clientInfo in the approval card and the audit, and by their minted token over it', async () => {
    const approver = autoApprover(host, () => 'allow_once');
    try {
      const scout = await connectNewEra(launch.token!, 'v2-scout');
      const echoed = await scout.callTool({ name: 'echo', arguments: { message: 'stateless hello' } });
      expect(textOf(echoed)).toContain('stateless hello');
      // The person is asked about v2-scout's call, by its name.
      expect(approver.seen.map((r) => [r.tool, r.agentName])).toEqual([['everything.echo', 'v2-scout']]);
    } finally {
      approver.detach();
    }
    const echoes = await auditCalls('everything.echo', 1);
    expect(echoes.map((c) => [c.agentName, c.agentVersion, c.agentEra, c.outcome])).toEqual([['v2-scout', '2.4.0', '2026-07-28', 'ok']]);

    // The reviewer's token, with a clientInfo that says "builder": the token names it, so the
    // agents: rule still denies (a request's _meta cannot name it into another agent's rules).
    const disguised = await connectNewEra(mintedToken('reviewer'), 'builder');
    const denied = await disguised.callTool({ name: 'get-sum', arguments: { a: 2, b: 2 } });
    expect(textOf(denied)).toBe('DENY: reviewers only read');
    const sums = await auditCalls('everything.get-sum', 4);
    expect(sums.filter((c) => c.agentEra === '2026-07-28').map((c) => [c.agentName, c.agentVersion, c.outcome])).toEqual([['reviewer', '2.4.0', 'denied']]);
    // Traffic says the same as the exchange: the agent's request record is the reviewer's.
    const record = host.tap.snapshot().find((e) => e.kind === 'request' && e.direction === 'agent_to_gateway' && e.method === 'tools/call' && JSON.stringify(e.message).includes('"a":2,"b":2'));
    expect(record?.agentName).toBe('reviewer');
  }, 180_000);
});
