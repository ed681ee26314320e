// One place that puts a prepared agent into its OS sandbox, for both ways an agent runs: in a
// terminal inside the app (terminal-manager.ts) and attached to the CLI's own terminal
// (`gatehouse launch --agent`). See main/sandbox/agent-sandbox.ts for what the sandbox allows.
import type { AgentSpec } from '../profiles/types';
import { agentSandboxSpec } from '../sandbox/agent-sandbox';
import { spawnSandboxed, type SandboxedRun } from '../sandbox/spawn-sandboxed';
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
  const run = spawnSandboxed(sandbox, {
    command: prepared.command,
    args: prepared.args,
    cwd: prepared.cwd,
    env: prepared.env,
    workspace: ctx.workspace,
    dataDir: ctx.dataDir,
    hostEnv: ctx.hostEnv,
    searchPath: ctx.searchPath,
    internalRead: [ctx.runDir],
    protectedRead: ctx.protectedRead,
    // A pty cannot pass the seccomp fd; an agent's network is never `none` anyway (the gateway).
    canPassFds: false,
  });
  return { run, summary: summarizeSandbox(sandbox) };
}
