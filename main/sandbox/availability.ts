// Can this machine give a process the sandbox a profile asks for? Asked once per bwrap path and
// cached: the answer does not change while Gatehouse runs, and the probe costs a fork.
//
// Linux: bubblewrap must exist and be able to create every namespace we use. "Present" is not
// enough: Ubuntu 24.04's AppArmor (kernel.apparmor_restrict_unprivileged_userns) and some
// container runtimes refuse user namespaces, and bwrap then fails on the first real server with
// "setting up uid map: Permission denied". So the probe runs the same namespaces a server gets.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type SandboxAvailability =
  | { ok: true; platform: 'linux'; bwrap: string; /** bwrap ≥ 0.8: nested user namespaces can be refused. */ disableUserns: boolean }
  | { ok: true; platform: 'darwin'; sandboxExec: string }
  | { ok: false; reason: string; fix: string };

const DEFAULT_BWRAP = '/usr/bin/bwrap';
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
const cache = new Map<string, SandboxAvailability>();

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
      ? { ok: true, platform: 'darwin', sandboxExec: SANDBOX_EXEC }
      : { ok: false, reason: `${SANDBOX_EXEC} not found`, fix: `sandbox-exec ships with macOS; ${OFF_FIX}` };
    cache.set(`darwin:${SANDBOX_EXEC}`, result);
    return result;
  }
  if (platform !== 'linux') {
    return { ok: false, reason: `no OS sandbox for ${platform} yet`, fix: `set \`sandbox: off\` for this process in the profile (it then runs unconfined)` };
  }
  const bwrap = bwrapPath(env);
  const hit = cache.get(bwrap);
  if (hit) return hit;
  const result = probeBwrap(bwrap);
  cache.set(bwrap, result);
  return result;
}

function probeBwrap(bwrap: string): SandboxAvailability {
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
  return { ok: true, platform: 'linux', bwrap, disableUserns };
}

/** For tests that change GATEHOUSE_BWRAP between cases. */
export function forgetSandboxAvailability(): void {
  cache.clear();
}
