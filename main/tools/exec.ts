// process.exec (friendly: run_command): argv only, no shell, confined cwd, minimal environment.
//
// The child is spawned detached so it leads its own process group; on timeout the whole group is
// killed (SIGTERM, then SIGKILL after a short grace), which also takes grandchildren that did not
// start a session of their own. Output is capped per stream: the head is kept, the rest is still
// read and discarded so a chatty child never blocks on a full pipe.
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { z } from 'zod';
import { ToolError } from './errors';
import { displayPath, resolveConfined } from './confine';
import { defineTool, resultSchema, orNull, plural } from './tool-kit';

const errorTypes = ['CommandNotFoundError', 'CommandNotAllowedError', 'TimeoutError', 'OutputTooLargeError', 'PathOutsideWorkspaceError', 'FileNotFoundError', 'PermissionError', 'InvalidArgumentError', 'InternalError'] as const;

const KILL_GRACE_MS = 2_000;
// After the group is killed, pipes can stay open if a descendant escaped it (setsid); stop
// waiting for them then instead of hanging the call.
const DRAIN_AFTER_EXIT_MS = 2_000;
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

class CappedSink {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept >= this.cap) return;
    const slice = chunk.subarray(0, this.cap - this.kept);
    this.chunks.push(slice);
    this.kept += slice.length;
  }
  get truncated(): boolean { return this.total > this.kept; }
  text(): string {
    // Lossy on purpose: command output is informational, and a cut may split a character.
    return new TextDecoder('utf-8').decode(Buffer.concat(this.chunks));
  }
}

function minimalEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH && process.env.PATH.length ? process.env.PATH : FALLBACK_PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
  };
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  // Group only, never a bare pid: after the leader exits its pid may be reused by an unrelated
  // process, while a process group id stays reserved as long as any member lives.
  try { process.kill(-pid, signal); } catch { /* group already gone */ }
}

export const execTool = defineTool({
  name: 'process.exec',
  friendlyName: 'run_command',
  title: 'Run command',
  description:
    'Run a program inside the workspace and return its exit code, stdout and stderr. The command is an argv array (program and arguments, never a shell string: no pipes, globbing or variable expansion). The program is found on PATH unless it contains a slash. Runs with the workspace (or a folder inside it) as working directory, a minimal environment (PATH, HOME=workspace root, LANG), no stdin, a timeout (server default 30 s) after which the whole process group is killed, and an output cap per stream (server default 1 MiB; the head is kept and *_truncated is set). A non-zero exit code is a normal result, not an error.',
  inputShape: {
    argv: z.array(z.string()).min(1).describe('Program and arguments, e.g. ["git", "status", "--short"].').meta({ examples: [['git', 'status', '--short']] }),
    cwd: z.string().optional().describe('Working directory, absolute inside the workspace or relative to it (default: the workspace root).').meta({ examples: ['packages/app'] }),
    timeout_ms: z.number().int().min(1).optional().describe('Timeout in milliseconds; cannot exceed the server\'s exec.timeout_ms.').meta({ examples: [10000] }),
  },
  outputSchema: resultSchema(
    {
      exit_code: orNull(z.number().int(), 'ended by a signal').describe('Exit code, or null when the process was ended by a signal.'),
      signal: orNull(z.string(), 'exited on its own').describe('The signal that ended the process, if any.'),
      stdout: z.string().describe('Standard output (UTF-8, lossy), at most max_output_bytes.'),
      stderr: z.string().describe('Standard error (UTF-8, lossy), at most max_output_bytes.'),
      stdout_truncated: z.boolean(),
      stderr_truncated: z.boolean(),
      cwd: z.string().describe('Workspace-relative working directory used.'),
    },
    errorTypes,
  ),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  errorTypes,
  resultTooLargeError: 'OutputTooLargeError',
  securityNotes: [
    'No shell: argv is passed to the program as-is, so shell metacharacters have no effect.',
    'When the server option exec.allowed_commands is set, argv[0] must equal one of its entries exactly (CommandNotAllowedError otherwise).',
    'The working directory is confined to the workspace; the program itself can still read and write anything its OS user can. Confinement of a program\'s own file access needs an OS sandbox, which this tool does not provide.',
    'Minimal environment: only PATH, HOME (the workspace root), LANG and LC_ALL; the server\'s other environment variables (tokens, keys) are not passed on.',
    'Timeout kills the whole process group; a descendant that starts its own session (setsid) escapes the group and is not tracked.',
    'Each output stream is capped at exec.max_output_bytes; excess output is drained and discarded so memory stays bounded.',
  ],
  explain: (args, r) => {
    const ended = r.signal ? `was ended by ${r.signal}` : `exited with code ${r.exit_code}`;
    const out = (name: string, text: string, cut: boolean) => `${plural(text.length, 'character')} of ${name}${cut ? ' (truncated)' : ''}`;
    return `Ran ${args.argv[0]} with ${plural(args.argv.length - 1, 'argument')} in ${r.cwd}: it ${ended}, with ${out('stdout', r.stdout, r.stdout_truncated)} and ${out('stderr', r.stderr, r.stderr_truncated)}.`;
  },
  async run(ctx, args) {
    const cfg = ctx.options.exec;
    const [command, ...rest] = args.argv as [string, ...string[]];
    if (command.length === 0 || command.includes('\0') || rest.some((a) => a.includes('\0'))) {
      throw new ToolError('InvalidArgumentError', 'argv entries must be non-empty strings without NUL bytes', { argv: args.argv });
    }
    if (cfg.allowed_commands && !cfg.allowed_commands.includes(command)) {
      throw new ToolError('CommandNotAllowedError', `command ${JSON.stringify(command)} is not in the allowed commands: ${cfg.allowed_commands.join(', ')}`, { command, allowed_commands: cfg.allowed_commands });
    }
    const cwdInput = args.cwd ?? '.';
    const cwd = await resolveConfined(ctx.ws, cwdInput);
    const cwdStat = cwd.exists ? await fsp.stat(cwd.real).catch(() => undefined) : undefined;
    if (!cwdStat?.isDirectory()) throw new ToolError('FileNotFoundError', `working directory does not exist: ${cwdInput}`, { path_attempted: cwdInput });
    const timeoutMs = Math.min(args.timeout_ms ?? cfg.timeout_ms, cfg.timeout_ms);
    const out = new CappedSink(cfg.max_output_bytes);
    const err = new CappedSink(cfg.max_output_bytes);
    const env = minimalEnv(ctx.ws.realRoot);

    return await new Promise<Record<string, unknown>>((resolve, reject) => {
      let settled = false;
      let timedOut = false;
      let killTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;
      const child = spawn(command, rest, { cwd: cwd.real, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(killTimer);
        clearTimeout(drainTimer);
        fn();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        if (child.pid !== undefined) {
          killGroup(child.pid, 'SIGTERM');
          killTimer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), KILL_GRACE_MS);
        }
      }, timeoutMs);
      child.on('error', (e: NodeJS.ErrnoException) => finish(() => {
        if (e.code === 'ENOENT') reject(new ToolError('CommandNotFoundError', `command not found: ${command}${command.includes('/') ? '' : ' (searched PATH)'}`, { command, path_searched: command.includes('/') ? null : env.PATH }));
        else if (e.code === 'EACCES') reject(new ToolError('PermissionError', `command is not executable: ${command}`, { command }));
        else reject(new ToolError('InternalError', `could not start ${command}: ${e.message}`, { command, errno: e.code ?? null }));
      }));
      const onDone = (code: number | null, signal: NodeJS.Signals | null): void => finish(() => {
        // Kill stragglers left in the group (a backgrounded grandchild) so nothing outlives the call.
        if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
        if (timedOut) {
          reject(new ToolError('TimeoutError', `${command} did not finish within ${timeoutMs} ms; its process group was killed`, {
            command, timeout_ms: timeoutMs, stdout: out.text(), stderr: err.text(), stdout_truncated: out.truncated, stderr_truncated: err.truncated,
          }));
          return;
        }
        resolve({
          exit_code: code, signal, stdout: out.text(), stderr: err.text(), stdout_truncated: out.truncated, stderr_truncated: err.truncated,
          cwd: displayPath(ctx.ws, cwd.real),
        });
      });
      // 'close' waits for the pipes; if a descendant keeps them open after the child exited,
      // give up on the rest of the output after a bounded wait.
      child.on('exit', (code, signal) => {
        drainTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          onDone(code, signal);
        }, DRAIN_AFTER_EXIT_MS);
      });
      child.on('close', (code, signal) => onDone(code, signal));
    });
  },
});

