// `gatehouse gateway --profile P`: a governed MCP server over stdio (or `--http PORT`) for
// hosts that launch servers themselves. stdout carries protocol bytes only; banner and logs
// go to stderr; --quiet silences them.
import { parseArgs } from 'node:util';
import { Host } from '../host';
import { ProfileError } from '../profiles/profile-error';
import { attachTtyApprover, openControllingTty } from '../approvals/tty-approver';
import { startStdioEndpoint } from '../gateway/stdio-endpoint';
import { formatStatus, installShutdown } from './host-lifecycle';

const USAGE = `usage: gatehouse gateway --profile NAME|FILE [--http PORT] [--tool-surface friendly|canonical|both]
                         [--data-dir DIR] [--no-audit] [--quiet]`;

export async function run(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        profile: { type: 'string', short: 'p' },
        http: { type: 'string' },
        'tool-surface': { type: 'string' },
        'data-dir': { type: 'string' },
        'no-audit': { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`gatehouse gateway: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  if (!args.profile) {
    process.stderr.write(`gatehouse gateway: --profile is required\n${USAGE}\n`);
    return 2;
  }
  const surface = args['tool-surface'];
  if (surface !== undefined && !['friendly', 'canonical', 'both'].includes(surface)) {
    process.stderr.write(`gatehouse gateway: --tool-surface must be friendly, canonical or both, got '${surface}'\n`);
    return 2;
  }
  let httpPort: number | undefined;
  if (args.http !== undefined) {
    httpPort = Number(args.http);
    if (!Number.isInteger(httpPort) || httpPort < 0 || httpPort > 65535) {
      process.stderr.write(`gatehouse gateway: --http must be a port number, got '${args.http}'\n`);
      return 2;
    }
  }
  const quiet = !!args.quiet;
  const log = (line: string) => {
    if (!quiet) process.stderr.write(`${line}\n`);
  };

  const host = new Host({ dataDir: args['data-dir'], audit: !args['no-audit'] });
  const shutdown = installShutdown(host, log);
  let profile;
  try {
    profile = host.resolve(args.profile);
  } catch (err) {
    process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse gateway: ${(err as Error).message}`}\n`);
    await host.shutdown('profile refused');
    return 1;
  }
  host.on('server-status', (_l, s) => log(formatStatus(s)));
  // Approvals: a terminal we can ask on (never stdin/stdout, which carry protocol), else none,
  // and then APPROVAL fails closed with a clear reason.
  const tty = openControllingTty();
  if (tty) attachTtyApprover(host.broker, { input: tty.input, output: tty.output });
  log(`gatehouse gateway: profile '${profile.name}', ${tty ? 'approvals on this terminal' : 'no approver attached (calls that need approval are denied)'}`);

  const launch = await host.launch(profile, {
    toolSurface: surface as 'friendly' | 'canonical' | 'both' | undefined,
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
