// What a launch takes and gives (docs/sandbox.md "The interface: kinds, grants, limits"), shared by
// the bubblewrap/seatbelt path (sandbox-launch.ts, the entry point callers import from) and the
// landlock kind (landlock-launch.ts), which sandbox-launch.ts calls: kept here so neither file
// imports the other back.
import type { LimitsMechanism, SandboxKind, SandboxSpec } from './types';
import type { LimitsPlan } from './limits';

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

/** systemd-run's scope goes around everything, the prelude included. */
export function outerLimits(plan: LimitsPlan, c: { command: string; args: string[] }): { command: string; args: string[] } {
  return plan.outer ? { command: plan.outer.command, args: [...plan.outer.args, c.command, ...c.args] } : c;
}
