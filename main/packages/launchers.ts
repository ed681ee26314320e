// Package launchers in a server's command (docs/packages.md): `npx -y pkg`, `pnpx pkg`,
// `bunx pkg`, `uvx pkg`, `uvx --from pkg cmd`, `pipx run pkg`, `pipx run --spec pkg cmd`.
// Run as written, each fetches the package at every start, with the network: inside a
// sandbox with `network: none` it hangs on retries. This module only reads the argv; what it
// names is installed once, outside the sandbox, by package-cache.ts.
import path from 'node:path';

export type Ecosystem = 'npm' | 'pypi';

export interface LauncherRequest {
  /** The launcher as written (`npx`, `uvx`…). */
  tool: 'npx' | 'pnpx' | 'bunx' | 'uvx' | 'pipx';
  ecosystem: Ecosystem;
  /** The package specifier as written (`@scope/pkg`, `pkg@1.2.3`, `pkg==1.0`, `pkg>=1`). */
  spec: string;
  /** The package's name (`@scope/pkg`, `pkg`). */
  name: string;
  /** An exact version, when the specifier pins one. */
  version?: string;
  /** The program of the package to run (npm: a `bin` name; PyPI: a console script); default the package's own name. */
  bin?: string;
  /** The arguments after the package (or the program). */
  rest: string[];
}

/** npx/pnpx/bunx options that take a value (so it is not taken for the package). */
const NPX_VALUE = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache', '--userconfig', '--node-options', '--workspace', '-w']);
/** uvx / pipx run options that take a value. */
const PY_VALUE = new Set(['--from', '--spec', '--with', '-w', '--python', '-p', '--index-url', '-i', '--extra-index-url', '--index', '--default-index', '--pip-args', '--cache-dir', '--directory', '--refresh-package', '--reinstall-package']);

/** `@scope/pkg@1.2.3` → name `@scope/pkg`, version `1.2.3` (only an exact x.y.z[-pre] counts as pinned). */
export function npmSpec(spec: string): { name: string; version?: string } {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  if (at <= 0) return { name: spec };
  const version = spec.slice(at + 1);
  return { name: spec.slice(0, at), ...(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version) ? { version } : {}) };
}

/** `pkg==1.2.3` → name `pkg`, version `1.2.3`; `pkg[extra]>=1` → name `pkg`. */
export function pypiSpec(spec: string): { name: string; version?: string } {
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(==\s*([0-9][^,;\s]*))?/.exec(spec);
  if (!m) return { name: spec };
  return { name: m[1]!, ...(m[4] && !spec.slice(m[0].length).trim() ? { version: m[4] } : {}) };
}

function isNpmName(name: string): boolean {
  return /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name);
}

/** What a launcher command names, or undefined when the command is not one (or names no registry package). */
export function parseLauncher(command: string, args: readonly string[]): LauncherRequest | undefined {
  const tool = path.basename(command).replace(/\.(cmd|exe)$/i, '');
  if (tool === 'npx' || tool === 'pnpx' || tool === 'bunx') {
    let pkg: string | undefined;
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--') {
        i++;
        break;
      }
      if (a === '-p' || a === '--package') {
        pkg ??= args[++i];
        continue;
      }
      if (a.startsWith('--package=')) {
        pkg ??= a.slice('--package='.length);
        continue;
      }
      if (NPX_VALUE.has(a)) {
        i++;
        continue;
      }
      if (a.startsWith('-')) continue;
      break;
    }
    const operand = args[i];
    if (operand === undefined) return undefined;
    // With -p, the operand is the program (a bin of that package); without, the package itself.
    const spec = pkg ?? operand;
    const { name, version } = npmSpec(spec);
    if (!isNpmName(name)) return undefined; // a path, a URL, a git spec: not a registry package
    return { tool, ecosystem: 'npm', spec, name, ...(version ? { version } : {}), ...(pkg ? { bin: operand } : {}), rest: args.slice(i + 1) };
  }
  if (tool === 'uvx' || tool === 'pipx') {
    let list = [...args];
    if (tool === 'pipx') {
      if (list[0] !== 'run') return undefined;
      list = list.slice(1);
    }
    let from: string | undefined;
    let i = 0;
    for (; i < list.length; i++) {
      const a = list[i]!;
      if (a === '--from' || a === '--spec') {
        from = list[++i];
        continue;
      }
      if (PY_VALUE.has(a)) {
        i++;
        continue;
      }
      if (a.startsWith('-')) continue;
      break;
    }
    const operand = list[i];
    if (operand === undefined) return undefined;
    // `uvx pkg@1.2.3` pins like `==` does.
    const spec = from ?? operand.replace(/@(\d[^@]*)$/, '==$1');
    const { name, version } = pypiSpec(spec);
    const bin = from ? operand : name;
    return { tool, ecosystem: 'pypi', spec, name, ...(version ? { version } : {}), bin: bin.replace(/@.*$/, ''), rest: list.slice(i + 1) };
  }
  return undefined;
}
