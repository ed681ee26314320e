// The grants control socket (grants-control.ts, grants-wire.ts) against a real broker and a real
// Unix socket: list and revoke work for a plain process of this user; nothing else is a verb; a
// process running with no_new_privs (what every Gatehouse sandbox sets: here `setpriv
// --no-new-privs`, a real kernel flag) is refused; unverifiable peers are refused on Linux.
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApprovalBroker } from './broker';
import { startGrantsControl, sandboxedPeer, type GrantsControl } from './grants-control';
import { askGrants, grantsSocketPath } from './grants-wire';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const linux = process.platform === 'linux';
const SETPRIV = '/usr/bin/setpriv';

/** A broker holding two session grants, made the way a person makes them (an answer to a request). */
async function brokerWithGrants(): Promise<ApprovalBroker> {
  const broker = new ApprovalBroker();
  cleanups.push(broker.attachApprover({ name: 'test' }));
  for (const [tool, choice] of [['fs.write', 'allow_tool_session'], ['net.http_request', 'allow_session']] as const) {
    const waiting = broker.request({ tool, server: 'x', args: { url: 'https://example.test', path: 'a' }, reason: 'asks', session: 'L1', agentSession: 'A1', agentName: 'scout' }, { timeoutMs: 60_000 });
    broker.answer(broker.pending().at(-1)!.id, { choice, by: 'tester' });
    expect((await waiting).approved).toBe(true);
  }
  return broker;
}

async function start(broker: ApprovalBroker, opts: Parameters<typeof startGrantsControl>[1] = {}): Promise<{ control: GrantsControl; socketPath: string }> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'gh-grants-'));
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');
  const control = await startGrantsControl({ broker, dataDir }, opts);
  cleanups.push(() => control.close());
  return { control, socketPath: grantsSocketPath(dataDir) };
}

const run = (file: string, args: string[]) => promisify(execFile)(file, args, { encoding: 'utf8', timeout: 30_000 });

/** Sends raw lines and collects what comes back until the host closes or 5 s pass. */
function raw(socketPath: string, text: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const s = net.connect(socketPath, () => s.write(text));
    s.setTimeout(5000, () => s.destroy());
    s.on('data', (d) => (got += String(d)));
    s.on('close', () => resolve(got));
    s.on('error', () => {});
  });
}

describe('the grants control socket', () => {
  it('lists the broker\'s grants with the agent they were made for, and revokes one (its calls ask again) or all', async () => {
    const broker = await brokerWithGrants();
    const { control, socketPath } = await start(broker);
    expect(control.path).toBe(socketPath);
    if (process.platform !== 'win32') expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    const listed = await askGrants(socketPath, { verb: 'list' });
    expect(listed).toMatchObject({ reply: { ok: true, grants: [{ tool: 'fs.write', grant: 'tool', agentName: 'scout', by: 'tester' }, { tool: 'net.http_request', grant: 'action', agentName: 'scout' }] } });
    const id = (listed as { reply: { grants: Array<{ id: string }> } }).reply.grants[0]!.id;
    expect(broker.grantFor({ tool: 'fs.write', server: 'x', args: {}, reason: '', session: 'L1', agentSession: 'A1' })?.how).toBe('grant');

    expect(await askGrants(socketPath, { verb: 'revoke', id })).toMatchObject({ reply: { ok: true, revoked: [{ id, tool: 'fs.write' }] } });
    expect(broker.grantFor({ tool: 'fs.write', server: 'x', args: {}, reason: '', session: 'L1', agentSession: 'A1' })).toBeUndefined();
    expect(await askGrants(socketPath, { verb: 'revoke', id })).toMatchObject({ reply: { ok: true, revoked: [] } });
    expect(await askGrants(socketPath, { verb: 'revoke', all: true })).toMatchObject({ reply: { ok: true, revoked: [{ tool: 'net.http_request' }] } });
    expect(broker.listGrants()).toEqual([]);
  });

  it('has no verb that grants or answers: an "answer", a "grant" or extra fields are refused and close the connection', async () => {
    const broker = new ApprovalBroker();
    cleanups.push(broker.attachApprover({ name: 'test' }));
    const ac = new AbortController();
    const waiting = broker.request({ tool: 'fs.write', server: 'x', args: {}, reason: 'asks', session: 'L1', agentSession: 'A1' }, { timeoutMs: 60_000, signal: ac.signal });
    const pendingId = broker.pending()[0]!.id;
    const { socketPath } = await start(broker);
    for (const line of [
      { verb: 'answer', id: pendingId, choice: 'allow_tool_session' },
      { verb: 'grant', tool: 'fs.write' },
      { verb: 'list', then: 'approve' },
      { type: 'answer', id: pendingId, choice: 'allow_once' },
    ]) {
      const got = await raw(socketPath, `${JSON.stringify(line)}\n${JSON.stringify({ verb: 'list' })}\n`);
      // One refusal, then the host hangs up: the list after it is never answered.
      expect(got.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([{ ok: false, error: expect.stringMatching(/^expected/) }]);
    }
    expect(broker.pending().map((p) => p.id)).toEqual([pendingId]);
    expect(broker.listGrants()).toEqual([]);
    ac.abort();
    expect((await waiting).approved).toBe(false);
  });

  it.skipIf(!linux || !existsSync(SETPRIV))('refuses a process that runs with no_new_privs, as every Gatehouse sandbox does (real kernel flag)', async () => {
    const broker = await brokerWithGrants();
    const logged: string[] = [];
    const { socketPath } = await start(broker, { log: (l) => logged.push(l) });
    const client = `const net = require('node:net'); const s = net.connect(${JSON.stringify(socketPath)}, () => s.write('{"verb":"revoke","all":true}\\n')); let got = ''; s.on('data', (d) => { got += d; if (got.includes('\\n')) s.end(); }); s.on('close', () => process.stdout.write(got)); s.on('error', (e) => process.stdout.write('error ' + e.code));`;
    // The same script without the flag reaches it: what the refusal takes away.
    // Asynchronously: the host answering is this process.
    const plain = await run(process.execPath, ['-e', client.replace('"all":true', '"id":"nope"')]);
    expect(JSON.parse(plain.stdout)).toEqual({ ok: true, revoked: [] });
    const boxed = await run(SETPRIV, ['--no-new-privs', process.execPath, '-e', client]);
    expect(JSON.parse(boxed.stdout)).toEqual({ ok: false, error: expect.stringMatching(/^refused: a sandboxed process cannot use this socket \(pid \d+ runs with no_new_privs/) });
    expect(broker.listGrants()).toHaveLength(2);
    expect(logged.some((l) => /grants control refused: a sandboxed process/.test(l))).toBe(true);
  });

  it.skipIf(!linux)('on Linux refuses a peer whose credentials cannot be had (it could be sandboxed)', async () => {
    const broker = await brokerWithGrants();
    const { socketPath } = await start(broker, { peerCredentials: () => ({ verified: false, reason: 'addon missing (test)' }) });
    expect(await askGrants(socketPath, { verb: 'revoke', all: true })).toEqual({ reply: { ok: false, error: 'refused: cannot tell who is connecting (addon missing (test))' } });
    expect(broker.listGrants()).toHaveLength(2);
  });

  it.skipIf(!linux)('reads no_new_privs from /proc: this test process has none; a pid that does not exist cannot be read (refused)', () => {
    expect(sandboxedPeer(process.pid)).toBeUndefined();
    expect(sandboxedPeer(2 ** 22 + 12345)).toMatch(/^cannot read \/proc\//);
  });

  it('says there is no host when nothing listens, and a second host of the data dir stays off', async () => {
    const broker = await brokerWithGrants();
    const { socketPath } = await start(broker);
    expect(await askGrants(path.join(path.dirname(socketPath), 'nothing.sock'), { verb: 'list' })).toMatchObject({ noHost: expect.stringMatching(/^no /) });
    const logged: string[] = [];
    const second = await startGrantsControl({ broker, dataDir: path.dirname(socketPath) }, { log: (l) => logged.push(l) });
    expect(second.path).toBeUndefined();
    expect(logged.join('\n')).toMatch(/already answers gatehouse grants/);
    // The first still answers.
    expect(await askGrants(socketPath, { verb: 'list' })).toMatchObject({ reply: { ok: true } });
  });
});
