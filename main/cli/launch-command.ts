// `gatehouse launch --profile NAME|FILE`: start every server of a profile, put the gateway in
// front of them on 127.0.0.1, print state changes (to stderr) as they happen, and run until
// Ctrl-C, then shut everything down cleanly.
import { parseArgs } from 'node:util';
import { Host } from '../host';
import { checkProfileRunArgs, parseCommandArgs, parsePort, PROFILE_RUN_OPTIONS, resolveForCommand, UsageExit } from './args';
import { attachTtyApprover } from '../approvals/tty-approver';
import { openControllingTty } from '../approvals/controlling-tty';
import { formatStatus, installShutdown } from './host-lifecycle';
import path from 'node:path';
import { rmSync } from 'node:fs';
import type { Launch } from '../host';
import type { AgentSpec } from '../profiles/types';
import { prepareAgent } from '../agents/presets';
import { sandboxAgent } from '../agents/sandboxed-agent';
import { nodePtyBackend, type PtyBackend } from '../agents/pty-backend';
import { relayOnPty } from '../agents/tty-relay';
import { nativeLoadProblem } from '../native/abi-mismatch';
import { protectedPaths } from '../trust/protected-paths';
import type { SandboxedRun } from '../sandbox/spawn-sandboxed';
import { resolveSearchPath } from '../sandbox/shell-path';
import { appRoot } from '../paths';
import { settleLaunchConsent } from './trust-consent';
import { startGrantsControl } from '../approvals/grants-control';

/**
 * Runs the profile's agent with its own gateway token on a pty Gatehouse owns, relayed to this
 * terminal (main/agents/tty-relay.ts): the agent never holds the person's terminal.
 */
async function runAttachedAgent(host: Host, launch: Launch, spec: AgentSpec, log: (l: string) => void): Promise<number> {
  const id = `cli-${process.pid}`;
  const grant = launch.endpoint!.issueToken(id);
  const runDir = path.join(host.dataDir, 'run', id);
  let sandboxRun: SandboxedRun | undefined;
  try {
    const searchPath = await resolveSearchPath({ extraDirs: [path.join(appRoot(), 'node_modules', '.bin')] });
    const prepared = prepareAgent(spec, { url: launch.endpoint!.url, token: grant.token, runDir, searchPath, hostEnv: process.env });
    if (!prepared.available) {
      log(`gatehouse: agent not started: ${prepared.reason}${prepared.install ? ` (install: ${prepared.install})` : ''}`);
      return 1;
    }
    let boxed: ReturnType<typeof sandboxAgent>;
    try {
      boxed = sandboxAgent(spec, prepared, {
        gatewayUrl: launch.endpoint!.url,
        workspace: launch.profile.workspace,
        dataDir: host.dataDir,
        hostEnv: process.env,
        searchPath,
        runDir,
        limitsGroup: { launch: launch.id, name: 'agent' },
        protectedRead: protectedPaths(launch.profile, searchPath, process.env),
      });
    } catch (err) {
      log(`gatehouse: agent not started: ${(err as Error).message}`);
      return 1;
    }
    sandboxRun = boxed.run;
    let backend: PtyBackend;
    try {
      backend = nodePtyBackend();
    } catch (err) {
      // Never fall back to handing the agent this terminal: the relay exists to prevent that.
      const problem = nativeLoadProblem(err, 'node-pty', 'the agent cannot be given a terminal');
      if (!problem) throw err;
      log(`gatehouse: agent not started: ${problem}`);
      return 1;
    }
    log(`gatehouse: starting ${prepared.title} (${prepared.command}) in ${prepared.cwd}; sandbox ${boxed.summary.summary}; limits ${boxed.summary.limits ?? 'none'}`);
    try {
      return await relayOnPty({
        backend,
        command: boxed.run.command,
        args: boxed.run.args,
        cwd: prepared.cwd,
        env: boxed.run.env,
        // At a cap (main/sandbox/limits.ts) the agent ends, and this terminal says why.
        onSpawn: (pty) =>
          boxed.run.watch?.(pty.pid, (why) => {
            log(`gatehouse: agent stopped: ${why}`);
            pty.kill('SIGKILL');
          }),
      });
    } catch (err) {
      log(`gatehouse: agent failed to start: ${(err as Error).message}`);
      return 1;
    }
  } finally {
    sandboxRun?.dispose();
    grant.revoke();
    rmSync(runDir, { recursive: true, force: true });
  }
}

const USAGE = `usage: gatehouse launch --profile NAME|FILE [--port N] [--no-http] [--tool-surface friendly|canonical|both|lazy]
                        [--agent] [--data-dir DIR] [--no-approver] [--quiet]

  --port    the gateway's port; default the one this profile had last time (kept in the data dir,
            with its token in the secret store), so a copied client configuration keeps working
  --agent   also start the profile's agent on this terminal (through a pty Gatehouse relays),
            wired to the gateway; when it exits, everything stops with its exit code.
            Approvals then cannot be asked on this terminal and fail closed.`;

export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs('launch', USAGE, () =>
    parseArgs({
      args: argv,
      strict: true,
      options: {
        ...PROFILE_RUN_OPTIONS,
        port: { type: 'string' },
        'no-http': { type: 'boolean' },
        'no-approver': { type: 'boolean' },
        agent: { type: 'boolean' },
      },
    }).values,
  );
  if (args instanceof UsageExit) return args.code;
  const checked = checkProfileRunArgs('launch', USAGE, args);
  if (checked instanceof UsageExit) return checked.code;
  const { surface } = checked;
  // While the agent's relay holds the terminal raw (no output processing: tty-relay.ts), a bare
  // "\n" would not return the cursor: Gatehouse's own lines then end in "\r\n" themselves.
  const log = (line: string) => checked.log(args.agent && process.stdin.isTTY && process.stdin.isRaw ? `${line.replace(/\n/g, '\r\n')}\r` : line);
  const port = args.port === undefined ? 0 : parsePort('launch', 'port', args.port);
  if (port instanceof UsageExit) return port.code;

  const host = new Host({ dataDir: args['data-dir'] });
  const shutdown = installShutdown(host, log);
  const profile = await resolveForCommand(host, 'launch', checked.profile);
  if (profile instanceof UsageExit) return profile.code;
  host.on('server-status', (_launch, s) => log(formatStatus(s)));
  if (args.agent && !profile.agent) {
    process.stderr.write(`gatehouse launch: profile '${profile.name}' has no agent section (${profile.file})\n`);
    await host.shutdown('no agent');
    return 2;
  }
  if (args.agent && args['no-http']) {
    process.stderr.write('gatehouse launch: --agent needs the HTTP gateway (drop --no-http)\n');
    await host.shutdown('usage');
    return 2;
  }
  // Launch consent: asked here, before anything starts; held servers stay stopped.
  await settleLaunchConsent(host, profile, checked.profile, { ask: true, log: (l) => process.stderr.write(`${l}\n`) });
  if (!args['no-approver'] && !args.agent) {
    const tty = openControllingTty();
    if (tty) attachTtyApprover(host.broker, { input: tty.input, output: tty.output });
    else log('gatehouse: no terminal to ask on: calls that need approval will be denied');
  }
  // `gatehouse grants list|revoke` in another terminal sees and takes back this host's session grants.
  const grants = await startGrantsControl(host, { log });
  process.on('exit', () => grants.closeSync());
  log(`gatehouse: launching profile '${profile.name}' (${profile.file})`);
  const launch = await host.launch(profile, {
    toolSurface: surface,
    httpPort: args['no-http'] ? undefined : port,
    kind: 'launch',
  });
  const states = launch.statuses();
  const ready = states.filter((s) => s.state === 'ready').length;
  log(`gatehouse: ${ready} of ${states.length} servers ready; session ${launch.id}`);
  if (launch.endpoint) {
    log(`gatehouse: gateway  ${launch.endpoint.url}`);
    // Shown once, on stderr, never in a URL. GATEHOUSE_TOKEN pins it across runs.
    if (!process.env.GATEHOUSE_TOKEN) log(`gatehouse: token    ${launch.token}`);
    else log('gatehouse: token    (from GATEHOUSE_TOKEN)');
  }
  if (args.agent && launch.endpoint) {
    const code = await runAttachedAgent(host, launch, profile.agent!, log);
    await shutdown(`agent exited with code ${code}`, code);
    return code;
  }
  log('gatehouse: press Ctrl-C to stop');
  await new Promise<void>(() => {
    /* runs until a signal; installShutdown exits the process */
  });
  await shutdown('unreachable');
  return 0;
}
