#!/usr/bin/env node
// What this machine needs before Gatehouse runs (`npm start`) or its tests run (`npm test`): the
// one list. `npm test` runs it first (package.json `pretest`), `npm start` through
// scripts/start.mjs, `.ci/run` with --install. Plain Node and no dependencies: it runs before
// `npm ci` has installed anything.
//
//   node scripts/preflight.mjs test|start [--install] [--check] [--json]
//
// 1. The machine: bubblewrap (present, and able to create the namespaces a server gets), Chromium
//    for the end-to-end tests, a C toolchain and python3 for the native modules npm ci builds.
//    What is missing is said in one block with the exact command for this OS (read from
//    /etc/os-release: apt, dnf, pacman, zypper; brew on macOS). As root with the package manager
//    on PATH it installs it instead (no password to ask for: that is CI, .ci/run).
// 2. The packages: node_modules (npm ci, ELECTRON_SKIP_BINARY_DOWNLOAD=1 as CI does: the
//    Electron binary is fetched later by scripts/start.mjs, with progress) and, for `test`, each
//    tools/* package from its own lockfile. GATEHOUSE_NPM names the npm to run (the fresh-clone
//    test points it at a stand-in so CI does not download 400 packages twice).
// --check (or GATEHOUSE_NO_INSTALL=1): report only, never install. --json: one JSON line on stdout, the block still on stderr.
// Exit code 0 when everything needed is there, 1 otherwise.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_BWRAP = '/usr/bin/bwrap';

/** The first executable called `name` on PATH, if any. */
export function onPath(name, env = process.env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  return undefined;
}

/** The Chromium the Playwright tests drive: GATEHOUSE_CHROMIUM, else `chromium` on PATH. */
export function chromiumPath(env = process.env) {
  if (env.GATEHOUSE_CHROMIUM) return existsSync(env.GATEHOUSE_CHROMIUM) ? env.GATEHOUSE_CHROMIUM : undefined;
  return onPath('chromium', env) ?? onPath('chromium-browser', env);
}

/**
 * This OS and its package manager. Linux: /etc/os-release ID and ID_LIKE (os-release(5));
 * GATEHOUSE_OS_RELEASE reads another file (the tests name each distro's).
 */
export function detectOs(env = process.env, platform = process.platform) {
  if (platform === 'darwin') return { name: 'macOS', manager: 'brew' };
  if (platform !== 'linux') return { name: platform, manager: undefined };
  let text = '';
  try {
    text = readFileSync(env.GATEHOUSE_OS_RELEASE || '/etc/os-release', 'utf8');
  } catch {}
  const field = (k) => new RegExp(`^${k}=("?)(.*)\\1$`, 'm').exec(text)?.[2];
  const ids = [field('ID'), ...(field('ID_LIKE') ?? '').split(/\s+/)].filter(Boolean);
  const name = field('PRETTY_NAME') || field('NAME') || 'Linux';
  const has = (...want) => ids.some((id) => want.includes(id));
  const manager = has('debian', 'ubuntu') ? 'apt' : has('fedora', 'rhel', 'centos') ? 'dnf' : has('arch') ? 'pacman' : has('suse', 'opensuse') ? 'zypper' : undefined;
  return { name, manager };
}

/** The package names per manager; brew entries that are not formulae carry their own command. */
const PACKAGES = {
  bubblewrap: { apt: 'bubblewrap', dnf: 'bubblewrap', pacman: 'bubblewrap', zypper: 'bubblewrap' },
  chromium: { apt: 'chromium', dnf: 'chromium', pacman: 'chromium', zypper: 'chromium', brew: '--cask chromium' },
  toolchain: { apt: 'build-essential', dnf: 'gcc gcc-c++ make', pacman: 'base-devel', zypper: 'gcc gcc-c++ make', brew: { command: 'xcode-select --install' } },
  python3: { apt: 'python3', dnf: 'python3', pacman: 'python', zypper: 'python3', brew: 'python' },
};

/** The same namespaces main/sandbox/availability.ts probes before every server (keep them equal). */
function probeNamespaces(bwrap) {
  const run = (extra) =>
    spawnSync(bwrap, ['--unshare-all', '--unshare-user', ...extra, '--cap-drop', 'ALL', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  let r = run(['--disable-userns']);
  if (r.status !== 0 && /disable-userns/.test(r.stderr ?? '')) r = run([]);
  if (r.status === 0) return undefined;
  return r.error?.message ?? ((r.stderr ?? '').trim().split('\n').pop() || `exit code ${r.status}`);
}

/**
 * The one list. Each probe answers { ok: true, found } or { ok: false, reason, package?, fix? }:
 * `package` is installable with the OS's package manager, `fix` is what to do when it is not.
 */
export const PREREQUISITES = [
  {
    id: 'bubblewrap',
    title: 'bubblewrap',
    why: 'every MCP server and agent runs in it (docs/sandbox.md)',
    for: ['start', 'test'],
    platforms: ['linux'],
    probe(env) {
      const bwrap = env.GATEHOUSE_BWRAP || DEFAULT_BWRAP;
      const named = env.GATEHOUSE_BWRAP ? ` (GATEHOUSE_BWRAP)` : '';
      if (!existsSync(bwrap)) return { ok: false, reason: `not found at ${bwrap}${named}`, package: 'bubblewrap' };
      const refused = probeNamespaces(bwrap);
      if (refused) {
        return {
          ok: false,
          reason: `${bwrap} cannot create namespaces here (${refused})`,
          fix: 'allow unprivileged user namespaces for it: `gatehouse doctor` names the cause and `gatehouse doctor --fix` the AppArmor profile',
        };
      }
      return { ok: true, found: bwrap };
    },
  },
  {
    id: 'chromium',
    title: 'Chromium',
    why: 'the end-to-end tests drive it (playwright.config.ts)',
    for: ['test'],
    platforms: ['linux', 'darwin'],
    probe(env) {
      const found = chromiumPath(env);
      if (found) return { ok: true, found };
      const where = env.GATEHOUSE_CHROMIUM ? `not found at ${env.GATEHOUSE_CHROMIUM} (GATEHOUSE_CHROMIUM)` : 'no chromium on PATH (or set GATEHOUSE_CHROMIUM)';
      return { ok: false, reason: where, package: 'chromium' };
    },
  },
  {
    id: 'toolchain',
    title: 'a C toolchain (cc, c++, make)',
    why: 'npm ci builds native modules with node-gyp (native/peercred)',
    for: ['start', 'test'],
    // `npm start` needs it only to install; with node_modules there, it is not asked for.
    buildOnly: true,
    platforms: ['linux', 'darwin'],
    probe(env) {
      const missing = ['cc', 'c++', 'make'].filter((t) => !onPath(t, env));
      return missing.length === 0 ? { ok: true, found: onPath('cc', env) } : { ok: false, reason: `${missing.join(', ')} not on PATH`, package: 'toolchain' };
    },
  },
  {
    id: 'python3',
    title: 'python3',
    why: 'node-gyp runs it, and the symlink-race test drives renameat2 from it',
    for: ['start', 'test'],
    buildOnly: true,
    platforms: ['linux', 'darwin'],
    probe(env) {
      const found = onPath('python3', env);
      return found ? { ok: true, found } : { ok: false, reason: 'python3 not on PATH', package: 'python3' };
    },
  },
];

/** The command that installs these packages on this OS, as this user (sudo unless root). */
export function installCommand(ids, os, { root = process.getuid?.() === 0 } = {}) {
  const m = os.manager;
  if (!m) return undefined;
  const names = [];
  const extra = [];
  for (const id of ids) {
    const p = PACKAGES[id]?.[m];
    if (!p) continue;
    if (typeof p === 'object') extra.push(p.command);
    else names.push(p);
  }
  const sudo = root || m === 'brew' ? '' : 'sudo ';
  const pkgs = names.join(' ');
  const main = !pkgs
    ? undefined
    : m === 'apt'
      ? `${sudo}apt-get update && ${sudo}apt-get install -y ${pkgs}`
      : m === 'dnf'
        ? `${sudo}dnf install -y ${pkgs}`
        : m === 'pacman'
          ? `${sudo}pacman -S --needed ${pkgs}`
          : m === 'zypper'
            ? `${sudo}zypper install -y ${pkgs}`
            : `brew install ${pkgs}`;
  return [main, ...extra].filter(Boolean).join(' && ') || undefined;
}

/** The probes for one purpose on this platform: [{ prereq, result }]. `building`: npm ci will run. */
export function checkMachine(purpose, env = process.env, platform = process.platform, building = true) {
  return PREREQUISITES.filter((p) => p.for.includes(purpose) && p.platforms.includes(platform) && (building || purpose === 'test' || !p.buildOnly)).map((prereq) => ({
    prereq,
    result: prereq.probe(env),
  }));
}

/** The one block: what is missing, why it matters, and the command that installs it here. */
export function missingBlock(missing, os, opts = {}) {
  const lines = [`gatehouse: this machine (${os.name}) is missing what Gatehouse needs:`];
  for (const { prereq, result } of missing) lines.push(`  - ${prereq.title}: ${result.reason}; ${prereq.why}`);
  const installable = missing.filter((m) => m.result.package).map((m) => m.result.package);
  const command = installCommand(installable, os, opts);
  if (command) lines.push('install with:', `  ${command}`);
  else if (installable.length > 0) lines.push(`install with your package manager: ${installable.map((id) => PACKAGES[id].apt).join(', ')} (the Debian names)`);
  for (const { result } of missing) if (result.fix) lines.push(`then: ${result.fix}`);
  return lines.join('\n');
}

/**
 * Install what the OS package manager can, without asking for a password: only as root, with
 * the manager's own binary on PATH (CI, a container). Returns the ids it tried.
 */
function installAsRoot(missing, os, env, say) {
  if (process.getuid?.() !== 0 || os.manager !== 'apt' || !onPath('apt-get', env)) return [];
  // A bwrap named by GATEHOUSE_BWRAP is not where the package puts it: installing would not help.
  const ids = missing.filter((m) => m.result.package && !(m.prereq.id === 'bubblewrap' && env.GATEHOUSE_BWRAP)).map((m) => m.result.package);
  if (ids.length === 0) return [];
  const pkgs = ids.map((id) => PACKAGES[id].apt).join(' ').split(' ');
  say(`installing ${pkgs.join(' ')} (apt-get, as root)`);
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const opts = { env: aptEnv, stdio: ['ignore', 'ignore', 'inherit'] };
  spawnSync('apt-get', ['update', '-qq'], opts);
  spawnSync('apt-get', ['install', '-y', '-qq', ...pkgs], opts);
  return ids;
}

/** A package folder whose lockfile was never installed (npm writes node_modules/.package-lock.json). */
const notInstalled = (dir) => existsSync(path.join(dir, 'package-lock.json')) && !existsSync(path.join(dir, 'node_modules', '.package-lock.json'));

/** Folders under tools/ with a lockfile of their own (tools/conformance, inspector, node22…). */
function toolsPackages() {
  const dir = path.join(root, 'tools');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, 'package-lock.json')))
    .map((e) => path.join('tools', e.name));
}

/** `npm ci` in one folder (root when rel is '.'), output shown: npm's own progress. */
function npmCi(rel, env, say) {
  const npm = env.GATEHOUSE_NPM || (process.platform === 'win32' ? 'npm.cmd' : 'npm');
  const args = ['ci', '--no-audit', '--no-fund', ...(rel === '.' ? [] : ['--prefix', rel])];
  say(`installing ${rel === '.' ? "Gatehouse's dependencies" : rel} from its lockfile: ${path.basename(npm)} ${args.join(' ')}${rel === '.' ? ' (a few minutes the first time)' : ''}`);
  // Electron 45's postinstall would fetch its binary from outside the registry (.ci/run cannot);
  // scripts/start.mjs fetches it when a window can open, with progress.
  const r = spawnSync(npm, args, { cwd: root, env: { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, stdio: ['ignore', 2, 2] });
  if (r.status === 0) return undefined;
  return `\`npm ${args.join(' ')}\` failed (${r.error?.message ?? `exit code ${r.status}`}); run it by hand to see why`;
}

/**
 * Everything for one purpose. Returns { ok, blocked, missing: [{id, reason}], installed, block? }.
 * `blocked`: nothing further can work (the tests, or an install without a toolchain); `npm start`
 * without bubblewrap is not blocked: the app opens and says the block, its servers cannot start.
 * `say` gets progress lines; the block (when something is missing) is returned, not said.
 */
export function preflight({ purpose, install: wanted = true, env = process.env, say = (l) => process.stderr.write(`gatehouse: ${l}\n`), packages = true } = {}) {
  // GATEHOUSE_NO_INSTALL=1: report only, whoever asked (npm start, npm test, .ci/run).
  const install = wanted && env.GATEHOUSE_NO_INSTALL !== '1';
  const os = detectOs(env);
  const building = notInstalled(root);
  const check = () => checkMachine(purpose, env, process.platform, building);
  let results = check();
  let missing = results.filter((r) => !r.result.ok);
  const installed = [];
  if (missing.length > 0 && install) {
    const tried = installAsRoot(missing, os, env, say);
    if (tried.length > 0) {
      installed.push(...tried);
      results = check();
      missing = results.filter((r) => !r.result.ok);
    }
  }
  const out = { ok: missing.length === 0, os, purpose, found: results.filter((r) => r.result.ok).map((r) => ({ id: r.prereq.id, at: r.result.found })), missing: missing.map((m) => ({ id: m.prereq.id, reason: m.result.reason })), installed };
  const blocked = missing.some((m) => purpose === 'test' || m.prereq.buildOnly);
  if (missing.length > 0) out.block = missingBlock(missing, os);
  // Stop here, before npm downloads anything: what is missing is said in seconds.
  if (blocked) return { ...out, blocked };
  if (!packages) return { ...out, blocked };
  const folders = ['.', ...(purpose === 'test' ? toolsPackages() : [])].filter((rel) => notInstalled(path.join(root, rel)));
  for (const rel of folders) {
    if (!install) {
      out.missing.push({ id: `npm:${rel}`, reason: `${rel === '.' ? 'node_modules' : `${rel}/node_modules`} is not installed (npm ci${rel === '.' ? '' : ` --prefix ${rel}`})` });
      continue;
    }
    const failed = npmCi(rel, env, say);
    if (failed) return { ...out, ok: false, blocked: true, missing: [...out.missing, { id: `npm:${rel}`, reason: failed }], block: [out.block, `gatehouse: ${failed}`].filter(Boolean).join('\n') };
    installed.push(`npm:${rel}`);
  }
  out.ok = out.missing.length === 0;
  return { ...out, blocked: false };
}

// Run as a script only: main/doctor/ imports this file's exports, and a bundle (out/) must not run it.
if (process.argv[1] && path.basename(process.argv[1]) === 'preflight.mjs' && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const purpose = argv.find((a) => !a.startsWith('-')) ?? 'test';
  if (purpose !== 'test' && purpose !== 'start') {
    process.stderr.write(`preflight: expected test or start, got '${purpose}'\n`);
    process.exit(2);
  }
  const started = Date.now();
  const r = preflight({ purpose, install: !argv.includes('--check') });
  if (r.block) process.stderr.write(`${r.block}\n`);
  else if (!r.ok) process.stderr.write(`gatehouse: not installed: ${r.missing.map((m) => m.reason).join('; ')}\n`);
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ ok: r.ok, purpose, os: r.os, found: r.found, missing: r.missing, installed: r.installed, ms: Date.now() - started })}\n`);
  process.exit(r.ok ? 0 : 1);
}
