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
import { sandboxSeccomp } from './seccomp';
import { withPrelude, type PreludeSteps } from './launch-prelude';
import { planLimits, type LimitsPlan, type LimitsRequest } from './limits';
import { prepareLandlock } from './landlock-launch';
import { outerLimits, proxyEnv, SandboxUnavailableError, type SandboxedCommand, type SandboxLaunchInput } from './launch-contract';
import { isDockerRun } from './container';
import { prepareContainer } from './container-launch';

// Declared in launch-contract.ts so landlock-launch.ts can share them without importing this
// file back (a circle: docs/architecture.md "Layer order"); callers keep importing them from here.
export { outerLimits, proxyEnv, SandboxUnavailableError, type SandboxedCommand, type SandboxLaunchInput } from './launch-contract';

/** The in-sandbox forwarder (built by scripts/build.mjs). */
export function sandboxInitEntry(): string {
  return path.join(appRoot(), 'out', 'sandbox-init.mjs').replace(`${path.sep}app.asar${path.sep}`, `${path.sep}app.asar.unpacked${path.sep}`);
}

export function prepareSandbox(input: SandboxLaunchInput): SandboxedCommand {
  const { spec } = input;
  if (spec.mode === 'off') return unconfined(input.command, input.args, input.env, { limits: spec.limits, hostEnv: input.hostEnv, ...input.limitsGroup });
  // `docker run IMAGE`: the container is the sandbox (container.ts), under the same grants and limits.
  if (isDockerRun(input.command, input.args)) return prepareContainer(input);
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
