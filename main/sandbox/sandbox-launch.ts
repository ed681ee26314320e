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
import { noNetworkSeccomp } from './seccomp';

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
   * The caller can hand the child extra file descriptors (stdio[3…]); a pty cannot. Needed for the
   * seccomp filter of `network: none`.
   */
  canPassFds?: boolean;
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

function proxyEnv(url: string): Record<string, string> {
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
  if (spec.mode === 'off') return unconfined(input.command, input.args, input.env);
  const platform = input.platform ?? process.platform;
  const avail: SandboxAvailability = sandboxAvailability(input.hostEnv, platform);
  if (!avail.ok) throw new SandboxUnavailableError(avail.reason, avail.fix);
  const home = input.hostEnv.HOME || os.homedir();
  const hostPorts = spec.network.kind === 'none' ? [] : spec.hostPorts;
  const allowHosts = spec.network.kind === 'allow' ? spec.network.hosts : undefined;

  if (avail.platform === 'darwin') return prepareSeatbelt(input, avail.sandboxExec, home, hostPorts, allowHosts);

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
  let filter: { fd: number; dir: string } | undefined;
  try {
    const program = spec.network.kind === 'none' && input.canPassFds !== false ? noNetworkSeccomp() : undefined;
    if (program) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-seccomp-'));
      const file = path.join(dir, 'filter.bpf');
      writeFileSync(file, program, { mode: 0o600 });
      filter = { fd: openSync(file, 'r'), dir };
    }
    const argv = bwrapArgs({ rules, cwd: input.cwd, socketDir: bridges?.socketDir, disableUserns: avail.disableUserns, command, args, ...(filter ? { seccompFd: 3 } : {}) });
    const opened = filter;
    return {
      command: avail.bwrap,
      args: argv,
      env,
      sandboxed: true,
      kind: 'bubblewrap',
      unenforced: [],
      limits: { mechanism: 'none', summary: 'none: not enforced yet' },
      extraFds: opened ? [opened.fd] : [],
      dispose: () => {
        bridges?.close();
        if (opened) closeFilter(opened);
      },
    };
  } catch (err) {
    bridges?.close();
    if (filter) closeFilter(filter);
    throw err;
  }
}

/** `sandbox: off`: the command as it is (limits still apply once they are enforced). */
export function unconfined(command: string, args: string[], env: Record<string, string>): SandboxedCommand {
  return { command, args, env, sandboxed: false, kind: 'off', unenforced: ['sandbox: off in the profile: runs unconfined'], limits: { mechanism: 'none', summary: 'none: not enforced yet' }, extraFds: [], dispose: () => {} };
}

function closeFilter(f: { fd: number; dir: string }): void {
  try {
    closeSync(f.fd);
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
    limits: { mechanism: 'none', summary: 'none: not enforced yet' },
    extraFds: [],
    dispose: () => rmSync(tmpDir, { recursive: true, force: true }),
  };
}
