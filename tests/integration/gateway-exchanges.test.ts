// Every call is an exchange, whatever became of it: allowed, denied by the policy, by a person,
// by the timeout or for want of an approver, an unknown tool, a Tool console call. Each is one
// row in the audit store's `exchanges` table with its decision and who decided, each of its
// traffic legs carries its exchange id, and `gatehouse audit calls` lists them. Real server
// (server-everything), real SQLite file, SDK client over Streamable HTTP, the bundled CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Host, type Launch } from '../../main/host';
import type { CallRow } from '../../main/audit/types';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, serverFixture } from '../support/supervisor';
import { autoApprover, connectHttp, waitFor } from '../support/gateway';

const PROFILE = `
name: exchanges-test
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: approve
  approval_timeout_s: 1
  rules:
    - { match: "everything.get-env", decision: deny, reason: the environment is private }
    - { match: "everything.echo", decision: allow }
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let client: Client;
let bundle: TestBundle;

function calls(): CallRow[] {
  host.audit!.flush();
  return host.audit!.queryCalls({ session: launch.id, limit: 1000 });
}

async function callRow(pred: (c: CallRow) => boolean, what: string): Promise<CallRow> {
  return waitFor(() => calls().find((c) => pred(c) && c.outcome !== 'pending'), what);
}

beforeAll(async () => {
  tmp = tempDir();
  const file = writeProfile(tmp.dir, PROFILE);
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  launch = await host.launch(file, { httpPort: 0, token: 'exchanges-token-1234567890' });
  client = await connectHttp(launch);
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'exchanges-cli-test');
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await host?.shutdown();
  bundle?.cleanup();
  tmp?.cleanup();
});

describe('every call is one exchange', () => {
  it('allowed: one row (decided by a rule, ok), and every leg of the call carries its id', async () => {
    await client.callTool({ name: 'echo', arguments: { message: 'exchange-allowed' } });
    const row = await callRow((c) => c.tool === 'everything.echo', 'the echo call');
    expect(row).toMatchObject({ kind: 'call', method: 'tools/call', decision: 'ALLOW', decidedBy: 'rule', outcome: 'ok', server: 'everything' });
    expect(row.latencyMs).toBeGreaterThanOrEqual(0);
    expect(row.requestBytes).toBeGreaterThan(0);
    expect(row.responseBytes).toBeGreaterThan(0);
    const legs = host.tap.snapshot().filter((e) => e.exchange === row.id);
    expect(legs.map((e) => `${e.direction}:${e.kind}`).sort()).toEqual(
      ['agent_to_gateway:request', 'gateway_to_agent:response', 'gateway_to_server:request', 'server_to_gateway:response'].sort(),
    );
    // Upstream the call went with the id the gateway gave it, not the agent's.
    const up = legs.find((e) => e.direction === 'gateway_to_server')!;
    const down = legs.find((e) => e.direction === 'agent_to_gateway')!;
    expect(String(up.id)).toBe(row.upstreamId);
    expect(up.id).not.toBe(down.id);
  });

  it('denied by policy: on record though it never reached the server', async () => {
    await client.callTool({ name: 'get-env', arguments: {} });
    const row = await callRow((c) => c.tool === 'everything.get-env', 'the denied call');
    expect(row).toMatchObject({ decision: 'DENY', decidedBy: 'rule', outcome: 'denied' });
    expect(row.sentAt).toBeUndefined();
    const legs = host.tap.snapshot().filter((e) => e.exchange === row.id);
    expect(legs.map((e) => e.direction).sort()).toEqual(['agent_to_gateway', 'gateway_to_agent']);
    expect(legs.find((e) => e.direction === 'gateway_to_agent')!.decision).toBe('DENY');
  });

  it('no approver attached: denied, decided by "no_approver"', async () => {
    await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    const row = await callRow((c) => c.tool === 'everything.get-sum' && c.decidedBy === 'no_approver', 'the unapproved call');
    expect(row).toMatchObject({ decision: 'APPROVAL', outcome: 'denied' });
  });

  it('denied by a person, and by the timeout', async () => {
    const approver = autoApprover(host, (req) => ((req.args as { a?: number }).a === 10 ? 'deny' : undefined), 'alice');
    try {
      await client.callTool({ name: 'get-sum', arguments: { a: 10, b: 1 } });
      const byPerson = await callRow((c) => c.tool === 'everything.get-sum' && c.decidedBy === 'person', 'the call a person denied');
      expect(byPerson).toMatchObject({ decision: 'APPROVAL', outcome: 'denied', answeredBy: 'alice' });
      await client.callTool({ name: 'get-sum', arguments: { a: 20, b: 1 } });
      const byTimeout = await callRow((c) => c.tool === 'everything.get-sum' && c.decidedBy === 'timeout', 'the call nobody answered');
      expect(byTimeout).toMatchObject({ decision: 'APPROVAL', outcome: 'denied' });
    } finally {
      approver.detach();
    }
  });

  it('an unknown tool is an exchange too (outcome error), answered with one bare error message', async () => {
    const err = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: Error) => e);
    // The client SDK adds its own "MCP error -32602: " once; the gateway adds none.
    expect((err as Error).message).toBe('MCP error -32602: Unknown tool: no_such_tool');
    const row = await callRow((c) => c.advertised === 'no_such_tool', 'the unknown tool call');
    expect(row).toMatchObject({ outcome: 'error', error: 'Unknown tool: no_such_tool' });
  });

  it('a Tool console call is an exchange with the id the console knows', async () => {
    await launch.gateway.callTool('get-env', {}, { agentSession: 'ui-test', requestId: 'console-1' });
    const row = await callRow((c) => c.id === 'ui-test#console-1', 'the console call');
    expect(row).toMatchObject({ agentSession: 'ui-test', decision: 'DENY', decidedBy: 'rule', outcome: 'denied' });
  });

  it('`gatehouse audit calls --outcome denied` lists the denials with who decided', async () => {
    host.audit!.flush();
    const r = spawnSync(process.execPath, [bundle.entry('cli'), 'audit', 'calls', '--outcome', 'denied', '--session', launch.id, '--data-dir', path.join(tmp.dir, 'data')], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+AGENT\s+TOOL\s+DECISION\s+DECIDED BY\s+OUTCOME/);
    const body = lines.slice(1).join('\n');
    expect(body).toMatch(/everything\.get-env\s+DENY\s+rule\s+denied/);
    expect(body).toMatch(/everything\.get-sum\s+APPROVAL\s+person\s+denied.*by alice/);
    expect(body).toMatch(/everything\.get-sum\s+APPROVAL\s+timeout\s+denied/);
    expect(body).toMatch(/everything\.get-sum\s+APPROVAL\s+no_approver\s+denied/);
    expect(body).not.toMatch(/everything\.echo/);
    const json = spawnSync(process.execPath, [bundle.entry('cli'), 'audit', 'calls', '--decided-by', 'person', '--json', '--data-dir', path.join(tmp.dir, 'data')], { encoding: 'utf8' });
    const rows = JSON.parse(json.stdout) as CallRow[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((c) => c.decidedBy === 'person')).toBe(true);
    const bad = spawnSync(process.execPath, [bundle.entry('cli'), 'audit', 'calls', '--outcome', 'nope', '--data-dir', path.join(tmp.dir, 'data')], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--outcome expects one of pending, ok, error/);
  });
});

describe('a server→client request the SDK client refuses before any handler runs', () => {
  it('ends as an exchange with the error it was answered with, not pending forever (found in review)', async () => {
    const t = tempDir();
    const h = new Host({ dataDir: path.join(t.dir, 'data') });
    try {
      const file = writeProfile(t.dir, profileYaml('bad-sampling', { raw: { command: process.execPath, args: [serverFixture('raw-server.mjs')] } }, { policy: { default: 'allow', sampling: 'allow' } }));
      const l = await h.launch(file, { httpPort: 0, token: 'bad-sampling-token-1234567890' });
      const c = await connectHttp(l);
      try {
        const res = (await c.callTool({ name: 'bad_sampling', arguments: {} })) as { content: Array<{ text: string }> };
        const refusal = JSON.parse(res.content[0]!.text) as { code: number; message: string };
        expect(refusal.message).toContain("messages");
        const question = await waitFor(() => {
          h.audit!.flush();
          return h.audit!.queryCalls({ session: l.id, limit: 100 }).find((row) => row.kind === 'server_request' && row.outcome !== 'pending');
        }, 'the refused sampling request ended');
        expect(question).toMatchObject({ method: 'sampling/createMessage', outcome: 'error' });
        expect(l.gateway.exchanges.openExchanges().filter((e) => e.kind === 'server_request')).toEqual([]);
      } finally {
        await c.close().catch(() => {});
      }
    } finally {
      await h.shutdown();
      t.cleanup();
    }
  });
});
