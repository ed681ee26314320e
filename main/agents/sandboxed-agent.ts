// One place that puts a prepared agent into its OS sandbox, for both ways an agent runs: in a
// terminal inside the app (terminal-manager.ts) and attached to the CLI's own terminal
// (`gatehouse launch --agent`). See main/sandbox/agent-sandbox.ts for what the sandbox allows.
import type { AgentSpec } from '../profiles/types';
import { agentSandboxSpec } from '../sandbox/agent-sandbox';
import { homeDirs, installPrefix, interpreterPrefixes, spawnSandboxed, type SandboxedRun } from '../sandbox/spawn-sandboxed';
import { underOwnTerminal } from './own-terminal';
import { sandboxAvailability } from '../sandbox/availability';
import { summarizeSandbox, type SandboxSummary } from '../sandbox/types';
import { PRESETS, type PreparedAgent } from './presets';

export interface AgentSandboxContext {
  gatewayUrl: string;
  workspace: string;
  dataDir: string;
  hostEnv: NodeJS.ProcessEnv;
  searchPath: string;
  /** The agent's generated files (its MCP config with its token): visible read-only inside. */
  runDir: string;
  /** Names the terminal's cgroup folder `gatehouse/<launch>/<name>` (main/sandbox/limits.ts). */
  limitsGroup?: { launch: string; name: string };
  /** The profile file, the profiles folders, the servers' programs: never writable (main/trust/protected-paths.ts). */
  protectedRead?: string[];
}

/** Throws SandboxUnavailableError / SandboxConfigError (see isPermanentSandboxError) when it cannot be had. */
export function sandboxAgent(spec: AgentSpec, prepared: Extract<PreparedAgent, { available: true }>, ctx: AgentSandboxContext): { run: SandboxedRun; summary: SandboxSummary } {
  const sandbox = agentSandboxSpec({
    profile: spec.sandbox,
    preset: spec.preset === 'shell' || spec.preset === 'custom' ? undefined : PRESETS[spec.preset].sandbox,
    gatewayUrl: ctx.gatewayUrl,
    home: ctx.hostEnv.HOME,
  });
  // A controlling terminal of its own inside the sandbox (own-terminal.ts); then what the agent's
  // own command needs to run must be named here, as spawnSandboxed sees only script(1). Only
  // under bubblewrap, whose private /dev has a /dev/pts of its own: the landlock kind grants no
  // pty device (opening /dev/pts would reach the person's terminal), so there the agent keeps
  // the pty Gatehouse gave it, without job control; seatbelt's script(1) is BSD's.
  const avail = sandbox.mode === 'off' ? undefined : sandboxAvailability(ctx.hostEnv);
  const inner = avail?.ok && 'kind' in avail && avail.kind === 'bubblewrap' ? underOwnTerminal(prepared.command, prepared.args, prepared.env) : undefined;
  const homes = homeDirs(ctx.hostEnv.HOME);
  const needs = inner ? [installPrefix(prepared.command, homes), ...interpreterPrefixes(prepared.command, ctx.searchPath, homes)] : [];
  const run = spawnSandboxed(sandbox, {
    command: inner?.command ?? prepared.command,
    args: inner?.args ?? prepared.args,
    cwd: prepared.cwd,
    env: inner?.env ?? prepared.env,
    workspace: ctx.workspace,
    dataDir: ctx.dataDir,
    hostEnv: ctx.hostEnv,
    searchPath: ctx.searchPath,
    internalRead: [ctx.runDir, ...needs],
    protectedRead: ctx.protectedRead,
    // Agents run on a pty (node-pty), which cannot pass the seccomp fd: the launch prelude opens it.
    canPassFds: false,
    limitsGroup: ctx.limitsGroup,
  });
  return { run, summary: { ...summarizeSandbox(sandbox), kind: run.kind, unenforced: run.unenforced, limits: run.limits.summary } };
}
