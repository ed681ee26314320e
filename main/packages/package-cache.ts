// The package cache (docs/packages.md): what a launcher (`npx pkg`, `uvx pkg`…) would fetch at
// every start is installed once, here, by Gatehouse, with the host's network and outside any
// sandbox, with install scripts off; the server then runs the installed entry point in its
// sandbox with no network. One folder per package version, written to a temporary folder and
// renamed into place, so two launches installing at once end with one whole copy.
//
// Where: $GATEHOUSE_PACKAGE_CACHE, else $XDG_CACHE_HOME/gatehouse/packages, else
// ~/.cache/gatehouse/packages. Not under the data directory: that one is hidden from every
// sandbox, and a server must read its own program.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { oneLine } from '../base/one-line';
import { resolveCommand } from '../sandbox/shell-path';
import type { LauncherRequest } from './launchers';

export interface InstalledPackage {
  ecosystem: LauncherRequest['ecosystem'];
  name: string;
  version: string;
  /** The version folder. */
  dir: string;
  /** What to run instead of the launcher. */
  command: string;
  args: string[];
  /** Variables the installed program needs (PyPI: PYTHONPATH). */
  env: Record<string, string>;
}

interface Marker {
  ecosystem: LauncherRequest['ecosystem'];
  name: string;
  version: string;
  /** The specifiers this install answered (`pkg`, `pkg@latest`, `pkg@^1`): a later launch with the same one reuses it offline. */
  requested: string[];
  installedAt: number;
}

const MARKER = 'gatehouse-package.json';
/** An install that takes longer than this is stopped (a registry that hangs). */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

export class PackageInstallError extends Error {}

export function packageCacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.GATEHOUSE_PACKAGE_CACHE) return path.resolve(env.GATEHOUSE_PACKAGE_CACHE);
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'gatehouse', 'packages');
}

function folderName(name: string, version: string): string {
  return `${name.replace(/\//g, '+')}@${version}`;
}

function readMarker(dir: string): Marker | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, MARKER), 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? -1;
    const y = pb[i] ?? -1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** An install of `req` already in the cache: the pinned version, or the newest install made for the same specifier. */
export function findInstalled(req: LauncherRequest, root: string, runner: Runner): InstalledPackage | undefined {
  const eco = path.join(root, req.ecosystem);
  if (req.version) {
    const dir = path.join(eco, folderName(req.name, req.version));
    const marker = readMarker(dir);
    return marker ? entryOf(req, dir, marker, runner) : undefined;
  }
  let best: { dir: string; marker: Marker } | undefined;
  let names: string[] = [];
  try {
    names = readdirSync(eco);
  } catch {}
  const prefix = `${req.name.replace(/\//g, '+')}@`;
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const dir = path.join(eco, n);
    const marker = readMarker(dir);
    if (!marker || marker.name !== req.name || !marker.requested.includes(req.spec)) continue;
    if (!best || compareVersions(marker.version, best.marker.version) > 0) best = { dir, marker };
  }
  return best ? entryOf(req, best.dir, best.marker, runner) : undefined;
}

/** How installed programs are started: the node (or bun, python) that runs them. */
export interface Runner {
  searchPath: string;
  cwd: string;
}

function find(program: string, runner: Runner): string {
  return resolveCommand(program, runner.searchPath, runner.cwd);
}

function nodeFor(runner: Runner): string {
  // Under the desktop app process.execPath is the app, not a node: use the user's.
  return process.versions.electron ? find('node', runner) : process.execPath;
}

/** The program the launcher would run, from the installed package's own metadata. */
function entryOf(req: LauncherRequest, dir: string, marker: Marker, runner: Runner): InstalledPackage {
  const base = { ecosystem: req.ecosystem, name: marker.name, version: marker.version, dir };
  if (req.ecosystem === 'pypi') {
    const lib = path.join(dir, 'lib');
    const script = path.join(lib, 'bin', req.bin ?? req.name);
    if (!existsSync(script)) throw new PackageInstallError(`${marker.name} ${marker.version} has no program '${req.bin ?? req.name}' (looked for ${script})`);
    return { ...base, command: find('python3', runner), args: [script, ...req.rest], env: { PYTHONPATH: lib } };
  }
  const pkgDir = path.join(dir, 'node_modules', ...marker.name.split('/'));
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const own = marker.name.split('/').pop()!;
  let rel: string | undefined;
  if (typeof pkg.bin === 'string') rel = pkg.bin;
  else if (pkg.bin) {
    const bins = Object.entries(pkg.bin);
    // As npx picks: the bin asked for, else the one named like the package, else the only one.
    rel = (req.bin ? pkg.bin[req.bin] : undefined) ?? pkg.bin[own] ?? (bins.length === 1 ? bins[0]![1] : undefined);
    if (!rel) throw new PackageInstallError(`${marker.name} has several programs (${bins.map(([k]) => k).join(', ')}); name one with npx -p ${marker.name} <program>`);
  }
  if (!rel) throw new PackageInstallError(`${marker.name} ${marker.version} has no program to run (its package.json has no "bin")`);
  const entry = path.join(pkgDir, rel);
  const runtime = req.tool === 'bunx' ? find('bun', runner) : nodeFor(runner);
  return { ...base, command: runtime, args: [entry, ...req.rest], env: {} };
}

function run(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: opts.cwd, env: opts.env, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      // The last meaningful lines say why (npm ERR! code ENOTFOUND…; pip's "Could not find…").
      const lines = String(stderr)
        .split('\n')
        .map((l) => l.replace(/^(npm (ERR!|error)|ERROR:) /, '').trim())
        .filter((l) => l && !/^(A complete log|npm ERR! *$|\s*$)/.test(l) && !/^(WARNING|DEPRECATION)/.test(l));
      reject(new PackageInstallError(oneLine(lines.slice(0, 3).join(' · ') || (err as Error).message, 300)));
    });
  });
}

/** Installs `req` into the cache (network: the host's) and returns how to run it. */
export async function installPackage(req: LauncherRequest, opts: { root: string; runner: Runner; env: NodeJS.ProcessEnv }): Promise<InstalledPackage> {
  const eco = path.join(opts.root, req.ecosystem);
  mkdirSync(eco, { recursive: true });
  const tmp = path.join(eco, `.partial-${process.pid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(tmp);
  try {
    let version: string;
    if (req.ecosystem === 'npm') {
      const npm = find('npm', opts.runner);
      await run(
        npm,
        ['install', '--prefix', tmp, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--fetch-retries=1', '--loglevel=error', req.spec],
        { cwd: tmp, env: opts.env },
      );
      const meta = JSON.parse(readFileSync(path.join(tmp, 'node_modules', ...req.name.split('/'), 'package.json'), 'utf8')) as { version: string };
      version = meta.version;
    } else {
      const python = find('python3', opts.runner);
      const lib = path.join(tmp, 'lib');
      // --target: a plain folder, relocatable (a venv is not); run with PYTHONPATH=lib.
      await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--retries', '0', '--timeout', '15', '--target', lib, req.spec], { cwd: tmp, env: opts.env });
      const norm = req.name.toLowerCase().replace(/[-.]+/g, '_');
      const info = readdirSync(lib).find((n) => n.toLowerCase().startsWith(`${norm}-`) && n.endsWith('.dist-info'));
      version = info ? info.slice(norm.length + 1, -'.dist-info'.length) : (req.version ?? '0');
    }
    const final = path.join(eco, folderName(req.name, version));
    const existing = readMarker(final);
    const marker: Marker = { ecosystem: req.ecosystem, name: req.name, version, requested: [...new Set([...(existing?.requested ?? []), req.spec])], installedAt: existing?.installedAt ?? Date.now() };
    if (existing) {
      rmSync(tmp, { recursive: true, force: true });
    } else {
      writeFileSync(path.join(tmp, MARKER), JSON.stringify(marker, null, 2));
      try {
        renameSync(tmp, final);
      } catch (err) {
        // Another launch finished the same version first: theirs is whole, use it.
        if (!readMarker(final)) throw err;
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    writeFileSync(path.join(final, MARKER), JSON.stringify(marker, null, 2));
    return entryOf(req, final, marker, opts.runner);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
