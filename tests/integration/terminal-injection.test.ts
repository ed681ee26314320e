// The person's terminal, attacked from inside the sandbox (CVE-2017-5226): a process that holds
// an fd of a terminal can push a command into its input with ioctl(TIOCSTI), and the person's
// shell runs it after Gatehouse exits, as the user, outside the sandbox. Each test puts the real
// `bin/gatehouse` on a real pty (node-pty) inside `sh -c '…; read line; echo "GOT:$line"'`, runs
// tests/fixtures/sandbox/tty-attack.py as the agent or as a stdio server, then types `clean` into
// the outer shell: GOT:clean means nothing was injected, GOT:echo … that the attack worked.
// What holds (docs/security.md "The person's terminal"): the agent runs on a pty Gatehouse owns
// and relays (main/agents/tty-relay.ts), every sandboxed process is in a session of its own
// (bwrap --new-session) and TIOCSTI/TIOCLINUX fail with EPERM (main/sandbox/seccomp.ts).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { nodePtyBackend, type PtyProcess } from '../../main/agents/pty-backend';
import { descendants } from '../../main/sandbox/signal-tree';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';
import { repoRoot, waitFor } from '../support/supervisor';

const GATEHOUSE = path.join(repoRoot, 'bin', 'gatehouse');
const PYTHON = '/usr/bin/python3';
const fixture = (name: string) => path.join(repoRoot, 'tests', 'fixtures', 'sandbox', name);

beforeAll(() => {
  // bin/gatehouse runs out/cli.mjs; the agent's forwarder is out/sandbox-init.mjs.
  for (const built of ['cli.mjs', 'sandbox-init.mjs'])
    if (!existsSync(path.join(repoRoot, 'out', built))) throw new Error(`expected ${path.join(repoRoot, 'out', built)}; found nothing: run \`node scripts/build.mjs\``);
  if (!existsSync(PYTHON)) throw new Error(`expected ${PYTHON} (the attack fixtures are Python: node has no ioctl)`);
});

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

interface Terminal {
  pty: PtyProcess;
  output(): string;
  exited: Promise<number>;
}

/** `script` in `sh -c`, on a new pty of `cols`×`rows`, as a person's terminal. */
function personsTerminal(script: string, env: Record<string, string>, cols = 100, rows = 30): Terminal {
  const pty = nodePtyBackend().spawn('/bin/sh', ['-c', script], { cwd: repoRoot, cols, rows, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', TERM: 'xterm', ...env } });
  let out = '';
  pty.onData((d) => (out += d.toString()));
  const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  cleanups.push(() => {
    try {
      pty.kill('SIGKILL');
    } catch {}
  });
  return { pty, output: () => out, exited };
}

/** waitFor, and on a timeout the terminal's text so far (what went wrong is usually on it). */
async function waitOn<T>(term: Terminal, cond: () => T, what: string, timeoutMs = 90_000) {
  try {
    return await waitFor(cond, { timeoutMs, what });
  } catch (err) {
    throw new Error(`${(err as Error).message}; the terminal shows: ${JSON.stringify(term.output())}`);
  }
}

/** After Gatehouse exited: type `clean` into the outer shell and return what its `read` got. */
async function outerShellReads(term: Terminal): Promise<string> {
  await waitOn(term, () => term.output().includes('AFTER-LAUNCH'), 'the launch to end');
  term.pty.write('clean\r');
  const got = await waitOn(term, () => /GOT:([^\r\n]*)\r?\n/.exec(term.output())?.[1], 'the outer shell to read a line');
  await term.exited;
  return got;
}

function attackReport(text: string): { tiocsti: Record<string, string>; tioclinux: Record<string, string>; fd0: string; reachable_ttys: string[] } {
  const line = /TTY-ATTACK (\{[^\r\n]*\})/.exec(text)?.[1];
  if (!line) throw new Error(`expected a TTY-ATTACK line from the fixture; found: ${JSON.stringify(text)}`);
  return JSON.parse(line);
}

function agentProfile(dir: string, command: string, args: string[]): string {
  return writeProfile(dir, JSON.stringify({ name: 'tty', workspace: './ws', servers: {}, policy: { default: 'allow' }, agent: { preset: 'custom', command, args, autostart: false } }));
}

describe('the person\'s terminal under `gatehouse launch --agent`', () => {
  it('an agent pushing a command with TIOCSTI into fds 0/1/2 and /dev/tty types nothing into the person\'s shell', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = agentProfile(tmp.dir, PYTHON, [fixture('tty-attack.py'), 'PWNED']);
    const term = personsTerminal(
      `printf 'OUTER-TTY:%s\\n' "$(stat -L -c '%d:%t:%T' /proc/self/fd/0)"
"$GH" launch --profile "$GH_PROFILE" --agent --data-dir "$GH_DATA"
echo "CODE:$?"
echo "MODE:$(stty -a | tr ' ;' '\\n\\n' | grep -x -e opost -e -opost -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' ')"
echo AFTER-LAUNCH
read line
echo "GOT:$line"`,
      { GH: GATEHOUSE, GH_PROFILE: file, GH_DATA: path.join(tmp.dir, 'data') },
    );
    const got = await outerShellReads(term);
    const text = term.output();
    // What the person's shell read is what the person typed; no `echo PWNED-…` came first.
    expect(got).toBe('clean');
    expect(text).not.toMatch(/GOT:echo PWNED/);
    const report = attackReport(text);
    // The agent's terminal is not the person's: another pty (Gatehouse's), relayed.
    const outer = /OUTER-TTY:(\S+)/.exec(text)![1];
    expect(report.fd0).toMatch(/^\d+:[0-9a-f]+:[0-9a-f]+$/);
    expect(report.fd0).not.toBe(outer);
    // Nor does any process in its reach hold it (a /proc/PID/fd link would reopen it).
    expect(report.reachable_ttys.length).toBeGreaterThan(0);
    expect(report.reachable_ttys).not.toContain(outer);
    // And the filter refuses the ioctl itself, on every fd and its own pty; no controlling tty.
    expect(report.tiocsti).toMatchObject({ '0': 'EPERM', '1': 'EPERM', '2': 'EPERM', 'own-pty': 'EPERM', 'own-pty-high-bits': 'EPERM' });
    expect(report.tiocsti['/dev/tty']).toMatch(/^(open ENXIO|open EIO|EPERM)$/);
    expect(report.tioclinux).toMatchObject({ '0': 'EPERM', 'own-pty': 'EPERM' });
    // Raw both ways: the agent pty's CRLF passes unchanged (no output processing added on top).
    expect(text).not.toContain('\r\r\n');
    // The agent's exit code comes back, and the terminal is cooked again (canonical, echoing).
    expect(text).toContain('CODE:7');
    expect(text).toMatch(/MODE:opost icanon echo/);
  }, 150_000);

  it('Ctrl-C\'s SIGINT to Gatehouse while the agent runs: the terminal is restored, the agent ends, 130 comes back', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const marker = `agent-waits-${process.pid}-${Date.now()}`;
    const file = agentProfile(tmp.dir, PYTHON, ['-c', 'import sys; print("AGENT-READY", flush=True); sys.stdin.read()', marker]);
    const term = personsTerminal(
      `"$GH" launch --profile "$GH_PROFILE" --agent --data-dir "$GH_DATA"
echo "CODE:$?"
echo "MODE:$(stty -a | tr ' ;' '\\n\\n' | grep -x -e opost -e -opost -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' ')"`,
      { GH: GATEHOUSE, GH_PROFILE: file, GH_DATA: path.join(tmp.dir, 'data') },
    );
    await waitOn(term, () => term.output().includes('AGENT-READY'), 'the agent to start');
    const host = descendants(term.pty.pid).find((p) => p.ppid === term.pty.pid);
    expect(host, 'the gatehouse process under the outer shell').toBeDefined();
    process.kill(host!.pid, 'SIGINT');
    await waitOn(term, () => term.output().includes('MODE:'), 'the launch to end');
    expect(term.output()).toContain('CODE:130');
    expect(term.output()).toMatch(/MODE:opost icanon echo/);
    const withMarker = () => descendants(1).filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
    await waitFor(() => withMarker().length === 0, { what: 'the agent to be gone' });
  }, 150_000);

  it('relays window size changes to the agent (SIGWINCH into its own session)', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = agentProfile(tmp.dir, PYTHON, [fixture('winch-agent.py')]);
    const term = personsTerminal(`"$GH" launch --profile "$GH_PROFILE" --agent --data-dir "$GH_DATA"; echo "CODE:$?"`, { GH: GATEHOUSE, GH_PROFILE: file, GH_DATA: path.join(tmp.dir, 'data') }, 100, 30);
    await waitOn(term, () => term.output().includes('WINCH-READY'), 'the agent to start');
    expect(term.output()).toContain('WINCH-READY 100x30');
    term.pty.resize(132, 43);
    await waitOn(term, () => term.output().includes('WINCH-GOT'), 'the agent to see the resize');
    expect(term.output()).toContain('WINCH-GOT 132x43');
    await waitOn(term, () => term.output().includes('CODE:'), 'the launch to end');
    expect(term.output()).toContain('CODE:0');
  }, 150_000);
});

describe('the person\'s terminal under a sandboxed stdio server', () => {
  it('a server started by a host on a pty cannot reach that terminal, and TIOCSTI/TIOCLINUX fail with EPERM', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const report = path.join(tmp.dir, 'ws', 'report.json');
    const file = writeProfile(
      tmp.dir,
      JSON.stringify({ name: 'tty-server', workspace: './ws', servers: { attack: { command: PYTHON, args: [fixture('tty-attack.py'), 'PWNED', report], restart: { max_restarts: 0 } } }, policy: { default: 'allow' } }),
    );
    const dataDir = path.join(tmp.dir, 'data');
    pinProfile(dataDir, file);
    // In the background (stdin /dev/null; its session's terminal is still this pty), so the
    // shell can say its pid.
    const term = personsTerminal(`"$GH" launch --profile "$GH_PROFILE" --no-http --no-approver --data-dir "$GH_DATA" & echo "HOST-PID:$!"; wait $!; echo AFTER-LAUNCH; read line; echo "GOT:$line"`, {
      GH: GATEHOUSE,
      GH_PROFILE: file,
      GH_DATA: dataDir,
    });
    await waitOn(term, () => existsSync(report), "the server's report");
    // The host runs until a signal: stop it as a person's Ctrl-C would.
    const hostPid = Number(/HOST-PID:(\d+)/.exec(term.output())![1]);
    process.kill(hostPid, 'SIGTERM');
    const got = await outerShellReads(term);
    expect(got).toBe('clean');
    expect(term.output()).not.toMatch(/GOT:echo PWNED/);
    const r = JSON.parse(readFileSync(report, 'utf8')) as ReturnType<typeof attackReport>;
    // No controlling terminal in its own session: /dev/tty cannot be opened at all.
    expect(r.tiocsti['/dev/tty']).toBe('open ENXIO');
    // Its stdio are pipes; the filter answers before the kernel would say ENOTTY.
    expect(r.tiocsti).toMatchObject({ '0': 'EPERM', '1': 'EPERM', '2': 'EPERM', 'own-pty': 'EPERM', 'own-pty-high-bits': 'EPERM' });
    expect(r.tioclinux).toMatchObject({ '0': 'EPERM', 'own-pty': 'EPERM' });
  }, 150_000);
});

describe("the app's own terminals", () => {
  it('an agent in a terminal of the app (node-pty, no fds to pass) runs under the filter too', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = agentProfile(tmp.dir, PYTHON, [fixture('tty-attack.py'), 'PWNED']);
    const host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    try {
      const launch = await host.launch(file, { httpPort: 0 });
      const opened = await host.openTerminal(launch.id);
      if ('unavailable' in opened) throw new Error(opened.unavailable);
      const session = host.terminals.get(opened.id)!;
      let output = session.replay();
      session.on('data', (d) => (output += d));
      await waitFor(() => session.status().exit !== undefined, { timeoutMs: 60_000, what: 'the agent to exit' });
      const report = attackReport(output);
      expect(report.tiocsti).toMatchObject({ '0': 'EPERM', '1': 'EPERM', '2': 'EPERM', 'own-pty': 'EPERM' });
      expect(report.tioclinux).toMatchObject({ '0': 'EPERM' });
      // Its /dev/tty is the pty of its own that script(1) gives it inside (main/agents/own-terminal.ts).
      expect(report.tiocsti['/dev/tty']).toBe('EPERM');
      expect(session.status().exit?.code).toBe(7);
    } finally {
      await host.shutdown();
    }
  }, 120_000);

  it('a shell there keeps job control in its own session: Ctrl-C interrupts its job, not the terminal', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = agentProfile(tmp.dir, '/bin/bash', ['--norc', '--noprofile', '-i']);
    const host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    try {
      const launch = await host.launch(file, { httpPort: 0 });
      const opened = await host.openTerminal(launch.id);
      if ('unavailable' in opened) throw new Error(opened.unavailable);
      const session = host.terminals.get(opened.id)!;
      let output = session.replay();
      session.on('data', (d) => (output += d));
      const seen = (re: RegExp, what: string) => waitFor(() => re.test(output), { timeoutMs: 60_000, what }).catch((err: Error) => {
        throw new Error(`${err.message}; the terminal shows: ${JSON.stringify(output)}`);
      });
      session.write('echo SLEEPING; sleep 1000\r');
      await seen(/[\r\n]SLEEPING\r?\n/, 'the job to start');
      // Without a controlling terminal of its own this ^C reached bwrap, and the terminal ended.
      session.write('\x03');
      session.write('echo ALIVE-$((40+2)) $(tty)\r');
      await seen(/ALIVE-42 \/dev\/pts\/\d+/, 'the shell to answer after Ctrl-C');
      session.write('exit 5\r');
      await waitFor(() => session.status().exit !== undefined, { timeoutMs: 60_000, what: 'the shell to exit' });
      expect(session.status().exit?.code).toBe(5);
      expect(output).not.toContain('no job control');
    } finally {
      await host.shutdown();
    }
  }, 120_000);
});
