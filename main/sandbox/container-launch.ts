// prepareSandbox's `container` kind (container.ts has the rules): the docker client runs
// outside bubblewrap, because it must reach the engine's socket, and the server runs in the
// container it starts, under the flags Gatehouse adds. The socket itself stays hidden from
// every other sandbox (hidden-paths.ts).
import os from 'node:os';
import path from 'node:path';
import type { SandboxedCommand, SandboxLaunchInput } from './launch-contract';
import { SandboxUnavailableError } from './launch-contract';
import { SandboxConfigError } from './mount-plan';
import { ContainerRefused, containerArgs, dockerEngineProblem, parseDockerRun } from './container';

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** No engine: permanent like a missing sandbox (no restart loop), and said in docker's terms. */
class EngineUnavailableError extends SandboxUnavailableError {
  constructor(reason: string, fix: string) {
    super(reason, fix);
    this.message = `docker: ${reason}. Fix: ${fix}`;
  }
}

export function prepareContainer(input: SandboxLaunchInput): SandboxedCommand {
  const { spec } = input;
  const home = input.hostEnv.HOME || os.homedir();
  const allowed = (p: string): 'rw' | 'ro' | undefined =>
    inside(p, input.workspace) || spec.write.some((w) => inside(p, w)) ? 'rw' : spec.read.some((r) => inside(p, r)) ? 'ro' : undefined;
  let plan;
  try {
    plan = containerArgs(parseDockerRun(input.args, allowed, home), spec, { workspace: input.workspace, cwd: input.cwd, env: input.env });
  } catch (err) {
    if (err instanceof ContainerRefused) throw new SandboxConfigError(err.message);
    throw err;
  }
  const engine = dockerEngineProblem({ ...input.hostEnv, ...input.env });
  if (engine) throw new EngineUnavailableError(engine, 'start Docker (or Docker Desktop), then restart this server; or run the server from its own package instead of its image');
  // What the docker client itself needs to find the engine and its config, beside the declared env.
  const client: Record<string, string> = {};
  for (const k of ['DOCKER_HOST', 'DOCKER_CONFIG', 'DOCKER_CONTEXT', 'XDG_RUNTIME_DIR', 'HOME']) {
    const v = input.hostEnv[k];
    if (v !== undefined) client[k] = v;
  }
  return {
    command: input.command,
    args: plan.args,
    env: { ...client, ...input.env },
    sandboxed: true,
    kind: 'container',
    unenforced: plan.unenforced,
    limits: { mechanism: 'container', summary: plan.summary },
    watch: () => undefined,
    extraFds: [],
    dispose: () => undefined,
  };
}
