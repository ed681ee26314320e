// A configured secret never leaves the gateway in clear (docs/security.md, "Secrets"). A hostile
// server (tests/fixtures/servers/leaky-server.mjs, a real process) echoes the `${secret:…}` value
// it was given into a result's text, `structuredContent`, `_meta`, a JSON-RPC error, a log
// notification, a sampling request and an ANSI-split stderr line. Counted: the clear copies in
// what an SDK client receives through the real gateway (old era, and a 2026-07-28 POST), in the
// bytes of the SQLite files, in `gatehouse audit calls` and in the host API's events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import { createHostApiDispatcher, type HostApiDispatcher } from '../../main/api/dispatcher';
import { DB_FILE_NAME } from '../../main/audit/store';
import { withoutHiddenSplits } from '../../main/secrets/secret-forms';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, serverFixture } from '../support/supervisor';
import { connectHttp, textOf, waitFor } from '../support/gateway';
import { pinProfile } from '../support/trust';

const SECRET = 'sk-leak-7Q2mZp4xV9rT1bN8cK3w';
const MARK = '«secret:LEAK_KEY»';
const V = '2026-07-28';

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let api: HostApiDispatcher;
let client: Client;
let bundle: TestBundle;
let profileFile: string;
const events: unknown[] = [];
const agentStream: string[] = [];

/** Every string inside a JSON value, with ANSI escapes and invisible characters taken out (what a screen shows). */
function shownStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(withoutHiddenSplits(value));
  else if (Array.isArray(value)) for (const v of value) shownStrings(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      shownStrings(v, out);
    }
  }
  return out;
}

const clearCopies = (texts: string[]) => texts.filter((t) => t.includes(SECRET)).length;

beforeAll(async () => {
  tmp = tempDir('gatehouse-secret-redaction-');
  const file = (profileFile = writeProfile(
    tmp.dir,
    profileYaml('secret-redaction', { leaky: { command: process.execPath, args: [serverFixture('leaky-server.mjs')], env: { LEAK_TOKEN: '${secret:LEAK_KEY}' } } }, { policy: { default: 'allow', sampling: 'allow' } }),
  ));
  host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_SECRET_LEAK_KEY: SECRET } });
  api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
  api.subscribe((event, payload) => events.push({ event, payload }));
  launch = await host.launch(file, { httpPort: 0, token: 'secret-redaction-token-1234567890' });
  client = await connectHttp(launch, { capabilities: { sampling: {} } });
  // The agent answers a sampling request with what it was asked: a clear secret would come back.
  client.setRequestHandler(CreateMessageRequestSchema, (req) => ({ role: 'assistant', model: 'echo', content: { type: 'text', text: JSON.stringify(req.params.messages) } }));
  const transport = client.transport!;
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    agentStream.push(JSON.stringify(message));
    deliver.call(transport, message, extra);
  };
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'secret-redaction-cli');
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  api?.close();
  await host?.shutdown();
  bundle?.cleanup();
  tmp?.cleanup();
});

describe('a server that echoes its configured secret everywhere', () => {
  it('old era over HTTP: result text, structuredContent, _meta, error, log notification and sampling reach the agent redacted', async () => {
    const result = await client.callTool({ name: 'leak', arguments: {} });
    expect(textOf(result)).toBe(`the key is ${MARK}; as JSON: {"key":"${MARK}"}`);
    expect(result.structuredContent).toEqual({ key: MARK, nested: [{ deeper: `x${MARK}y` }] });
    expect(result._meta?.['leaky/key']).toBe(MARK);
    await expect(client.callTool({ name: 'leak_error', arguments: {} })).rejects.toThrow(`upstream refused key ${MARK}`);
    const sampled = await client.callTool({ name: 'leak_sampling', arguments: {} });
    expect(textOf(sampled)).toContain(`repeat this key: ${MARK}`);
    await waitFor(() => agentStream.some((m) => m.includes('notifications/message') && m.includes(`token ${MARK}`)), 'the log notification');
    expect(agentStream.length).toBeGreaterThan(4);
    expect(clearCopies(agentStream)).toBe(0);
  });

  it('new era (2026-07-28 POST): the result and the error are redacted too', async () => {
    const post = async (name: string) => {
      const res = await fetch(launch.endpoint!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${launch.token!}`, 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': name },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'new-era-agent', version: '1' } } },
        }),
      });
      return res.text();
    };
    const ok = await post('leak');
    const failed = await post('leak_error');
    expect(ok).toContain(MARK);
    expect(failed).toContain(`upstream refused key ${MARK}`);
    expect(clearCopies([ok, failed])).toBe(0);
  });

  it('stdio (`gatehouse gateway`, an SDK client on its stdin/stdout): result, error and log notification are redacted', async () => {
    const dataDir = path.join(tmp.dir, 'stdio-data');
    const env = { ...process.env, GATEHOUSE_SECRET_LEAK_KEY: SECRET } as Record<string, string>;
    pinProfile(dataDir, profileFile, env);
    const transport = new StdioClientTransport({ command: process.execPath, args: [bundle.entry('cli'), 'gateway', '--profile', profileFile, '--data-dir', dataDir, '--quiet'], env, stderr: 'pipe' });
    const stdio = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await stdio.connect(transport);
    const seen: string[] = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (message: JSONRPCMessage) => {
      seen.push(JSON.stringify(message));
      deliver.call(transport, message);
    };
    try {
      const result = await waitFor(async () => {
        const r = await stdio.callTool({ name: 'leak', arguments: {} });
        return r.isError ? undefined : r;
      }, 'the leaky server up behind the stdio gateway');
      expect(result.structuredContent).toEqual({ key: MARK, nested: [{ deeper: `x${MARK}y` }] });
      await expect(stdio.callTool({ name: 'leak_error', arguments: {} })).rejects.toThrow(`upstream refused key ${MARK}`);
      await waitFor(() => seen.some((m) => m.includes('notifications/message') && m.includes(`token ${MARK}`)), 'the log notification over stdio');
      expect(clearCopies(seen)).toBe(0);
    } finally {
      await stdio.close().catch(() => {});
    }
  }, 60_000);

  it('the ANSI-split stderr line is redacted in Logs', async () => {
    const line = await waitFor(() => host.stderrBus.snapshot().find((l) => l.session === launch.id && l.line.includes('leaky: token=')), 'the stderr line');
    expect(line.line).toBe(`leaky: token=${MARK}`);
    const tail = (await api.handle('logs:tail', { launchId: launch.id, serverId: 'leaky' })) as Array<{ line: string }>;
    expect(clearCopies(tail.map((l) => withoutHiddenSplits(l.line)))).toBe(0);
  });

  it('0 clear copies in the SQLite files, in `gatehouse audit calls` and in the host API events', async () => {
    const rows = await waitFor(() => {
      host.audit!.flush();
      const calls = host.audit!.queryCalls({ session: launch.id, limit: 100 });
      return calls.filter((c) => c.outcome !== 'pending').length >= 5 ? calls : undefined;
    }, 'the five calls on record');
    const failed = rows.find((c) => c.tool === 'leaky.leak_error')!;
    expect(failed.error).toBe(`upstream refused key ${MARK}`);
    host.audit!.flush();
    const dataDir = path.join(tmp.dir, 'data');
    const dbFiles = [DB_FILE_NAME, `${DB_FILE_NAME}-wal`, `${DB_FILE_NAME}-journal`].map((f) => path.join(dataDir, f)).filter((f) => existsSync(f));
    expect(dbFiles.length).toBeGreaterThan(0);
    const half = Math.floor(SECRET.length / 2);
    for (const f of dbFiles) {
      const bytes = readFileSync(f);
      expect(bytes.includes(Buffer.from(SECRET)), `${f} holds the secret in clear`).toBe(false);
      // The split form is the secret too (stored raw, or JSON-escaped).
      expect(bytes.includes(Buffer.from(`${SECRET.slice(0, half)}\u001b[1m`)), `${f} holds the ANSI-split secret`).toBe(false);
      expect(bytes.includes(Buffer.from(`${SECRET.slice(0, half)}\\u001b[1m`)), `${f} holds the ANSI-split secret, escaped`).toBe(false);
    }
    // The trust store's pin file (definitions are pinned with the server's instructions) too.
    const pins = path.join(dataDir, 'trust', 'secret-redaction.json');
    expect(readFileSync(pins, 'utf8')).toContain(`Call leak; the key is ${MARK}.`);
    expect(readFileSync(pins, 'utf8')).not.toContain(SECRET);
    // The grep can see: the redacted error is there in plain bytes (in the database or its WAL).
    expect(dbFiles.some((f) => readFileSync(f).includes(Buffer.from(`upstream refused key ${MARK}`)))).toBe(true);

    const cli = (args: string[]) => spawnSync(process.execPath, [bundle.entry('cli'), 'audit', 'calls', '--session', launch.id, '--data-dir', dataDir, ...args], { encoding: 'utf8' });
    const plain = cli([]);
    const json = cli(['--json']);
    expect(plain.status).toBe(0);
    expect(json.stdout).toContain(MARK);
    expect(clearCopies([plain.stdout, plain.stderr, json.stdout, json.stderr])).toBe(0);

    await waitFor(() => events.some((e) => JSON.stringify(e).includes('exchange:batch') && JSON.stringify(e).includes('upstream refused key')), 'the error pushed to the window');
    await waitFor(() => events.some((e) => JSON.stringify(e).includes('leaky: token=')), 'the stderr line pushed to the window');
    const snapshot = await api.handle('host:snapshot', {});
    expect(JSON.stringify(snapshot)).toContain(`Call leak; the key is ${MARK}.`);
    events.push(snapshot);
    expect(clearCopies(shownStrings(events))).toBe(0);
  });
});
