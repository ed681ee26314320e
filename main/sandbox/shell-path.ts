// A desktop app launched from a dock or a menu does not see the PATH the user's shell sets up
// (the classic `spawn npx ENOENT`). We ask the login shell once, merge it with our own PATH and
// Gatehouse's own node_modules/.bin (so bundled servers such as mcp-server-filesystem resolve
// offline), and say which PATH was searched when a command is still not found.
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

const MARKER = '__GATEHOUSE_PATH__';
let cached: Promise<string> | undefined;

function uniqueJoin(parts: Array<string | undefined>): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of parts) {
    for (const dir of (part ?? '').split(path.delimiter)) {
      if (dir && !seen.has(dir)) {
        seen.add(dir);
        out.push(dir);
      }
    }
  }
  return out.join(path.delimiter);
}

function askLoginShell(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | undefined> {
  const shell = env.SHELL;
  if (process.platform === 'win32' || !shell) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    // -i -l: interactive login, so rc files that extend PATH run; markers survive noisy rc output.
    execFile(
      shell,
      ['-ilc', `printf '%s%s%s' '${MARKER}' "$PATH" '${MARKER}'`],
      { timeout: timeoutMs, env: { ...env, GATEHOUSE_PATH_PROBE: '1' }, encoding: 'utf8' },
      (err, stdout) => {
        if (err && !stdout) return resolve(undefined);
        const m = stdout.match(new RegExp(`${MARKER}(.*)${MARKER}`, 's'));
        resolve(m?.[1] || undefined);
      },
    ).stdin?.end();
  });
}

/** The PATH servers are searched on and started with (resolved once per process). */
export function resolveSearchPath(opts: { env?: NodeJS.ProcessEnv; extraDirs?: string[]; timeoutMs?: number } = {}): Promise<string> {
  const env = opts.env ?? process.env;
  cached ??= askLoginShell(env, opts.timeoutMs ?? 3000).then((login) => uniqueJoin([login, env.PATH]));
  return cached.then((base) => uniqueJoin([base, ...(opts.extraDirs ?? [])]));
}

export class CommandNotFoundError extends Error {
  constructor(
    readonly command: string,
    readonly searched: string[],
  ) {
    super(`command '${command}' not found; searched PATH: ${searched.join(path.delimiter) || '(empty)'}`);
    this.name = 'CommandNotFoundError';
  }
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Absolute path of `command` (as given when it has a slash), or CommandNotFoundError. */
export function resolveCommand(command: string, searchPath: string, cwd: string): string {
  if (command.includes('/') || command.includes('\\')) {
    const abs = path.resolve(cwd, command);
    if (isExecutable(abs)) return abs;
    throw new CommandNotFoundError(command, [path.dirname(abs)]);
  }
  const dirs = searchPath.split(path.delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, command + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  throw new CommandNotFoundError(command, dirs);
}
