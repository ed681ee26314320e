// Before a launch (and at import): every stdio server whose command is a package launcher gets
// its package from the cache (installed now if missing) and is rewritten to run the installed
// entry point (docs/packages.md). The rewritten command is what the sandbox runs and what the
// launch identity pins (main/trust/): the resolved version is in it, so a new version asks.
// A package that cannot be had (registry unreachable, no such package) stops only its server,
// with one line that says why; the others start.
import type { ResolvedProfile, ServerSpec, StdioServerSpec } from '../profiles/types';
import { parseLauncher, type LauncherRequest } from './launchers';
import { findInstalled, installPackage, packageCacheRoot, type InstalledPackage, type Runner } from './package-cache';

export interface PreparedPackages {
  profile: ResolvedProfile;
  /** Server id → why it cannot start (its package could not be installed). */
  problems: Map<string, string>;
  /** One line per server whose package came from the cache or was installed now. */
  notes: string[];
}

export interface PrepareOptions {
  env: NodeJS.ProcessEnv;
  searchPath: string;
  /** Progress lines ("files: installing @scope/pkg (npx) …"). */
  log?: (line: string) => void;
  /** false: use only what is cached (no network); a missing package is a problem. */
  install?: boolean;
}

function describe(p: InstalledPackage): string {
  return `${p.name}@${p.version}`;
}

/** The cached install of `req`, installed now when missing (and allowed); a string says why there is none. */
export async function ensurePackage(id: string, req: LauncherRequest, runner: Runner, opts: PrepareOptions): Promise<{ installed: InstalledPackage; fresh: boolean } | string> {
  const root = packageCacheRoot(opts.env);
  try {
    const cached = findInstalled(req, root, runner);
    if (cached) return { installed: cached, fresh: false };
    if (opts.install === false) return `${req.tool} package ${req.spec} is not in the package cache (${root}); launch once with the registry reachable`;
    opts.log?.(`${id}: installing ${req.spec} (${req.tool}) into the package cache ${root}`);
    const started = Date.now();
    const installed = await installPackage(req, { root, runner, env: opts.env });
    opts.log?.(`${id}: installed ${describe(installed)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { installed, fresh: true };
  } catch (err) {
    return `${req.tool} package ${req.spec} could not be installed: ${(err as Error).message}`;
  }
}

export async function preparePackages(profile: ResolvedProfile, opts: PrepareOptions): Promise<PreparedPackages> {
  const problems = new Map<string, string>();
  const notes: string[] = [];
  // Installs run side by side: a config of several npx servers waits for the slowest, not the sum.
  const servers = await Promise.all(
    profile.servers.map(async (spec): Promise<ServerSpec> => {
      const req = spec.kind === 'stdio' && !spec.disabled && spec.sandbox.mode !== 'off' ? parseLauncher(spec.command, spec.args) : undefined;
      if (!req || spec.kind !== 'stdio') return spec;
      const got = await ensurePackage(spec.id, req, { searchPath: opts.searchPath, cwd: spec.cwd }, opts);
      if (typeof got === 'string') {
        problems.set(spec.id, got);
        return spec;
      }
      const { installed } = got;
      if (got.fresh) notes.push(`${spec.id}: installed ${describe(installed)} (${req.tool}) into the package cache; it runs from there with no network.`);
      const rewritten: StdioServerSpec = {
        ...spec,
        command: installed.command,
        args: installed.args,
        env: { ...spec.env, ...installed.env },
        // The version folder holds the package and its dependencies: readable (never writable) in the sandbox.
        sandbox: { ...spec.sandbox, read: [...spec.sandbox.read, installed.dir] },
        launcher: { tool: req.tool, spec: req.spec, name: installed.name, version: installed.version, dir: installed.dir },
      };
      return rewritten;
    }),
  );
  return { profile: { ...profile, servers }, problems, notes };
}
