// The `landlock` sandbox kind (docs/sandbox.md "Sandbox kinds"): where bubblewrap cannot create
// namespaces, the command runs under native/landlock/gatehouse-landlock, which confines itself
// (setsid, PR_SET_PDEATHSIG, no_new_privs, Landlock file and TCP rules, the seccomp filter,
// rlimits) and execs it. The same mount plan decides the grants as for bubblewrap
// (landlock-rules.ts turns it into rules); what this kind cannot give is returned in `unenforced`
// and shown wherever the sandbox is. `network allow` goes through the same filtering proxy as
// under bubblewrap, on a host loopback port (landlock-proxy.ts).
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { landlockRuleArgs, landlockRules } from './landlock-rules';
import { withPrelude } from './launch-prelude';
import { openLandlockProxy, type LandlockProxy } from './landlock-proxy';
import { mountPlan } from './mount-plan';
import { sandboxSeccomp } from './seccomp';
import type { SandboxSpec } from './types';
import { outerLimits, proxyEnv, SandboxUnavailableError, type SandboxedCommand, type SandboxLaunchInput } from './launch-contract';
import { planLimits, type LimitsPlan } from './limits';

/** Landlock ABI that added TCP port rules (Linux 6.7) and abstract-socket / signal scoping (6.12). */
export const LANDLOCK_ABI_NET = 4;
export const LANDLOCK_ABI_IOCTL_DEV = 5;
export const LANDLOCK_ABI_SCOPE = 6;

export interface LandlockAvailable {
  launcher: string;
  abi: number;
}

/**
 * The seccomp program a landlock run gets: the same one bubblewrap gets (seccomp.ts: TIOCSTI and
 * TIOCLINUX always, address families under `none`, AF_VSOCK otherwise). Its NETLINK_ROUTE
 * allowance reads the host's interfaces here (no network namespace), read-only: the launcher
 * drops every capability first, CAP_NET_ADMIN included (checked with capget).
 */
function landlockSeccomp(spec: SandboxSpec): Buffer | undefined {
  return sandboxSeccomp({ network: spec.network });
}

/** What this kind could not enforce for this spec, one line each (Servers view, audit, log line). */
export function landlockUnenforced(spec: SandboxSpec, abi: number, opts: { hasSeccomp: boolean; ports: number[]; proxyPort?: number }): string[] {
  const out = [
    'landlock: reduced — no PID namespace: the host\'s processes are listed in /proc (their command lines; not their environment or memory, which Landlock\'s ptrace rule refuses)',
    'no IPC or UTS namespace: System V IPC objects of this user are reachable',
    'no private /tmp: /tmp is not visible at all; TMPDIR is a private folder removed when the run ends',
    'lifetime: no PID namespace: if Gatehouse is killed, the server\'s main process dies (PR_SET_PDEATHSIG) but its children may outlive it, and a setsid daemon can leave the process group an orderly stop signals',
    'named Unix sockets stay connectable by path (Landlock ABI ≤ 7 has no right for connect)',
  ];
  if (abi < LANDLOCK_ABI_SCOPE) out.push(`abstract Unix sockets and signals to the host's processes are not scoped (Landlock ABI ${abi} < 6, needs Linux 6.12)`);
  if (abi < LANDLOCK_ABI_IOCTL_DEV) out.push(`device ioctls (TIOCSTI on a terminal it opens) are not refused by Landlock (ABI ${abi} < 5, needs Linux 6.10)`);
  if (!opts.hasSeccomp) out.push(`no seccomp filter for ${process.arch}: ioctl(TIOCSTI) on an inherited terminal is not refused`);
  if (spec.network.kind === 'none') {
    out.push('network none: the host\'s network interfaces can be listed (NETLINK_ROUTE, read-only; no network namespace)');
    if (!opts.hasSeccomp) out.push(`network none: no seccomp filter here (${process.arch}${opts.ports.length === 0 ? ', or a pty that cannot pass it' : ''}): only TCP is refused (Landlock), not UDP or raw sockets`);
  } else {
    out.push(`network ${spec.network.kind}: TCP connect is limited to port${opts.ports.length === 1 ? '' : 's'} ${opts.ports.join(', ') || '(none)'} on any address, not to 127.0.0.1 (Landlock matches the port only)`);
    out.push(`network ${spec.network.kind}: UDP is not restricted (Landlock has TCP rules only)`);
    if (opts.proxyPort !== undefined) out.push(`network allow: the filtering proxy listens on the host's 127.0.0.1:${opts.proxyPort}, where other local processes can reach it too`);
  }
  return out;
}

export function prepareLandlock(input: SandboxLaunchInput, avail: LandlockAvailable, home: string, hostPorts: number[], allowHosts: string[] | undefined): SandboxedCommand {
  const { spec } = input;
  if (spec.network.kind !== 'none' && avail.abi < LANDLOCK_ABI_NET) {
    throw new SandboxUnavailableError(
      `network ${spec.network.kind} needs Landlock TCP rules (ABI 4, Linux 6.7); this kernel has ABI ${avail.abi}, so the ports could not be limited`,
      'allow unprivileged user namespaces for bubblewrap, use a newer kernel, or set `network: none` (or `sandbox: off`) for this process',
    );
  }
  const rules = mountPlan(spec, { workspace: input.workspace, dataDir: input.dataDir, home, env: input.hostEnv, internalRead: input.internalRead });
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-ll-tmp-'));
  let filter: { fd: number; dir: string; file: string } | undefined;
  let proxy: LandlockProxy | undefined;
  let plan: LimitsPlan | undefined;
  try {
    const env: Record<string, string> = { ...input.env, TMPDIR: tmpDir };
    if (allowHosts) {
      proxy = openLandlockProxy({ hosts: allowHosts, nodePath: input.nodePath, log: input.log });
      Object.assign(env, proxyEnv(`http://127.0.0.1:${proxy.port}`));
    }
    const ports = [...new Set([...hostPorts, ...(proxy ? [proxy.port] : [])])];
    const program = landlockSeccomp(spec);
    if (program) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-seccomp-'));
      const file = path.join(dir, 'filter.bpf');
      writeFileSync(file, program, { mode: 0o600 });
      filter = { fd: input.canPassFds === false ? -1 : openSync(file, 'r'), dir, file };
    }
    // Limits as for `sandbox: off` (limits.ts): the run's own cgroup where one can be had, else an
    // address-space ceiling only; no RLIMIT_NPROC, which without a user namespace of its own
    // would count every process of the user (a desktop has hundreds).
    plan = planLimits({ limits: spec.limits, kind: 'landlock', hostEnv: input.hostEnv, ...input.limitsGroup });
    const args = [
      '--parent', String(process.pid),
      '--min-abi', String(avail.abi),
      ...landlockRuleArgs(landlockRules({ rules, tmpDir })),
      ...ports.flatMap((p) => ['--connect-tcp', String(p)]),
      ...(filter ? ['--seccomp', '3'] : []),
      '--', input.command, ...input.args,
    ];
    // A pty spawner cannot hand over fd 3: the prelude opens the filter as fd 3 instead.
    const launched = outerLimits(plan, withPrelude(avail.launcher, args, { ...plan.prelude, ...(filter && filter.fd < 0 ? { openFds: [{ fd: 3, file: filter.file }] } : {}) }));
    const opened = filter;
    const limits = plan;
    const openedProxy = proxy;
    return {
      command: launched.command,
      args: launched.args,
      env,
      sandboxed: true,
      kind: 'landlock',
      unenforced: [...landlockUnenforced(spec, avail.abi, { hasSeccomp: Boolean(filter), ports, proxyPort: proxy?.port }), ...limits.unenforced.map((l) => `limits: ${l}`)],
      limits: { mechanism: limits.mechanism, summary: limits.summary },
      watch: limits.watch,
      extraFds: opened && opened.fd >= 0 ? [opened.fd] : [],
      dispose: () => {
        limits.dispose();
        openedProxy?.close();
        rmSync(tmpDir, { recursive: true, force: true });
        if (opened) closeFilter(opened);
      },
    };
  } catch (err) {
    plan?.dispose();
    proxy?.close();
    rmSync(tmpDir, { recursive: true, force: true });
    if (filter) closeFilter(filter);
    throw err;
  }
}

function closeFilter(f: { fd: number; dir: string }): void {
  if (f.fd >= 0) {
    try {
      closeSync(f.fd);
    } catch {}
  }
  rmSync(f.dir, { recursive: true, force: true });
}
