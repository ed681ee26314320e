// What a server's status says, from a snapshot of its supervisor's state: the shape the
// Servers view, the CLI and the audit store read. Kept apart so managed-server.ts only supervises.
import type { ServerSpec } from '../profiles/types';
import type { AuthStatusInfo } from '../auth/upstream-oauth';
import { summarizeSandbox, type SandboxKind } from '../sandbox/types';
import type { ExitRecord, ServerEraInfo, ServerStatus, UpstreamClient } from './types';

/** Stderr lines attached to a failed, restarting or exited server's status. */
const STDERR_TAIL_SHOWN = 20;

/** The supervisor's state as the status needs it: the fields it copies, and what it derives the rest from. */
export type StatusSnapshot = Pick<ServerStatus, 'id' | 'state' | 'reason' | 'run' | 'restarts' | 'pid' | 'command' | 'cwd' | 'startedAt' | 'readyAt' | 'nextRestartAt' | 'lastExit' | 'protocolFaults'> & {
  spec: ServerSpec;
  exits: ExitRecord[];
  stderrRing: readonly string[];
  /** Only while the run is ready: what its client learnt. */
  ready?: { client: UpstreamClient | undefined; protocolVersion?: string; era?: ServerEraInfo; toolCount: number };
  auth?: AuthStatusInfo;
  /** What the last prepared run's sandbox was (sandbox-launch.ts SandboxedCommand): its kind and what it could not enforce. */
  sandboxRun?: { kind: SandboxKind; unenforced: string[]; limits: string };
};

/**
 * `redact`: the profile's redactor. What a server says about itself (serverInfo, instructions, the
 * reason of its state) is shown and stored like its traffic, with configured secrets redacted
 * (docs/security.md, "Secrets").
 */
export function composeStatus(s: StatusSnapshot, redact: (status: ServerStatus) => ServerStatus = (v) => v): ServerStatus {
  const showTail = s.state === 'failed' || s.state === 'restarting' || s.lastExit !== undefined;
  const client = s.ready?.client;
  return redact({
    id: s.id,
    kind: s.spec.kind,
    state: s.state,
    reason: s.reason,
    run: s.run,
    restarts: s.restarts,
    pid: s.pid,
    command: s.command,
    cwd: s.cwd,
    startedAt: s.startedAt,
    readyAt: s.readyAt,
    nextRestartAt: s.nextRestartAt,
    lastExit: s.lastExit,
    exits: s.exits,
    stderrTail: showTail ? s.stderrRing.slice(-STDERR_TAIL_SHOWN) : [],
    protocolFaults: s.protocolFaults,
    serverInfo: client?.getServerVersion(),
    protocolVersion: s.ready?.protocolVersion,
    era: s.ready?.era,
    capabilities: client?.getServerCapabilities(),
    toolCount: s.ready?.toolCount,
    instructions: client?.getInstructions(),
    ...(s.auth ? { auth: s.auth } : {}),
    sandbox: s.spec.kind === 'http' ? undefined : { ...summarizeSandbox(s.spec.sandbox), ...(s.sandboxRun ?? {}) },
  });
}
