// What a stdio server's command actually runs (docs/trust.md "Program pinning"): the argv in the
// launch identity names a program, this pins its bytes. The executable is resolved the way a run
// resolves it (main/supervisor/run-command.ts: the search PATH, else a bundled server's entry)
// and followed to its realpath; for an interpreter (node, python, deno, bun) the entry script is
// pinned too, for a launcher (npx, uvx, …) the package it names, and when any of these lives in
// a `node_modules/<package>/` folder, the package (name, version, hash of its files).
//
// The same files are what main/trust/protected-paths.ts binds read-only in every sandbox, so a
// server cannot rewrite another server's script in a shared workspace.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { StdioServerSpec } from '../profiles/types';
import { bundledBinEntry } from '../supervisor/bundled-bins';
import { CommandNotFoundError, resolveCommand, resolveSearchPath } from '../sandbox/shell-path';
import { appRoot } from '../paths';
import { hashFileAsync, hashFileSync, hashPackageSync, packageFiles } from './file-hash';

export interface PinnedFile {
  path: string;
  sha256: string;
}

export interface ProgramIdentity {
  executable?: PinnedFile;
  /** An interpreter's script (`node server.js`). */
  entry?: PinnedFile;
  /** The package the executable or entry belongs to, or the one a launcher names when installed here. */
  package?: { name: string; version: string; sha256: string; files: number; capped?: true };
  /** A launcher's package as named (`npx:@scope/pkg@1.2`): what it fetches when nothing is installed. */
  launcher?: string;
  /** Why nothing could be resolved (the command is not installed): pinned as such, so installing it asks. */
  missing?: string;
}

interface ProgramPlan {
  executable?: string;
  entry?: string;
  packageDir?: string;
  launcher?: string;
  missing?: string;
}

const INTERPRETER = /^(node|nodejs|python(\d+(\.\d+)?)?|deno|bun)$/;
const LAUNCHER = /^(npx|pnpx|bunx|uvx|pipx)$/;
/** Interpreter options whose value is the next argument (so it is not taken for the script). */
const TAKES_VALUE = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--env-file', '-p', '--package', '--from', '--with', '-W', '-X']);

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function isFile(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** `…/node_modules/<name>` or `…/node_modules/@scope/<name>` holding `file`, when it has a package.json. */
export function packageDirOf(file: string): string | undefined {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = file.lastIndexOf(marker);
  if (at < 0) return undefined;
  const rest = file.slice(at + marker.length).split(path.sep);
  const segs = rest[0]?.startsWith('@') ? rest.slice(0, 2) : rest.slice(0, 1);
  const dir = path.join(file.slice(0, at + marker.length), ...segs);
  return existsSync(path.join(dir, 'package.json')) ? dir : undefined;
}

/** First argument that is not an option (nor an option's value), after an optional subcommand. */
function firstOperand(args: string[], skip: Set<string> = new Set()): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (TAKES_VALUE.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-') || skip.has(a)) continue;
    return a;
  }
  return undefined;
}

function launcherPackage(args: string[]): string | undefined {
  const i = args.findIndex((a) => a === '-p' || a === '--package' || a === '--from');
  return i >= 0 ? args[i + 1] : firstOperand(args);
}

function npmName(specifier: string): string {
  const at = specifier.indexOf('@', specifier.startsWith('@') ? 1 : 0);
  return at > 0 ? specifier.slice(0, at) : specifier;
}

/** Which files decide what `spec` runs, without reading them. */
function programPlan(spec: StdioServerSpec, searchPath: string): ProgramPlan {
  let command: string;
  let args = spec.args;
  try {
    command = resolveCommand(spec.command, searchPath, spec.cwd);
  } catch (err) {
    const entry = err instanceof CommandNotFoundError ? bundledBinEntry(spec.command) : undefined;
    if (!entry) return { missing: `command '${spec.command}' not found` };
    // As run-command.ts runs a bundled server: `node <entry> …args`.
    try {
      command = process.versions.electron ? resolveCommand('node', searchPath, spec.cwd) : process.execPath;
    } catch {
      return { missing: `node (to run the bundled '${spec.command}') not found`, entry: real(entry) };
    }
    args = [entry, ...args];
  }
  const executable = real(command);
  const plan: ProgramPlan = { executable };
  const name = path.basename(spec.command.includes('/') ? executable : spec.command);
  const base = INTERPRETER.test(path.basename(executable)) ? path.basename(executable) : name;
  if (INTERPRETER.test(base)) {
    const operand = firstOperand(args, new Set(base === 'deno' || base === 'bun' ? ['run'] : []));
    const file = operand === undefined ? undefined : real(path.resolve(spec.cwd, operand));
    if (file && isFile(file)) plan.entry = file;
  } else if (LAUNCHER.test(name)) {
    const specifier = launcherPackage(args);
    if (specifier) {
      plan.launcher = `${name}:${specifier}`;
      if (name !== 'uvx' && name !== 'pipx') {
        for (const root of [spec.cwd, appRoot()]) {
          const dir = path.join(root, 'node_modules', npmName(specifier));
          if (existsSync(path.join(dir, 'package.json'))) {
            plan.packageDir = real(dir);
            break;
          }
        }
      }
    }
  }
  plan.packageDir ??= packageDirOf(plan.entry ?? executable);
  return plan;
}

/** The program identity of a stdio server (hashes from the cache when the files did not change). */
export function programIdentity(spec: StdioServerSpec, searchPath: string): ProgramIdentity {
  const plan = programPlan(spec, searchPath);
  const out: ProgramIdentity = plan.missing ? { missing: plan.missing } : {};
  const pin = (file: string): PinnedFile => {
    try {
      return { path: file, sha256: hashFileSync(file) };
    } catch (err) {
      return { path: file, sha256: `unreadable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
    }
  };
  if (plan.executable) out.executable = pin(plan.executable);
  if (plan.entry) out.entry = pin(plan.entry);
  if (plan.packageDir) {
    let meta: { name?: string; version?: string } = {};
    try {
      meta = JSON.parse(readFileSync(path.join(plan.packageDir, 'package.json'), 'utf8')) as typeof meta;
    } catch {}
    const files = packageFiles(plan.packageDir);
    out.package = { name: meta.name ?? path.basename(plan.packageDir), version: meta.version ?? '?', sha256: hashPackageSync(plan.packageDir, files), files: files.files.length, ...(files.capped ? { capped: true as const } : {}) };
  }
  if (plan.launcher) out.launcher = plan.launcher;
  return out;
}

/** The files `programIdentity` reads, hashed off the event loop first (a launch awaits this). */
export async function prewarmProgram(spec: StdioServerSpec, searchPath: string): Promise<void> {
  const plan = programPlan(spec, searchPath);
  const files = [plan.executable, plan.entry, ...(plan.packageDir ? packageFiles(plan.packageDir).files : [])].filter((f): f is string => !!f);
  for (const f of files) await hashFileAsync(f).catch(() => undefined);
}

/** The paths a sandbox must never let anyone rewrite for this server (its entry, its package, its executable). */
export function programPaths(spec: StdioServerSpec, searchPath: string): string[] {
  const plan = programPlan(spec, searchPath);
  return [plan.executable, plan.entry, plan.packageDir].filter((p): p is string => !!p);
}

/** One line for people: each part with a short hash (12 hex digits). */
export function describeProgram(p: ProgramIdentity): string {
  if (p.missing) return `not found (${p.missing})`;
  const short = (h: string) => (/^[0-9a-f]{64}$/.test(h) ? `sha256:${h.slice(0, 12)}` : h);
  const parts: string[] = [];
  if (p.executable) parts.push(`${p.executable.path} ${short(p.executable.sha256)}`);
  if (p.entry) parts.push(`entry ${p.entry.path} ${short(p.entry.sha256)}`);
  if (p.package) parts.push(`package ${p.package.name}@${p.package.version} ${short(p.package.sha256)} (${p.package.files} files${p.package.capped ? ', capped' : ''})`);
  if (p.launcher) parts.push(`launcher ${p.launcher}`);
  return parts.join(' · ') || '(nothing resolved)';
}

/** What differs between two program identities, with short hashes: `entry /ws/b.js sha256:1a2b… → sha256:3c4d…`. */
export function programChange(before: ProgramIdentity | undefined, after: ProgramIdentity | undefined): string {
  const short = (h: string | undefined) => (h && /^[0-9a-f]{64}$/.test(h) ? `sha256:${h.slice(0, 12)}` : (h ?? 'none'));
  const parts: string[] = [];
  for (const key of ['executable', 'entry'] as const) {
    const a = before?.[key];
    const b = after?.[key];
    if (a?.path === b?.path && a?.sha256 === b?.sha256) continue;
    const where = a?.path === b?.path ? (b?.path ?? '') : `${a?.path ?? 'none'} → ${b?.path ?? 'none'}`;
    parts.push(`${key} ${where} ${short(a?.sha256)} → ${short(b?.sha256)}`);
  }
  const pa = before?.package;
  const pb = after?.package;
  if (pa?.sha256 !== pb?.sha256 || pa?.version !== pb?.version) {
    parts.push(`package ${pa ? `${pa.name}@${pa.version}` : 'none'} ${short(pa?.sha256)} → ${pb ? `${pb.name}@${pb.version}` : 'none'} ${short(pb?.sha256)}`);
  }
  if (before?.launcher !== after?.launcher) parts.push(`launcher ${before?.launcher ?? 'none'} → ${after?.launcher ?? 'none'}`);
  if (before?.missing !== after?.missing) parts.push(before?.missing ? `was ${before.missing}` : `now ${after?.missing}`);
  return parts.join('; ');
}

/** The PATH a launch searches (supervisor.ts uses the same): the login shell's, ours, Gatehouse's node_modules/.bin. */
export function launchSearchPath(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return resolveSearchPath({ env, extraDirs: [path.join(appRoot(), 'node_modules', '.bin')] });
}
