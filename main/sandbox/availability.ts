// Can this machine give a process the sandbox a profile asks for? Asked once per bwrap path and
// cached: the answer does not change while Gatehouse runs, and the probe costs a fork.
//
// Linux: bubblewrap must exist and be able to create every namespace we use. "Present" is not
// enough: Ubuntu 24.04's AppArmor (kernel.apparmor_restrict_unprivileged_userns) and some
// container runtimes refuse user namespaces, and bwrap then fails on the first real server with
// "setting up uid map: Permission denied". So the probe runs the same namespaces a server gets.
// Where it fails, the reduced `landlock` kind (native/landlock, docs/sandbox.md "Sandbox kinds")
// runs instead when the kernel has Landlock: probed once too, by the launcher itself restricting
// itself. Neither: fail closed with both reasons. GATEHOUSE_SANDBOX_KIND=bubblewrap|landlock
// forces one (a forced kind that is not available fails closed, never falls back).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { appRoot } from '../paths';

export type SandboxAvailability =
  | { ok: true; platform: 'linux'; kind: 'bubblewrap'; bwrap: string; /** bwrap ≥ 0.8: nested user namespaces can be refused. */ disableUserns: boolean }
  | {
      ok: true;
      platform: 'linux';
      kind: 'landlock';
      launcher: string;
      abi: number;
      /** Why not bubblewrap (its probe's reason, or the forcing variable). */
      notBubblewrap: string;
    }
  | { ok: true; platform: 'darwin'; kind: 'seatbelt'; sandboxExec: string }
  | { ok: false; reason: string; fix: string };

type BwrapProbe = { ok: true; bwrap: string; disableUserns: boolean } | { ok: false; reason: string; fix: string };
type LandlockProbe = { ok: true; launcher: string; abi: number } | { ok: false; launcher: string; reason: string };

const DEFAULT_BWRAP = '/usr/bin/bwrap';
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
const cache = new Map<string, SandboxAvailability>();
const bwrapCache = new Map<string, BwrapProbe>();
const landlockCache = new Map<string, LandlockProbe>();

/** The landlock launcher: GATEHOUSE_LANDLOCK (tests), else the one scripts/build-native.mjs built. */
export function landlockLauncherPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEHOUSE_LANDLOCK) return env.GATEHOUSE_LANDLOCK;
  let root: string;
  try {
    root = appRoot();
  } catch {
    // A standalone bundle outside the package (tests/fixtures/sandbox/run-sandboxed.ts): no launcher.
    return path.join('/nonexistent', 'gatehouse-package-root', 'native', 'landlock', 'build', 'gatehouse-landlock');
  }
  return path.join(root, 'native', 'landlock', 'build', 'gatehouse-landlock').replace(`${path.sep}app.asar${path.sep}`, `${path.sep}app.asar.unpacked${path.sep}`);
}

/** The bwrap binary: GATEHOUSE_BWRAP (tests point it at a missing file), else Debian's path. */
export function bwrapPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.GATEHOUSE_BWRAP || DEFAULT_BWRAP;
}

export const OFF_FIX = 'or, to run this process unconfined on purpose, set `sandbox: off` for it in the profile';

export function sandboxAvailability(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SandboxAvailability {
  if (platform === 'darwin') {
    const hit = cache.get(`darwin:${SANDBOX_EXEC}`);
    if (hit) return hit;
    const result: SandboxAvailability = existsSync(SANDBOX_EXEC)
      ? { ok: true, platform: 'darwin', kind: 'seatbelt', sandboxExec: SANDBOX_EXEC }
      : { ok: false, reason: `${SANDBOX_EXEC} not found`, fix: `sandbox-exec ships with macOS; ${OFF_FIX}` };
    cache.set(`darwin:${SANDBOX_EXEC}`, result);
    return result;
  }
  if (platform !== 'linux') {
    return { ok: false, reason: `no OS sandbox for ${platform} yet`, fix: `set \`sandbox: off\` for this process in the profile (it then runs unconfined)` };
  }
  const forced = env.GATEHOUSE_SANDBOX_KIND || '';
  const bwrap = bwrapPath(env);
  const key = `linux:${forced}:${bwrap}:${env.GATEHOUSE_LANDLOCK ?? ''}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = selectLinuxKind(forced, bwrap, () => landlockLauncherPath(env));
  cache.set(key, result);
  return result;
}

function selectLinuxKind(forced: string, bwrap: string, launcher: () => string): SandboxAvailability {
  if (forced && forced !== 'bubblewrap' && forced !== 'landlock') {
    return { ok: false, reason: `GATEHOUSE_SANDBOX_KIND must be bubblewrap or landlock, found '${forced}'`, fix: 'unset GATEHOUSE_SANDBOX_KIND or set it to bubblewrap or landlock' };
  }
  if (forced !== 'landlock') {
    const b = cachedBwrap(bwrap);
    if (b.ok) return { ok: true, platform: 'linux', kind: 'bubblewrap', bwrap: b.bwrap, disableUserns: b.disableUserns };
    if (forced === 'bubblewrap') return { ok: false, reason: `${b.reason} (GATEHOUSE_SANDBOX_KIND=bubblewrap refuses the reduced landlock kind)`, fix: b.fix };
    const l = cachedLandlock(launcher());
    if (l.ok) return { ok: true, platform: 'linux', kind: 'landlock', launcher: l.launcher, abi: l.abi, notBubblewrap: b.reason };
    return { ok: false, reason: `${b.reason}; and the reduced landlock sandbox is not available either: ${l.reason}`, fix: b.fix };
  }
  const l = cachedLandlock(launcher());
  if (l.ok) return { ok: true, platform: 'linux', kind: 'landlock', launcher: l.launcher, abi: l.abi, notBubblewrap: 'GATEHOUSE_SANDBOX_KIND=landlock' };
  return { ok: false, reason: `the landlock sandbox (forced by GATEHOUSE_SANDBOX_KIND=landlock) is not available: ${l.reason}`, fix: `unset GATEHOUSE_SANDBOX_KIND to use bubblewrap, ${OFF_FIX}` };
}

function cachedBwrap(bwrap: string): BwrapProbe {
  let hit = bwrapCache.get(bwrap);
  if (!hit) bwrapCache.set(bwrap, (hit = probeBwrap(bwrap)));
  return hit;
}

function cachedLandlock(launcher: string): LandlockProbe {
  let hit = landlockCache.get(launcher);
  if (!hit) landlockCache.set(launcher, (hit = probeLandlock(launcher)));
  return hit;
}

/**
 * Both Linux probes and the kind they select, without spawning a server (`gatehouse doctor`).
 * Cached like the selection: the first call runs each probe once.
 */
export function sandboxProbes(env: NodeJS.ProcessEnv = process.env): {
  bubblewrap: { path: string; ok: boolean; reason?: string; fix?: string };
  landlock: { launcher: string; ok: boolean; abi?: number; reason?: string };
  selected: SandboxAvailability;
} {
  const bwrap = bwrapPath(env);
  const launcher = landlockLauncherPath(env);
  const b = cachedBwrap(bwrap);
  const l = cachedLandlock(launcher);
  return {
    bubblewrap: b.ok ? { path: bwrap, ok: true } : { path: bwrap, ok: false, reason: b.reason, fix: b.fix },
    landlock: l.ok ? { launcher, ok: true, abi: l.abi } : { launcher, ok: false, reason: l.reason },
    selected: sandboxAvailability(env, 'linux'),
  };
}

/**
 * The launcher restricts itself with an empty Landlock ruleset and prints the kernel's ABI
 * (native/landlock/gatehouse-landlock.c, `--abi`): "the kernel has the syscall" is not enough where
 * a container's seccomp profile refuses landlock_restrict_self.
 */
function probeLandlock(launcher: string): LandlockProbe {
  if (!existsSync(launcher)) {
    return { ok: false, launcher, reason: `its launcher was not built (${launcher} is missing: \`npm install\` builds it with a C compiler, scripts/build-native.mjs)` };
  }
  const r = spawnSync(launcher, ['--abi'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) return { ok: false, launcher, reason: `its launcher ${launcher} could not run: ${r.error.message}` };
  const abi = Number((r.stdout ?? '').trim());
  if (r.status !== 0 || !Number.isInteger(abi) || abi < 1) {
    const said = (r.stderr ?? '').trim().split('\n').slice(-1)[0] || `exit code ${r.status}`;
    return { ok: false, launcher, reason: `the kernel gives no Landlock (${said}; needs Linux ≥ 5.13 with landlock in the boot's lsm= list)` };
  }
  return { ok: true, launcher, abi };
}

function probeBwrap(bwrap: string): BwrapProbe {
  const install = 'install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install bubblewrap`)';
  if (!existsSync(bwrap)) return { ok: false, reason: `bubblewrap not found at ${bwrap}`, fix: `${install}, ${OFF_FIX}` };
  const run = (extra: string[]) =>
    spawnSync(bwrap, ['--unshare-all', '--unshare-user', ...extra, '--cap-drop', 'ALL', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  let probe = run(['--disable-userns']);
  let disableUserns = true;
  if (probe.status !== 0 && /disable-userns/.test(probe.stderr ?? '')) {
    // bwrap before 0.8 does not know the option; everything else still holds.
    disableUserns = false;
    probe = run([]);
  }
  if (probe.error) return { ok: false, reason: `bubblewrap at ${bwrap} could not run: ${probe.error.message}`, fix: `${install}, ${OFF_FIX}` };
  if (probe.status !== 0) {
    const said = (probe.stderr ?? '').trim().split('\n').slice(-1)[0] || `exit code ${probe.status}`;
    return {
      ok: false,
      reason: `bubblewrap cannot create namespaces here (${said})`,
      fix: `allow unprivileged user namespaces (e.g. \`sysctl kernel.unprivileged_userns_clone=1\`, or on Ubuntu 24.04 an AppArmor profile for bwrap / \`sysctl kernel.apparmor_restrict_unprivileged_userns=0\`), ${OFF_FIX}`,
    };
  }
  return { ok: true, bwrap, disableUserns };
}

/** For tests that change GATEHOUSE_BWRAP between cases. */
export function forgetSandboxAvailability(): void {
  cache.clear();
  bwrapCache.clear();
  landlockCache.clear();
}
