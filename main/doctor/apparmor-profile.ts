// The AppArmor profile that lets Gatehouse's bwrap create user namespaces where
// kernel.apparmor_restrict_unprivileged_userns = 1 (Ubuntu 23.10+) refuses them. One text:
// resources/apparmor/gatehouse-bwrap, which the .deb/.rpm installs (resources/linux/after-install.sh)
// and `gatehouse doctor --fix` shows or, with --apply, installs with the person's password.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appRoot } from '../paths';
import { onPath } from '../../scripts/preflight.mjs';

export const APPARMOR_PROFILE_FILE = '/etc/apparmor.d/gatehouse-bwrap';

/** The profile for this bwrap binary (an absolute path; AppArmor attaches by path). */
export function apparmorProfile(bwrap: string): string {
  if (!path.isAbsolute(bwrap) || /[\s"{}]/.test(bwrap)) throw new Error(`the bwrap path must be absolute and plain to attach an AppArmor profile to it, got '${bwrap}'`);
  return readFileSync(path.join(appRoot(), 'resources', 'apparmor', 'gatehouse-bwrap'), 'utf8').replaceAll('@BWRAP@', bwrap);
}

/** The shell commands that install and load it (run as root). */
export function apparmorInstallCommands(source: string): string[] {
  return [`install -m 0644 ${source} ${APPARMOR_PROFILE_FILE}`, `apparmor_parser -r ${APPARMOR_PROFILE_FILE}`];
}

/**
 * Installs the profile: directly as root, else through pkexec (a graphical password prompt) when
 * there is a display, else sudo on this terminal. Returns what happened, for one line of output.
 */
export function applyApparmorProfile(bwrap: string, env: NodeJS.ProcessEnv = process.env): { ok: boolean; message: string } {
  if (!onPath('apparmor_parser', env) && !onPath('apparmor_parser', { PATH: '/usr/sbin:/sbin' })) {
    return { ok: false, message: 'apparmor_parser is not installed: this system does not use AppArmor, so the profile is not what refuses bwrap' };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-apparmor-'));
  try {
    const source = path.join(dir, 'gatehouse-bwrap');
    writeFileSync(source, apparmorProfile(bwrap), { mode: 0o644 });
    const script = apparmorInstallCommands(source).join(' && ');
    const root = process.getuid?.() === 0;
    const display = !!(env.DISPLAY || env.WAYLAND_DISPLAY);
    const elevate = root ? [] : display && onPath('pkexec', env) ? ['pkexec'] : onPath('sudo', env) ? ['sudo'] : undefined;
    if (!elevate) return { ok: false, message: `neither pkexec nor sudo is available: as root, run: ${script}` };
    const argv = [...elevate, 'sh', '-c', script];
    const r = spawnSync(argv[0]!, argv.slice(1), { stdio: 'inherit' });
    if (r.status !== 0) return { ok: false, message: `${argv[0]} ${argv.slice(1).join(' ')} failed (${r.error?.message ?? `exit code ${r.status}`})` };
    return { ok: true, message: `installed and loaded ${APPARMOR_PROFILE_FILE} for ${bwrap}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
