// The one entry point the spawn paths use (supervisor, built-in tools, agent terminals): a command
// and its sandbox spec in, the command line that runs it inside the OS sandbox out, with the host
// side (socket bridges, the egress proxy) opened and a dispose() that closes it when the run ends.
//
// Never silently unconfined: when the sandbox cannot be had, this throws SandboxUnavailableError
// with the reason and the fix; only `mode: 'off'` (an explicit `sandbox: off`) runs the command as
// it is.
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appRoot } from '../paths';
import { sandboxAvailability, type SandboxAvailability } from './availability';
import { bwrapArgs, SANDBOX_SOCKET_DIR } from './bwrap-args';
import { openHostBridges, type HostBridges } from './host-bridges';
import { mountPlan, SandboxConfigError } from './mount-plan';
import { seatbeltProfile } from './seatbelt-profile';
import type { LimitsMechanism, SandboxKind, SandboxSpec } from './types';
import { sandboxSeccomp } from './seccomp';
import { withPrelude, type PreludeSteps } from './launch-prelude';
import { planLimits, type LimitsPlan, type LimitsRequest } from './limits';
import { prepareLandlock } from './landlock-launch';

export class SandboxUnavailableError extends Error {
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`the OS sandbox is not available: ${reason}. Fix: ${fix}`);
  }
}

export interface SandboxLaunchInput {
  spec: SandboxSpec;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  workspace: string;
  dataDir: string;
  /** Decides HOME-relative hidden paths and XDG overrides; and GATEHOUSE_BWRAP. */
  hostEnv: NodeJS.ProcessEnv;
  /** The node that runs the in-sandbox forwarder (the host's own node outside Electron). */
  nodePath: string;
  /** Paths Gatehouse itself needs visible inside (e.g. an agent's generated config). */
  internalRead?: string[];
  /** Paths no grant may make writable (mount-plan.ts `protectedRead`). */
  protectedRead?: string[];
  /** Lines for the process's log (refused connections). */
  log?: (line: string) => void;
  platform?: NodeJS.Platform;
  /**
   * The caller can hand the child extra file descriptors (stdio[3…]); a pty cannot, so the
   * prelude opens the seccomp filter as fd 3 itself (launch-prelude.ts).
   */
  canPassFds?: boolean;
  /** Names the run's cgroup folder `gatehouse/<launch>/<name>` (limits.ts); defaults name the host process. */
  limitsGroup?: { launch: string; name: string };
}

export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  sandboxed: boolean;
  /** Which kind of sandbox this run got (docs/sandbox.md "Sandbox kinds"). */
  kind: SandboxKind;
  /** What this kind could not enforce for this spec, one line each for people (Servers view, audit). */
  unenforced: string[];
  /** How the spec's limits apply to this run. */
  limits: { mechanism: LimitsMechanism; summary: string };
  /**
   * Called with the child's pid right after spawn (cgroup bookkeeping); `onExceeded` fires once
   * when the run hits a cap (pids max, OOM kill) with the reason to show, so the supervisor
   * stops it and says why.
   */
  watch?(pid: number, onExceeded: (reason: string) => void): void;
  /** File descriptors the child must get as stdio[3], stdio[4]… (spawn's `stdio` array). */
  extraFds: number[];
  dispose(): void;
}

/** The in-sandbox forwarder (built by scripts/build.mjs). */
export function sandboxInitEntry(): string {
  return path.join(appRoot(), 'out', 'sandbox-init.mjs').replace(`${path.sep}app.asar${path.sep}`, `${path.sep}app.asar.unpacked${path.sep}`);
}

export function proxyEnv(url: string): Record<string, string> {
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    // Node ≥ 24 honours the variables above in fetch() only when asked (older Node ignores this).
    NODE_USE_ENV_PROXY: '1',
    // Gatehouse's own built-in tools (http_request) look for this one (main/tools/http-via-proxy.ts).
    GATEHOUSE_SANDBOX_PROXY: url,
  };
}

export function prepareSandbox(input: SandboxLaunchInput): SandboxedCommand {
  const { spec } = input;
  if (spec.mode === 'off') return unconfined(input.command, input.args, input.env, { limits: spec.limits, hostEnv: input.hostEnv, ...input.limitsGroup });
  const platform = input.platform ?? process.platform;
  const avail: SandboxAvailability = sandboxAvailability(input.hostEnv, platform);
  if (!avail.ok) throw new SandboxUnavailableError(avail.reason, avail.fix);
  const home = input.hostEnv.HOME || os.homedir();
  const hostPorts = spec.network.kind === 'none' ? [] : spec.hostPorts;
  const allowHosts = spec.network.kind === 'allow' ? spec.network.hosts : undefined;

  if (avail.platform === 'darwin') return prepareSeatbelt(input, avail.sandboxExec, home, hostPorts, allowHosts);
  // bubblewrap cannot create namespaces here (availability.ts): the reduced kind, never unconfined.
  if (avail.kind === 'landlock') return prepareLandlock(input, avail, home, hostPorts, allowHosts);

  const needsForwarder = hostPorts.length > 0 || allowHosts !== undefined;
  const init = needsForwarder ? sandboxInitEntry() : '';
  if (needsForwarder && !existsSync(init)) throw new Error(`the sandbox forwarder is missing at ${init}; run \`npm run build\``);
  const rules = mountPlan(spec, {
    workspace: input.workspace,
    dataDir: input.dataDir,
    home,
    env: input.hostEnv,
    internalRead: [...(input.internalRead ?? []), ...(needsForwarder ? [path.dirname(init)] : [])],
    protectedRead: input.protectedRead,
  });
  let bridges: HostBridges | undefined;
  const env: Record<string, string> = { ...input.env, TMPDIR: '/tmp' };
  let command = input.command;
  let args = input.args;
  if (needsForwarder) {
    bridges = openHostBridges({ hostPorts, allowHosts, log: input.log });
    const forwardArgs = bridges.forwards.flatMap((f) => ['--forward', `${f.port}=${SANDBOX_SOCKET_DIR}/${f.socketName}`]);
    args = [init, ...forwardArgs, '--', command, ...args];
    command = input.nodePath;
    if (bridges.proxyPort !== undefined) Object.assign(env, proxyEnv(`http://127.0.0.1:${bridges.proxyPort}`));
  }
  let filter: { fd?: number; file: string; dir: string } | undefined;
  let plan: LimitsPlan | undefined;
  try {
    plan = planLimits({ limits: spec.limits, kind: 'bubblewrap', hostEnv: input.hostEnv, ...input.limitsGroup });
    // RLIMIT_NPROC must be set inside bwrap's user namespace to count only the sandbox (limits.ts).
    if (plan.inner) {
      args = [...plan.inner.args, command, ...args];
      command = plan.inner.command;
    }
    // Every sandboxed process gets the filter (seccomp.ts): TIOCSTI/TIOCLINUX always, address
    // families under `none`.
    const program = sandboxSeccomp({ network: spec.network });
    if (program) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-seccomp-'));
      const file = path.join(dir, 'filter.bpf');
      writeFileSync(file, program, { mode: 0o600 });
      filter = { file, dir, ...(input.canPassFds === false ? {} : { fd: openSync(file, 'r') }) };
    }
    const argv = bwrapArgs({ rules, cwd: input.cwd, socketDir: bridges?.socketDir, disableUserns: avail.disableUserns, command, args, ...(filter ? { seccompFd: 3 } : {}) });
    const opened = filter;
    // Steps that must hold before bwrap runs (launch-prelude.ts): the limits' cgroups and
    // rlimits, and the seccomp filter as fd 3 where the spawner cannot pass fds (a pty).
    const prelude: PreludeSteps = { ...plan.prelude };
    if (filter && filter.fd === undefined) prelude.openFds = [{ fd: 3, file: filter.file }];
    const launched = outerLimits(plan, withPrelude(avail.bwrap, argv, prelude));
    const limits = plan;
    return {
      command: launched.command,
      args: launched.args,
      env,
      sandboxed: true,
      kind: 'bubblewrap',
      unenforced: [
        ...(program ? [] : [`no seccomp filter for ${process.arch}: TIOCSTI is not refused and network none is the empty network namespace alone`]),
        ...limits.unenforced.map((l) => `limits: ${l}`),
      ],
      limits: { mechanism: limits.mechanism, summary: limits.summary },
      watch: limits.watch,
      extraFds: opened?.fd !== undefined ? [opened.fd] : [],
      dispose: () => {
        limits.dispose();
        bridges?.close();
        if (opened) closeFilter(opened);
      },
    };
  } catch (err) {
    plan?.dispose();
    bridges?.close();
    if (filter) closeFilter(filter);
    throw err;
  }
}

/** `sandbox: off`: the command as it is, under the same limits (a cgroup, else RLIMIT_AS). */
export function unconfined(command: string, args: string[], env: Record<string, string>, limitsReq: Omit<LimitsRequest, 'kind'> = { hostEnv: process.env }): SandboxedCommand {
  const plan = planLimits({ ...limitsReq, kind: 'off' });
  const launched = outerLimits(plan, withPrelude(command, args, { ...plan.prelude }));
  return {
    command: launched.command,
    args: launched.args,
    env,
    sandboxed: false,
    kind: 'off',
    unenforced: ['sandbox: off in the profile: runs unconfined', ...plan.unenforced.map((l) => `limits: ${l}`)],
    limits: { mechanism: plan.mechanism, summary: plan.summary },
    watch: plan.watch,
    extraFds: [],
    dispose: plan.dispose,
  };
}

/** systemd-run's scope goes around everything, the prelude included. */
export function outerLimits(plan: LimitsPlan, c: { command: string; args: string[] }): { command: string; args: string[] } {
  return plan.outer ? { command: plan.outer.command, args: [...plan.outer.args, c.command, ...c.args] } : c;
}

function closeFilter(f: { fd?: number; dir: string }): void {
  try {
    if (f.fd !== undefined) closeSync(f.fd);
  } catch {}
  rmSync(f.dir, { recursive: true, force: true });
}

function prepareSeatbelt(input: SandboxLaunchInput, sandboxExec: string, home: string, hostPorts: number[], allowHosts: string[] | undefined): SandboxedCommand {
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-sbx-tmp-'));
  const rules = mountPlan(input.spec, { workspace: input.workspace, dataDir: input.dataDir, home, env: input.hostEnv, internalRead: input.internalRead, protectedRead: input.protectedRead });
  const env: Record<string, string> = { ...input.env, TMPDIR: tmpDir };
  const ports = [...hostPorts];
  if (allowHosts) {
    // No network namespace on macOS, so the filtering proxy would have to listen on a host port;
    // this spawn path is synchronous and a listening port is only known asynchronously (found in
    // review: every allowed host got port 0). Refused with the reason rather than started broken.
    rmSync(tmpDir, { recursive: true, force: true });
    throw new SandboxConfigError(
      `sandbox network allow: [${allowHosts.join(', ')}] is not supported on macOS yet; use network: loopback (with the ports the server needs), network: none, or sandbox: off for this server`,
    );
  }
  const profile = seatbeltProfile({ rules, network: input.spec.network, loopbackPorts: ports, tmpDir });
  return {
    command: sandboxExec,
    args: ['-p', profile, input.command, ...input.args],
    env,
    sandboxed: true,
    kind: 'seatbelt',
    unenforced: ['no PID namespace: a setsid daemon can outlive a killed Gatehouse'],
    limits: { mechanism: 'none', summary: 'none: no limits on macOS yet' },
    extraFds: [],
    dispose: () => rmSync(tmpDir, { recursive: true, force: true }),
  };
}
