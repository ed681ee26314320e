// `gatehouse gateway` started by a terminal client (Claude Code, Gemini CLI), as such a client
// starts it: the client runs in a real pty (node-pty) in raw mode and spawns the gateway with
// stdio pipes, so the gateway shares the client's session and controlling terminal. Keys typed
// into that terminal belong to the client: the gateway must read none of them, draw nothing on
// the screen, and a pending approval must not be answered by them (only by the window).
// The control case (`--approver tty`, asked for explicitly) shows the same harness does see a
// gateway that uses the terminal.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Host } from '../../main/host';
import { startApprovalRelay, type ApprovalRelay } from '../../main/approvals/relay-server';
import type { PendingApproval } from '../../main/approvals/broker';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir, writeProfile } from '../support/temp';
import { waitFor } from '../support/gateway';

type NodePty = typeof import('node-pty');
const pty = createRequire(import.meta.url)('node-pty') as NodePty;
const CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'clients', 'terminal-client.mjs');

const PROFILE = `
name: terminal-client-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: approve
  approval_timeout_s: 300
`;

let bundle: TestBundle;
let tmp: ReturnType<typeof tempDir>;
let profileFile: string;
let dataDir: string;
const cleanups: Array<() => Promise<void> | void> = [];

/** The Gatehouse window: a Host with the relay and a UI approver that answers only when told. */
async function startWindow(): Promise<{ host: Host; relay: ApprovalRelay; seen: PendingApproval[] }> {
  const host = new Host({ dataDir });
  const detach = host.broker.attachApprover({ name: 'ui' });
  const seen: PendingApproval[] = [];
  host.broker.onEvent((e) => {
    if (e.type === 'requested') seen.push(e.request);
  });
  const relay = await startApprovalRelay(host);
  cleanups.push(async () => {
    detach();
    await relay.close();
    await host.shutdown();
  });
  return { host, relay, seen };
}

function runClient(approverArgs: string[]) {
  const gatewayArgv = [process.execPath, bundle.entry('cli'), 'gateway', '--profile', profileFile, '--data-dir', dataDir, ...approverArgs];
  const term = pty.spawn(process.execPath, [CLIENT, JSON.stringify(gatewayArgv)], { cwd: tmp.dir, cols: 120, rows: 40, env: process.env as Record<string, string> });
  let screen = '';
  term.onData((d) => (screen += d));
  let exited = false;
  term.onExit(() => (exited = true));
  cleanups.push(() => {
    if (!exited) term.kill('SIGKILL');
  });
  return { term, screen: () => screen };
}

/** Every file descriptor of `pid` that is a terminal (/dev/tty or a pty slave). */
function terminalFds(pid: number): string[] {
  const out: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target === '/dev/tty' || target.startsWith('/dev/pts/')) out.push(`${fd} -> ${target}`);
    } catch {}
  }
  return out;
}

async function typeKeys(term: { write(s: string): void }, keys: string): Promise<void> {
  for (const k of keys) {
    term.write(k);
    await new Promise((r) => setTimeout(r, 30));
  }
}

beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'gwterm');
  tmp = tempDir('gh-gwterm-');
  profileFile = writeProfile(tmp.dir, PROFILE);
  dataDir = path.join(tmp.dir, 'data');
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

afterAll(() => {
  bundle?.cleanup();
  tmp?.cleanup();
});

describe.runIf(process.platform === 'linux')('gatehouse gateway under a terminal client', () => {
  it('reads no key, draws nothing, holds no terminal fd; typed keys do not answer the pending approval', async () => {
    const window = await startWindow();
    const { term, screen } = runClient([]);
    const pid = Number((await waitFor(() => /SERVER_PID (\d+)/.exec(screen()), 'the client started the gateway'))[1]);
    await waitFor(() => window.host.broker.pending().length === 1, 'the call waits in the window inbox', 30_000);
    expect(window.seen[0]).toMatchObject({ tool: 'fs.write', session: `gateway:${pid}` });

    // Keys a person types for the client, including every approval key the terminal approver knows.
    const keys = 'aaaastdyn\r a\ra\x1b[A\ra';
    await typeKeys(term, keys);
    await waitFor(() => screen().includes(`GOT ${keys.length}`), `the client got all ${keys.length} keys\n${screen()}`);
    expect(terminalFds(pid), 'the gateway holds no terminal').toEqual([]);
    expect(window.host.broker.pending(), 'still pending after the keys').toHaveLength(1);
    expect(screen()).not.toContain('RESULT');
    // Nothing but the client's own lines reached the screen.
    const foreign = screen()
      .split(/\r?\n/)
      .map((l) => l.replace(/\r/g, '').trim())
      .filter((l) => l !== '' && !/^(SERVER_PID \d+|CALLED|GOT \d+)$/.test(l));
    expect(foreign, 'lines on the terminal that the client did not write').toEqual([]);
    expect(existsSync(path.join(tmp.dir, 'ws', 'typed.txt'))).toBe(false);

    // Only the window answers it.
    const [pending] = window.host.broker.pending();
    window.host.broker.answer(pending!.id, { choice: 'deny', by: 'ui' });
    const result = await waitFor(() => /RESULT (.*)/.exec(screen()), 'the call was answered');
    expect(result[1]).toContain('DENY: denied by ui');
    expect(existsSync(path.join(tmp.dir, 'ws', 'typed.txt'))).toBe(false);
  });

  it('control: with --approver tty (asked for) the gateway does use the terminal, and the harness sees it', async () => {
    const { term, screen } = runClient(['--approver', 'tty']);
    const pid = Number((await waitFor(() => /SERVER_PID (\d+)/.exec(screen()), 'the client started the gateway'))[1]);
    await waitFor(() => /allow once/i.test(screen()), `the approval box on the terminal\n${screen()}`, 30_000);
    expect(terminalFds(pid).length).toBeGreaterThan(0);
    // Both processes read the same terminal, so a key goes to whichever reads first (the bug the
    // first test guards against): keep typing `a` until one reaches the gateway.
    let typed = 0;
    const result = await waitFor(async () => {
      const m = /RESULT (.*)/.exec(screen());
      if (!m && typed++ < 200) await typeKeys(term, 'a');
      return m;
    }, 'the call was answered on the terminal');
    expect(result[1]).not.toContain('DENY');
  });
});
