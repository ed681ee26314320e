// An agent's own controlling terminal inside the sandbox. bwrap --new-session puts the agent in a
// session of its own (main/sandbox/bwrap-args.ts), and the pty it is given is the controlling
// terminal of the outer session (node-pty makes its child one), which nothing else may take
// over. Measured without this: bash said "no job control", and Ctrl-C at its prompt went to the
// outer session's foreground group, bwrap, which died and took the terminal with it.
//
// So the agent runs under util-linux script(1) inside the sandbox: script opens a pty of the
// sandbox's own devpts (bwrap --dev), makes it the agent's controlling terminal as a session
// leader and relays to the outer pty; on SIGWINCH (sent by main/agents/pty-backend.ts) it copies
// the outer size in. Ctrl-C then reaches the agent's foreground job, /dev/tty opens, a shell has
// job control. TIOCSTI on that pty is still refused by the seccomp filter, and it would only type
// into the agent's own input anyway.
//
// script runs its command as `$SHELL -c STRING`: SHELL is /bin/sh for it, and every value is
// single-quoted for POSIX sh, where a single-quoted string has no escapes at all; the agent gets
// its own SHELL back through env(1), which execs (no process stays but script).
import { existsSync } from 'node:fs';

const SCRIPT = '/usr/bin/script';
const ENV = '/usr/bin/env';

export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `command args` under script(1) with `env` for it, or undefined where script is not installed. */
export function underOwnTerminal(command: string, args: string[], env: Record<string, string>): { command: string; args: string[]; env: Record<string, string> } | undefined {
  if (process.platform !== 'linux' || !existsSync(SCRIPT) || !existsSync(ENV)) return undefined;
  // env(1) would read a command named `a=b` as an assignment.
  if (command.includes('=')) return undefined;
  const restoreShell = env.SHELL === undefined ? ['-u', 'SHELL', '--'] : ['--', `SHELL=${env.SHELL}`];
  const line = ['exec', ENV, ...restoreShell, command, ...args].map(shQuote).join(' ');
  // -q: no banner; -e: the agent's exit status is script's; -c: run this, not a login shell;
  // /dev/null: no typescript file.
  return { command: SCRIPT, args: ['-q', '-e', '-c', line, '/dev/null'], env: { ...env, SHELL: '/bin/sh' } };
}
