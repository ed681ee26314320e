// Agents with names (docs/gateway.md, "Agents with names"), on the real host in front of
// server-everything: `gatehouse connect --agent NAME` (the bundled CLI, in a child process)
// mints a per-agent token into the real secret store (the encrypted file); two SDK clients
// with different clientInfo names and tokens call one gateway; `gatehouse audit calls --json`
// names each call's agent, and a policy rule with `agents:` matches one and not the other.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Host, type Launch } from '../../main/host';
import { buildTestBundle, type TestBundle } from '../support/build';
import { textOf, waitFor } from '../support/gateway';
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
`;

let bundle: TestBundle;
let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let file: string;
let dataDir: string;
const env = () => ({ ...process.env, GATEHOUSE_SECRET_STORE: 'file', GATEHOUSE_TOKEN: undefined, GATEHOUSE_DATA_DIR: dataDir });
const clients: Client[] = [];

function cli(...args: string[]) {
  return spawnSync(process.execPath, [bundle.entry('cli'), ...args], { encoding: 'utf8', timeout: 60_000, env: env() });
}

async function connect(token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '2.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
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
