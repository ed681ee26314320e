// An attacker on the approvals relay socket, against the REAL window process (`gatehouse serve`,
// a UI attached over its cookie-authenticated WebSocket as a browser would be): 8 connections,
// each claiming to be "gateway pid 4242" in hello and sending 64 requests of 256 KB. What a
// person sees must be the kernel's pid on the few cards that fit the limits and ONE notice line
// for the rest; the window's memory must stay bounded (VmHWM of the serve process, printed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import WebSocket from 'ws';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir } from '../support/temp';
import { waitFor } from '../support/gateway';
import { RELAY_LIMITS } from '../../main/approvals/relay-wire';

const CONNECTIONS = 8;
const PER_CONNECTION = 64;
const ARG_BYTES = 256 * 1024;
const RSS_GROWTH_BOUND_MB = 200;

let bundle: TestBundle;
let tmp: ReturnType<typeof tempDir>;
let serve: ChildProcess;
let serveStderr = '';
let dataDir: string;

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]);
}

function login(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.headers['set-cookie']![0]!.split(';')[0]!);
      })
      .on('error', reject);
  });
}

/** One attacker connection: hello with a forged pid, then `PER_CONNECTION` big requests. */
function flood(socketPath: string, n: number) {
  const outcomes: Array<{ id: string; outcome: { approved: boolean; reason: string } }> = [];
  const socket = net.connect(socketPath);
  let buf = '';
  socket.setEncoding('utf8');
  socket.on('data', (s: string) => {
    buf += s;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, nl)) as { type: string; id: string; outcome: { approved: boolean; reason: string } };
      buf = buf.slice(nl + 1);
      if (msg.type === 'outcome') outcomes.push(msg);
    }
  });
  socket.on('error', () => {});
  socket.write(`${JSON.stringify({ type: 'hello', pid: 4242, profile: 'forged', version: '1' })}\n`);
  const blob = 'A'.repeat(ARG_BYTES);
  for (let i = 0; i < PER_CONNECTION; i++) {
    const request = { tool: 'fs.write', server: 'workspace', args: { file_path: `/etc/evil-${n}-${i}`, content: blob }, reason: 'trust me', kind: 'tool', session: 'forged' };
    socket.write(`${JSON.stringify({ type: 'request', id: `c${n}-${i}`, request, timeoutMs: 600_000 })}\n`);
  }
  return { socket, outcomes };
}

beforeAll(async () => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'flood');
  tmp = tempDir('gh-flood-');
  dataDir = path.join(tmp.dir, 'data');
  serve = spawn(process.execPath, [bundle.entry('cli'), 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, GATEHOUSE_PROFILES_DIR: path.join(tmp.dir, 'profiles'), XDG_STATE_HOME: path.join(tmp.dir, 'state'), GATEHOUSE_TOKEN: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  serve.stderr!.setEncoding('utf8');
  serve.stderr!.on('data', (s: string) => (serveStderr += s));
  await waitFor(() => serveStderr.includes('approvals from gatehouse gateway processes come here') && existsSync(path.join(dataDir, 'web-login-url')), 'serve is up');
});

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((r) => serve.once('exit', r));
    serve.kill('SIGTERM');
    await exited;
  }
  bundle?.cleanup();
  tmp?.cleanup();
});

describe.runIf(process.platform === 'linux')('approvals relay under a flood, against the real window', () => {
  it('a forged pid is ignored, the flood beyond the limits is refused as one notice line, the window RSS stays bounded', async () => {
    const loginUrl = readFileSync(path.join(dataDir, 'web-login-url'), 'utf8').trim();
    const origin = new URL(loginUrl).origin;
    const cookie = await login(loginUrl);
    // The window's UI: its WebSocket attaches the UI approver and receives every inbox event.
    const cards: Array<{ session: string; tool: string }> = [];
    const notices: Array<{ key: string; text: string; count: number }> = [];
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/api`, { headers: { Cookie: cookie, Origin: origin } });
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { type: string; event?: string; payload?: { request?: { session: string; tool: string }; notice?: { key: string; text: string; count: number } } };
      if (msg.event === 'approval:requested') cards.push(msg.payload!.request!);
      if (msg.event === 'approval:notice') notices.push(msg.payload!.notice!);
    });
    await new Promise((r) => ws.once('open', r));
    await new Promise((r) => setTimeout(r, 200)); // the UI approver is attached once subscribed

    const rssBefore = statusKb(serve.pid!, 'VmRSS');
    const attackers = Array.from({ length: CONNECTIONS }, (_, n) => flood(path.join(dataDir, 'approvals.sock'), n));
    const total = CONNECTIONS * PER_CONNECTION;
    await waitFor(() => attackers.reduce((s, a) => s + a.outcomes.length, 0) + cards.length >= total, 'every request refused or shown', 120_000);
    await new Promise((r) => setTimeout(r, 300)); // let late events arrive before counting
    const peak = statusKb(serve.pid!, 'VmHWM');
    const refused = attackers.reduce((s, a) => s + a.outcomes.length, 0);
    const growthMb = (peak - rssBefore) / 1024;
    process.stderr.write(
      `relay flood: ${CONNECTIONS}x${PER_CONNECTION} requests of ${ARG_BYTES / 1024} KB -> ${cards.length} cards, ${refused} refused, ` +
        `${new Set(notices.map((n) => n.key)).size} notice line(s); serve RSS ${(rssBefore / 1024).toFixed(1)} MB before, peak ${(peak / 1024).toFixed(1)} MB (growth ${growthMb.toFixed(1)} MB, bound ${RSS_GROWTH_BOUND_MB} MB)\n`,
    );

    expect(cards.length).toBeGreaterThan(0);
    expect(cards.length).toBeLessThanOrEqual(Math.floor(RELAY_LIMITS.totalBytes / ARG_BYTES));
    expect(refused).toBe(total - cards.length);
    for (const a of attackers) for (const o of a.outcomes) expect(o.outcome).toMatchObject({ approved: false, reason: expect.stringMatching(/^relay queue full: .*limit /) });
    // The kernel's pid (this test process), never the declared 4242.
    for (const c of cards) expect(c.session).toMatch(new RegExp(`^gateway:${process.pid}(#\\d+)?$`));
    expect(JSON.stringify(cards)).not.toContain('4242');
    // One line, whose count is every refused request.
    expect(new Set(notices.map((n) => n.key)).size).toBe(1);
    expect(notices.at(-1)).toMatchObject({ count: refused, text: expect.stringMatching(new RegExp(`^refused ${refused} requests from gateway pid ${process.pid}: limit `)) });
    expect(growthMb).toBeLessThan(RSS_GROWTH_BOUND_MB);

    for (const a of attackers) a.socket.destroy();
    ws.close();
  });
});
