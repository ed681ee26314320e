// Shared by the long-running commands (launch, gateway): a clean shutdown on SIGINT/SIGTERM,
// on stdin end for the stdio gateway, and a backstop for fatal errors, so that no server
// process outlives the host.
import type { Host } from '../host';
import { killAllTrackedGroups } from '../supervisor/reaper';
import type { ServerStatus } from '../supervisor/types';

export function installShutdown(host: Host, log: (line: string) => void): (reason: string, code?: number) => Promise<void> {
  let shuttingDown = false;
  const shutdown = async (reason: string, code = 0) => {
    if (shuttingDown) return;
    shuttingDown = true;
    // Set first: if the event loop runs dry while the host shuts down (its last waits are on
    // unref'd timers, such as a run's cgroup removal retrying), Node exits on its own before the
    // `finally` below, and then with this code rather than 0 (measured: `launch --agent` came back
    // 0 for an agent that exited 7, tests/integration/terminal-injection.test.ts).
    process.exitCode = code;
    log(`gatehouse: shutting down (${reason})`);
    try {
      await host.shutdown(reason);
    } finally {
      process.exit(code);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      // A second Ctrl-C means "now": the exit hook SIGKILLs every process group.
      process.exit(130);
    }
    void shutdown(`received ${signal}`, signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  const fatal = (err: unknown) => {
    process.stderr.write(`gatehouse: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    killAllTrackedGroups();
    process.exit(70);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  return shutdown;
}

export function formatStatus(s: ServerStatus): string {
  const pid = s.pid ? ` pid ${s.pid}` : '';
  const tools = s.state === 'ready' && s.toolCount !== undefined ? `, ${s.toolCount} tools` : '';
  // `sandbox: off` is said where it matters, when the server comes up (docs/sandbox.md).
  const unconfined = s.state === 'ready' && s.sandbox?.mode === 'off' ? '  [UNSANDBOXED: sandbox: off]' : '';
  const tail = s.state === 'failed' && s.stderrTail.length > 0 ? `\n    last stderr:\n${s.stderrTail.slice(-5).map((l) => `      ${l}`).join('\n')}` : '';
  return `[${new Date().toISOString().slice(11, 23)}] ${s.id.padEnd(12)} ${s.state.padEnd(10)}${pid}  ${s.reason}${tools}${unconfined}${tail}`;
}
