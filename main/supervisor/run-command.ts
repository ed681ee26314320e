// What one run of a process server executes (the command resolved on the search PATH, a
// bundled server's entry, the built-in tools server), and how its child is watched: stderr
// read line by line with secrets redacted, its exit reported once stderr has drained.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { BuiltinServerSpec, StdioServerSpec } from '../profiles/types';
import type { Redactor } from '../secrets/redactor';
import { LineSplitter } from '../protocol/line-splitter';
import { buildServerEnv } from './env';
import { bundledBinEntry } from './bundled-bins';
import { CommandNotFoundError, resolveCommand } from '../sandbox/shell-path';
import { quoteArg } from './quote-arg';
import { spawnSandboxed, type SandboxedRun } from '../sandbox/spawn-sandboxed';
import { serverExit, signalSandboxedGroup } from '../sandbox/signal-tree';
import type { RunInfo } from './managed-server-options';

/** After a child exits, how long its stderr may take to deliver its last lines. */
const STDERR_DRAIN_MS = 250;

export interface RunCommand {
  command: string;
  args: string[];
  cwd: string;
  env: ReturnType<typeof buildServerEnv>;
}

/** Resolves a process server's command; throws (CommandNotFoundError: for good) when it cannot run. */
export function resolveRunCommand(
  spec: StdioServerSpec | BuiltinServerSpec,
  opts: { searchPath: string; workspace: string; hostEnv?: NodeJS.ProcessEnv; toolsServerEntry?: string },
): RunCommand {
  const env = buildServerEnv({ env: spec.env, inheritEnv: spec.inheritEnv }, opts.hostEnv ?? process.env, { path: opts.searchPath });
  if (spec.kind === 'builtin') {
    const entry = opts.toolsServerEntry;
    if (!entry || !existsSync(entry)) throw new Error(`built-in workspace tools server not found at ${entry ?? '(unset)'}; run \`npm run build\``);
    // Under Electron, process.execPath is the app binary (and run-as-node is fused off), so the
    // built-in runs on the user's node; everywhere else on the node that runs the host.
    const command = process.versions.electron ? resolveCommand('node', opts.searchPath, opts.workspace) : process.execPath;
    return { command, args: [entry, '--workspace', opts.workspace, '--options', JSON.stringify(spec.options)], cwd: opts.workspace, env };
  }
  const cwd = spec.cwd;
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new Error(`working directory ${cwd} does not exist`);
  try {
    return { command: resolveCommand(spec.command, opts.searchPath, cwd), args: spec.args, cwd, env };
  } catch (err) {
    const entry = err instanceof CommandNotFoundError ? bundledBinEntry(spec.command) : undefined;
    if (!entry) throw err;
    // A server Gatehouse ships, in an install without node_modules/.bin (a packaged app).
    const command = process.versions.electron ? resolveCommand('node', opts.searchPath, cwd) : process.execPath;
    return { command, args: [entry, ...spec.args], cwd, env };
  }
}

export function describeExit(code: number | null, signal: string | null): string {
  if (signal) return `killed by ${signal}`;
  return `exited with code ${code}`;
}

/**
 * Reads the child's stderr into `line` (redacted before a long line is cut, so no piece keeps
 * a fragment of a secret) and reports its exit to `exited`. 'exit' can arrive before the last
 * stderr chunk has been read, and the last lines are the ones that say why a server died:
 * wait for stderr to close, but not for long (a grandchild may hold it open for ever).
 */
export function watchChild(
  child: ChildProcess,
  redactor: Redactor,
  line: (text: string) => void,
  exited: (code: number | null, signal: NodeJS.Signals | null) => void,
): void {
  const splitter = new LineSplitter({ redactor });
  let stderrDone = false;
  let onStderrDone: (() => void) | undefined;
  child.stderr!.on('data', (chunk: Buffer) => {
    for (const l of splitter.push(chunk)) line(l);
  });
  child.stderr!.on('close', () => {
    for (const l of splitter.end()) line(l);
    stderrDone = true;
    onStderrDone?.();
  });
  child.once('exit', (code, signal) => {
    const end = () => exited(code, signal);
    if (stderrDone) return end();
    const timer = setTimeout(end, STDERR_DRAIN_MS);
    onStderrDone = () => {
      clearTimeout(timer);
      end();
    };
  });
  // A closed stdin (the server exited) must not surface as an unhandled 'error'.
  child.stdin!.on('error', () => {});
}

/**
 * Spawns one run of a process server in its OS sandbox (main/sandbox/: throws, and the start
 * fails for good, when the sandbox cannot be had), in its own process group (setsid: shutdown
 * and the reaper signal -pgid, reaching grandchildren), with its stderr and exit watched.
 */
export function spawnServerChild(
  spec: StdioServerSpec | BuiltinServerSpec,
  opts: { searchPath: string; workspace: string; hostEnv?: NodeJS.ProcessEnv; toolsServerEntry?: string; dataDir?: string; redactor: Redactor; session?: string; protectedRead?: string[] },
  run: number,
  startedAt: number | undefined,
  on: { log(line: string): void; exited(reason: string, code: number | null, signal: string | null): void; capReached?(reason: string): void },
): { child: ChildProcess; boxed: SandboxedRun; runInfo: RunInfo } {
  const { command, args, cwd, env } = resolveRunCommand(spec, opts);
  // The run's cgroup (limits): gatehouse/<launch>/<server>-<run> (docs/sandbox.md "Limits").
  const limitsGroup = { launch: opts.session ?? 'launch', name: `${spec.id}-${run}` };
  const boxed = spawnSandboxed(spec.sandbox, { command, args, cwd, env, workspace: opts.workspace, dataDir: opts.dataDir, hostEnv: opts.hostEnv, searchPath: opts.searchPath, protectedRead: opts.protectedRead, log: (line) => on.log(`[gatehouse] ${line}`), limitsGroup });
  // A reduced kind (landlock, seatbelt) says at every start what it could not enforce: in the
  // server's log, and so in the audit's stderr lines.
  if (boxed.sandboxed && boxed.unenforced.length) on.log(`[gatehouse] sandbox: ${boxed.kind} (reduced), not enforced: ${boxed.unenforced.join('; ')}`);
  const child = spawn(boxed.command, boxed.args, {
    cwd,
    env: boxed.env,
    stdio: ['pipe', 'pipe', 'pipe', ...boxed.extraFds],
    detached: process.platform !== 'win32',
    windowsHide: true,
    shell: false,
  });
  const shown = spec.kind === 'builtin' ? `gatehouse workspace-tools --workspace ${quoteArg(opts.workspace)}` : [spec.command, ...args].map(quoteArg).join(' ');
  const runInfo: RunInfo = { run, pid: child.pid, command: opts.redactor.redactString(shown), cwd, startedAt: startedAt ?? Date.now(), limits: boxed.limits.summary };
  if (child.pid !== undefined && on.capReached) boxed.watch?.(child.pid, on.capReached);
  child.once('error', (err) => {
    // spawn failures (EACCES, ENOENT after our own check) arrive here, before or instead of 'exit'.
    on.log(`[gatehouse] spawn failed: ${err.message}`);
    on.exited(`spawn failed: ${err.message}`, null, null);
  });
  watchChild(child, opts.redactor, on.log, (rawCode, rawSignal) => {
    const { code, signal } = serverExit(boxed.kind, rawCode, rawSignal);
    on.exited(describeExit(code, signal), code, signal);
  });
  return { child, boxed, runInfo };
}

/** Signals a run's whole process group (inside bubblewrap: the sandbox's own PID namespace). */
export function killRunGroup(pgid: number, signal: NodeJS.Signals, sandboxed: boolean): void {
  if (sandboxed && process.platform === 'linux') return signalSandboxedGroup(pgid, signal);
  try {
    process.kill(process.platform === 'win32' ? pgid : -pgid, signal);
  } catch {}
}
