// The supervisor's and the terminals' hook into the sandbox: what they already computed (command,
// args, cwd, least-privilege env) in, the command line to spawn out. Keeps the edit in the spawn
// paths to one call; everything sandbox-specific stays in this folder.
import { closeSync, existsSync, mkdirSync, openSync, readSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appRoot } from '../paths';
import { resolveCommand } from './shell-path';
import { prepareSandbox, SandboxUnavailableError, unconfined, type SandboxedCommand } from './sandbox-launch';
import { SandboxConfigError } from './mount-plan';
import { passwdHome } from './hidden-paths';
import type { SandboxSpec } from './types';

export type SandboxedRun = SandboxedCommand;

export interface SpawnSandboxedInput {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  workspace: string;
  dataDir?: string;
  hostEnv?: NodeJS.ProcessEnv;
  searchPath: string;
  internalRead?: string[];
  /**
   * Paths no grant may make writable (main/sandbox/mount-plan.ts): the profile file, the
   * profiles folders, approved servers' program files; computed once per launch
   * (main/trust/protected-paths.ts).
   */
  protectedRead?: string[];
  log?: (line: string) => void;
  /** False for a pty (node-pty cannot pass extra fds): the prelude opens the seccomp filter then. */
  canPassFds?: boolean;
  /** The run's cgroup folder `gatehouse/<launch>/<name>` (limits.ts). */
  limitsGroup?: { launch: string; name: string };
}

/** Restarting cannot make bubblewrap appear or a grant valid: the supervisor fails at once. */
export function isPermanentSandboxError(err: unknown): boolean {
  return err instanceof SandboxUnavailableError || err instanceof SandboxConfigError;
}

export function spawnSandboxed(spec: SandboxSpec, input: SpawnSandboxedInput): SandboxedRun {
  if (spec.mode === 'off') return unconfined(input.command, input.args, input.env, { limits: spec.limits, hostEnv: input.hostEnv ?? process.env, ...input.limitsGroup });
  if (!input.dataDir) throw new SandboxConfigError('sandbox: the spawn path did not say where Gatehouse\'s data directory is, so it cannot be hidden');
  // A write grant that does not exist yet is a folder the profile wants (docs/sandbox.md).
  for (const w of spec.write) if (!existsSync(w)) mkdirSync(w, { recursive: true });
  const hostEnv = input.hostEnv ?? process.env;
  // The home folders a prefix must never widen to: the ones the sandbox hides, and this user's.
  const homes = homeDirs(hostEnv.HOME);
  const nodePath = process.versions.electron ? resolveCommand('node', input.searchPath, input.cwd) : process.execPath;
  return prepareSandbox({
    spec,
    command: input.command,
    args: input.args,
    cwd: input.cwd,
    env: input.env,
    workspace: input.workspace,
    dataDir: input.dataDir,
    hostEnv,
    // Under Electron, process.execPath is the app binary: the forwarder runs on the user's node.
    nodePath,
    // What running the command needs even where $HOME is hidden: Gatehouse's own files (bundled
    // servers, the forwarder), the command's and node's install prefix (nvm, ~/.local), its cwd.
    canPassFds: input.canPassFds,
    internalRead: [...(input.internalRead ?? []), appRoot(), installPrefix(input.command, homes), installPrefix(nodePath, homes), ...interpreterPrefixes(input.command, input.searchPath, homes), input.cwd],
    protectedRead: input.protectedRead,
    log: input.log,
    limitsGroup: input.limitsGroup,
  });
}

/**
 * `…/bin/x` → `…` (an install prefix: nvm's node, ~/.local); anything else → its folder. Never
 * the home folder or one of its ancestors: `~/bin/x` (or `~/x`) would grant all of $HOME
 * read-only and undo its hiding, so such a command gets its own folder (or only itself).
 */
export function installPrefix(command: string, home: readonly string[] = homeDirs()): string {
  let real = command;
  try {
    real = realpathSync(command);
  } catch {}
  const dir = path.dirname(real);
  const tooWide = (p: string): boolean => home.some((h) => h === p || h.startsWith(p === path.sep ? p : `${p}${path.sep}`));
  if (path.basename(dir) === 'bin' && !tooWide(path.dirname(dir))) return path.dirname(dir);
  // A package's entry (node_modules/.bin/x → node_modules/pkg/dist/x.js): the whole node_modules.
  const nm = real.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (nm !== -1 && !tooWide(real.slice(0, nm + '/node_modules'.length))) return real.slice(0, nm + '/node_modules'.length);
  return tooWide(dir) ? real : dir;
}

export function homeDirs(home?: string): string[] {
  const dirs = new Set<string>();
  // os.homedir() is $HOME; the passwd home is hidden too (hidden-paths.ts), so it counts here.
  for (const h of [home, process.env.HOME, os.homedir(), passwdHome()]) {
    if (!h) continue;
    dirs.add(path.resolve(h));
    try {
      dirs.add(realpathSync(h));
    } catch {}
  }
  return [...dirs];
}

/** A script's `#!/usr/bin/env node` interpreter, found on PATH: its prefix must be visible too. */
export function interpreterPrefixes(command: string, searchPath: string, homes: readonly string[]): string[] {
  try {
    const head = readHead(command);
    const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(head);
    if (!m) return [];
    const program = path.basename(m[1]!) === 'env' && m[2] ? m[2] : m[1]!;
    return [installPrefix(resolveCommand(program, searchPath, path.dirname(command)), homes)];
  } catch {
    return [];
  }
}

function readHead(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, 256, 0);
    return buf.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
  } finally {
    closeSync(fd);
  }
}
