// `gatehouse doctor`'s sandbox checks: can this machine give a server the OS sandbox docs/sandbox.md
// describes? Whether bwrap works is main/sandbox/availability.ts's answer (the same probe every
// launch relies on); this file adds why not, and the fix for this distro.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DoctorCheck } from '../../common/host-api-doctor';
import { bwrapPath, forgetSandboxAvailability, sandboxAvailability, sandboxProbes } from '../sandbox/availability';
import { detectOs, installCommand, onPath, type DetectedOs } from '../../scripts/preflight.mjs';
import { APPARMOR_PROFILE_FILE } from './apparmor-profile';

export interface SandboxCheckOptions {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Where the sysctls are read (GATEHOUSE_SYSCTL_DIR in tests; /proc/sys otherwise). */
  sysctlDir?: string;
}

function sysctl(dir: string, name: string): string | undefined {
  try {
    return readFileSync(path.join(dir, ...name.split('.')), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The message Ubuntu's AppArmor restriction (kernel.apparmor_restrict_unprivileged_userns=1) makes bwrap say. */
const UID_MAP_DENIED = /setting up uid map: Permission denied|uid map.*Permission denied/i;

/**
 * Why bwrap could not create its namespaces, and the fix, from the sysctls that decide it (read in
 * the order the kernel applies them): user namespaces off entirely, Debian's old switch, then
 * AppArmor's restriction (Ubuntu 23.10+), which is the one that answers "setting up uid map:
 * Permission denied".
 */
function diagnoseUserns(said: string, sysctlDir: string, bwrap: string, detected: DetectedOs): { cause: string; fix: string } {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  if (sysctl(sysctlDir, 'user.max_user_namespaces') === '0') {
    return { cause: 'user namespaces are off (user.max_user_namespaces = 0)', fix: `${sudo}sysctl -w user.max_user_namespaces=15000 (and the same line in /etc/sysctl.d/ to keep it)` };
  }
  if (sysctl(sysctlDir, 'kernel.unprivileged_userns_clone') === '0') {
    return { cause: 'unprivileged user namespaces are off (kernel.unprivileged_userns_clone = 0)', fix: `${sudo}sysctl -w kernel.unprivileged_userns_clone=1 (and the same line in /etc/sysctl.d/ to keep it)` };
  }
  const restrict = sysctl(sysctlDir, 'kernel.apparmor_restrict_unprivileged_userns');
  const apparmorFix = `\`gatehouse doctor --fix\` shows (and with --apply installs, asking for your password) an AppArmor profile that allows user namespaces for ${bwrap} only (${APPARMOR_PROFILE_FILE}, as Ubuntu does for its own bwrap users); or, for every program, ${sudo}sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`;
  if (restrict === '1') return { cause: 'AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)', fix: apparmorFix };
  if (UID_MAP_DENIED.test(said)) {
    return {
      cause: `"${said}" is what AppArmor's kernel.apparmor_restrict_unprivileged_userns = 1 makes bwrap say (Ubuntu 23.10 and later)${restrict === undefined ? '; that sysctl is not readable here, so it may also be a container runtime refusing user namespaces' : ''}`,
      fix: restrict === undefined && detected.manager !== 'apt' ? `${apparmorFix}; in a container, run it with user namespaces allowed` : apparmorFix,
    };
  }
  return { cause: `bwrap said: ${said}`, fix: `allow unprivileged user namespaces for ${bwrap} (\`gatehouse doctor --fix\` for AppArmor), or set \`sandbox: off\` per server in the profile` };
}

/** Landlock's ABI: the kernel's own answer (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION), else a guess. */
function landlockAbi(env: NodeJS.ProcessEnv): { abi?: number; how: string } {
  // Node cannot make a raw syscall without a native addon; python3 (a prerequisite, scripts/
  // preflight.mjs) can, through ctypes. 444 is landlock_create_ruleset on every architecture
  // that uses the generic syscall table (x86_64 and arm64 alike).
  const python = onPath('python3', env);
  if (python && (process.arch === 'x64' || process.arch === 'arm64')) {
    const code = 'import ctypes;l=ctypes.CDLL(None,use_errno=True);r=l.syscall(444,None,ctypes.c_size_t(0),ctypes.c_uint32(1));print(r if r>=0 else -ctypes.get_errno())';
    const r = spawnSync(python, ['-c', code], { encoding: 'utf8', timeout: 10_000, env: { PATH: env.PATH ?? '' } });
    const n = Number((r.stdout ?? '').trim());
    if (r.status === 0 && Number.isInteger(n)) {
      if (n > 0) return { abi: n, how: 'landlock_create_ruleset version query' };
      // EOPNOTSUPP (95): built in but disabled at boot; ENOSYS (38): not built in.
      return { how: n === -95 ? 'the kernel has Landlock but it is disabled (lsm= boot parameter)' : n === -38 ? 'this kernel has no Landlock' : `landlock_create_ruleset failed (errno ${-n})` };
    }
  }
  let lsm: string | undefined;
  try {
    lsm = readFileSync('/sys/kernel/security/lsm', 'utf8');
  } catch {}
  if (lsm !== undefined && !lsm.split(',').includes('landlock')) return { how: `Landlock is not among the active LSMs (${lsm.trim()})` };
  // Kernel version → ABI (docs.kernel.org/userspace-api/landlock.html, "Previous limitations").
  const [major = 0, minor = 0] = os.release().split('.').map((x) => parseInt(x, 10));
  const v = major * 100 + minor;
  const table: Array<[number, number]> = [[615, 7], [613, 6], [610, 5], [607, 4], [602, 3], [519, 2], [513, 1]];
  const abi = table.find(([k]) => v >= k)?.[1];
  return { abi, how: `guessed from kernel ${os.release()}${lsm === undefined ? ' (/sys/kernel/security/lsm not readable)' : ''}` };
}

export function sandboxChecks(opts: SandboxCheckOptions): DoctorCheck[] {
  const { env, platform } = opts;
  const detected = detectOs(env, platform);
  if (platform === 'darwin') {
    const a = sandboxAvailability(env, platform);
    return [{ id: 'sandbox.seatbelt', title: 'macOS sandbox (sandbox-exec)', status: a.ok ? 'ok' : 'error', detail: a.ok ? 'sandbox-exec is present' : a.reason, ...(a.ok ? {} : { fix: a.fix }) }];
  }
  if (platform !== 'linux') return [{ id: 'sandbox.os', title: 'OS sandbox', status: 'error', detail: `no OS sandbox for ${platform} yet`, fix: 'set `sandbox: off` per server in the profile (it then runs unconfined)' }];
  const sysctlDir = opts.sysctlDir ?? env.GATEHOUSE_SYSCTL_DIR ?? '/proc/sys';
  const checks: DoctorCheck[] = [];
  const bwrap = bwrapPath(env);
  const present = existsSync(bwrap);
  const version = present ? (spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '').trim() : '';
  // Probed afresh: a fix applied since the host started must show as fixed.
  forgetSandboxAvailability();
  const probes = sandboxProbes(env);
  const selected = probes.selected;
  // Where bubblewrap cannot be had but the landlock kind can, servers still start, in a reduced
  // sandbox (docs/sandbox.md "Sandbox kinds"): bubblewrap's problems are warnings then, with the
  // same fix, not errors; with neither, nothing can start sandboxed and they are errors.
  const reduced = selected.ok && 'kind' in selected && selected.kind === 'landlock';
  const severity = reduced ? 'warning' : 'error';
  checks.push(
    present
      ? { id: 'sandbox.bwrap', title: 'bubblewrap', status: 'ok', detail: `${bwrap}${version ? ` (${version})` : ''}` }
      : {
          id: 'sandbox.bwrap',
          title: 'bubblewrap',
          status: severity,
          detail: `not found at ${bwrap}${env.GATEHOUSE_BWRAP ? ' (GATEHOUSE_BWRAP)' : ''}: ${reduced ? 'servers and agents get the reduced landlock sandbox' : 'no server or agent can start sandboxed'}`,
          fix: installCommand(['bubblewrap'], detected) ?? 'install bubblewrap with your package manager',
        },
  );
  const bwrapOk = present && probes.bubblewrap.ok;
  const restrict = sysctl(sysctlDir, 'kernel.apparmor_restrict_unprivileged_userns');
  if (present && !bwrapOk) {
    const reason = probes.bubblewrap.reason ?? '';
    const said = /\(([^)]*)\)\s*$/.exec(reason)?.[1] ?? reason;
    const d = diagnoseUserns(said, sysctlDir, bwrap, detected);
    checks.push({ id: 'sandbox.userns', title: 'user namespaces', status: severity, detail: `bubblewrap cannot create namespaces: ${d.cause}`, fix: d.fix });
  } else if (bwrapOk) {
    checks.push({ id: 'sandbox.userns', title: 'user namespaces', status: 'ok', detail: 'bubblewrap created the namespaces a server gets' });
  }
  checks.push(
    restrict === '1'
      ? {
          id: 'sandbox.apparmor',
          title: 'AppArmor user-namespace restriction',
          status: bwrapOk ? 'ok' : severity,
          detail: bwrapOk ? 'kernel.apparmor_restrict_unprivileged_userns = 1, and a profile lets bwrap through' : 'kernel.apparmor_restrict_unprivileged_userns = 1: bwrap is refused user namespaces',
          ...(bwrapOk ? {} : { fix: '`gatehouse doctor --fix` (an AppArmor profile for bwrap only)' }),
        }
      : { id: 'sandbox.apparmor', title: 'AppArmor user-namespace restriction', status: 'ok', detail: restrict === '0' ? 'kernel.apparmor_restrict_unprivileged_userns = 0' : 'not in this kernel' },
  );
  // What a server started now gets (main/sandbox/availability.ts), said in one line.
  checks.push(
    !selected.ok
      ? { id: 'sandbox.kind', title: 'sandbox servers get', status: 'error', detail: `none: ${selected.reason}`, fix: selected.fix }
      : reduced
        ? { id: 'sandbox.kind', title: 'sandbox servers get', status: 'warning', detail: 'landlock: reduced — no PID/IPC isolation (docs/sandbox.md "Sandbox kinds")', fix: 'let bubblewrap create namespaces (the fixes above) for the full sandbox' }
        : { id: 'sandbox.kind', title: 'sandbox servers get', status: 'ok', detail: 'bubblewrap (full)' },
  );
  const ll = landlockAbi(env);
  checks.push(
    ll.abi
      ? { id: 'sandbox.landlock', title: 'Landlock', status: 'ok', detail: `ABI ${ll.abi} (${ll.how})` }
      : { id: 'sandbox.landlock', title: 'Landlock', status: 'warning', detail: `unavailable: ${ll.how}; only bubblewrap can confine servers here`, fix: 'a kernel 5.13 or newer with landlock in its lsm= list' },
  );
  const actions = sysctl(sysctlDir, 'kernel.seccomp.actions_avail');
  checks.push(
    actions?.split(/\s+/).includes('errno')
      ? { id: 'sandbox.seccomp', title: 'seccomp', status: 'ok', detail: `filters available (${actions})` }
      : { id: 'sandbox.seccomp', title: 'seccomp', status: 'warning', detail: 'seccomp filters are not available: `network: none` cannot also deny sockets by syscall', fix: 'a kernel built with CONFIG_SECCOMP_FILTER' },
  );
  return checks;
}
