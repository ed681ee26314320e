// `gatehouse gateway --profile P`: a governed MCP server over stdio (or `--http PORT`) for
// hosts that launch servers themselves. stdout carries protocol bytes only; banner and logs
// go to stderr; --quiet silences them.
import { Host } from '../host';
import { parseArgs } from 'node:util';
import { HELP, parseCommandArgs, parsePort, parseSurface, resolveForCommand, usageError, UsageExit } from './args';
import { attachTtyApprover, openControllingTty } from '../approvals/tty-approver';
import { startStdioEndpoint } from '../gateway/stdio-endpoint';
import { formatStatus, installShutdown } from './host-lifecycle';

const USAGE = `usage: gatehouse gateway --profile NAME|FILE [--http PORT] [--tool-surface friendly|canonical|both]
                         [--data-dir DIR] [--no-audit] [--quiet]`;

export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs('gateway', USAGE, () =>
    parseArgs({
      args: argv,
      strict: true,
      options: {
        ...HELP,
        profile: { type: 'string', short: 'p' },
        http: { type: 'string' },
        'tool-surface': { type: 'string' },
        'data-dir': { type: 'string' },
        'no-audit': { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
      },
    }).values,
  );
  if (args instanceof UsageExit) return args.code;
  if (!args.profile) return usageError('gateway', USAGE, '--profile is required').code;
  const surface = parseSurface('gateway', args['tool-surface']);
  if (surface instanceof UsageExit) return surface.code;
  const httpPort = args.http === undefined ? undefined : parsePort('gateway', 'http', args.http);
  if (httpPort instanceof UsageExit) return httpPort.code;
  const quiet = !!args.quiet;
  const log = (line: string) => {
    if (!quiet) process.stderr.write(`${line}\n`);
  };

  const host = new Host({ dataDir: args['data-dir'], audit: !args['no-audit'] });
  const shutdown = installShutdown(host, log);
  const profile = await resolveForCommand(host, 'gateway', args.profile);
  if (profile instanceof UsageExit) return profile.code;
  host.on('server-status', (_l, s) => log(formatStatus(s)));
  // Approvals: a terminal we can ask on (never stdin/stdout, which carry protocol), else none,
  // and then APPROVAL fails closed with a clear reason.
  const tty = openControllingTty();
  if (tty) attachTtyApprover(host.broker, { input: tty.input, output: tty.output });
  log(`gatehouse gateway: profile '${profile.name}', ${tty ? 'approvals on this terminal' : 'no approver attached (calls that need approval are denied)'}`);

  const launch = await host.launch(profile, {
    toolSurface: surface,
    httpPort,
    kind: 'gateway',
  });
  if (launch.endpoint) {
    log(`gatehouse gateway: listening on ${launch.endpoint.url}`);
    if (!process.env.GATEHOUSE_TOKEN) log(`gatehouse gateway: token ${launch.token}`);
    await new Promise<void>(() => {});
    return 0;
  }
  const endpoint = await startStdioEndpoint({
    gateway: launch.gateway,
    tap: host.tap,
    redactor: profile.redactor,
    input: process.stdin,
    output: process.stdout,
  });
  await endpoint.closed;
  await shutdown('client closed stdin');
  return 0;
}
