// `gatehouse launch --agent`: the agent runs on a pseudo-terminal Gatehouse owns, and this relays
// the person's terminal to it, as script(1) does: the person's terminal in raw mode, bytes both
// ways, window size changes forwarded, the terminal restored however the run ends.
//
// Why not hand the agent the terminal itself (stdio: 'inherit', as before): any process holding
// an fd of the person's terminal can push input into it (ioctl TIOCSTI) that the person's shell
// runs, as the user and outside the sandbox, once Gatehouse exits (CVE-2017-5226; measured on
// Linux 6.18 with dev.tty.legacy_tiocsti=1). seccomp.ts refuses TIOCSTI too; this relay makes sure
// no sandboxed process ever holds the person's terminal, whatever a kernel or a filter allows.
// tests/integration/terminal-injection.test.ts drives the real CLI on a real pty to check both.
//
// Ctrl-C: in raw mode it is a byte for the agent (an agent CLI interrupts its own work on it),
// as under script(1). Gatehouse itself still stops on SIGINT/SIGTERM/SIGHUP (host-lifecycle.ts),
// and the process 'exit' hook below restores the terminal on that path and after a fatal error.
import { spawnSync } from 'node:child_process';
import type { PtyBackend, PtyProcess } from './pty-backend';

export interface TtyRelayInput {
  backend: PtyBackend;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The person's side; default the process's own stdin and stdout. */
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
  /** Called once the agent runs on its pty (the limits watch takes its pid). */
  onSpawn?: (pty: Pick<PtyProcess, 'pid' | 'kill'>) => void;
}

const DEFAULT_SIZE = { cols: 80, rows: 24 };

/**
 * Runs the command on a new pty and relays until it exits; resolves with its exit code (128 + n
 * when a signal ended it). Throws when the pty cannot be spawned (the terminal is untouched then).
 */
export function relayOnPty(opts: TtyRelayInput): Promise<number> {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stdout;
  const size = () => (output.isTTY && output.columns > 0 && output.rows > 0 ? { cols: output.columns, rows: output.rows } : DEFAULT_SIZE);
  const { cols, rows } = size();
  const pty = opts.backend.spawn(opts.command, opts.args, { cwd: opts.cwd, env: opts.env, cols, rows });
  opts.onSpawn?.(pty);

  const wasRaw = input.isTTY ? input.isRaw : false;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    input.off('data', onInput);
    input.off('end', onEnd);
    output.off('resize', onResize);
    process.off('exit', onProcessExit);
    // setRawMode is synchronous (uv_tty_set_mode), so it also holds inside a process 'exit' hook.
    if (input.isTTY) input.setRawMode(wasRaw);
    input.pause();
  };
  const onInput = (chunk: Buffer | string) => pty.write(chunk);
  // Input that is not a terminal (a pipe) ending: the pty's end-of-file character, as script does.
  const onEnd = () => pty.write('\x04');
  // Node turns SIGWINCH on a terminal stdout into 'resize' with the new columns and rows.
  const onResize = () => {
    const s = size();
    pty.resize(s.cols, s.rows);
  };
  // Gatehouse exiting on a signal or a fatal error while the agent runs: give the terminal back
  // and end the agent (its pty's hangup would too; this does not wait for the kernel).
  const onProcessExit = () => {
    restore();
    try {
      pty.kill('SIGHUP');
    } catch {}
  };

  if (input.isTTY) {
    input.setRawMode(true);
    // Trap: libuv's raw mode keeps output post-processing (ONLCR), so the agent's pty's "\r\n"
    // came out as "\r\r\n" and a full-screen program's bare "\n" as a carriage return too
    // (measured: tests/integration/terminal-injection.test.ts). script(1) clears OPOST; so do we.
    // setRawMode(false) puts back the whole termios libuv saved first, OPOST included.
    spawnSync('stty', ['-opost'], { stdio: [(input as { fd?: number }).fd ?? 0, 'ignore', 'ignore'] });
  }
  process.on('exit', onProcessExit);
  input.on('data', onInput);
  input.on('end', onEnd);
  output.on('resize', onResize);
  input.resume();
  pty.onData((data) => output.write(data));
  return new Promise<number>((resolve) => {
    pty.onExit(({ exitCode, signal }) => {
      restore();
      resolve(signal ? 128 + signal : exitCode);
    });
  });
}
