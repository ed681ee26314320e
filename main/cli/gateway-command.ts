// `gatehouse gateway --profile P`: a governed MCP server over stdio (or `--http PORT`) for
// hosts that launch servers themselves. stdout carries protocol bytes only; banner and logs
// go to stderr; --quiet silences them.
//
// Approvals go to the Gatehouse window through its relay unless `--approver tty` asks for the
// terminal. A terminal client (Claude Code, Gemini CLI) spawns us with stdio pipes inside ITS
// terminal: /dev/tty is the client's screen and keyboard, so reading it would swallow the
// person's keystrokes and let a key typed for the client approve a call. Without the flag we
// never open /dev/tty at all.
import path from 'node:path';
import { Host } from '../host';
import { parseArgs } from 'node:util';
import { checkProfileRunArgs, parseCommandArgs, parsePort, PROFILE_RUN_OPTIONS, resolveForCommand, usageError, UsageExit } from './args';
import { attachTtyApprover } from '../approvals/tty-approver';
import { openControllingTty } from '../approvals/controlling-tty';
import { startStdioEndpoint } from '../gateway/stdio-endpoint';
import { formatStatus, installShutdown } from './host-lifecycle';
import { dataDir as defaultDataDir } from '../paths';
import { RelayClient, RelayingApprovalBroker } from '../approvals/relaying-broker';
import { relaySocketPath } from '../approvals/relay-wire';
import { settleLaunchConsent } from './trust-consent';

const USAGE = `usage: gatehouse gateway --profile NAME|FILE [--http PORT] [--tool-surface friendly|canonical|both|lazy]
                         [--approver window|tty|none] [--data-dir DIR] [--profiles-dir DIR]
                         [--no-audit] [--trust-prompt] [--quiet]
  --data-dir DIR     the data directory (default GATEHOUSE_DATA_DIR, else $XDG_STATE_HOME/gatehouse)
  --profiles-dir DIR the user's profiles folder (default GATEHOUSE_PROFILES_DIR, else
                     $XDG_CONFIG_HOME/gatehouse/profiles): for clients that start the gateway
                     with an empty environment (Codex, the MCP Inspector)
  --approver window  (default) ask in the Gatehouse window of this data dir, through its
                     approvals relay; with no window, calls that need approval are denied
  --approver tty     ask on this process's controlling terminal (/dev/tty): only when the
                     gateway has a terminal of its own, never under a terminal client
  --approver none    deny every call that needs approval
  --trust-prompt     ask on /dev/tty to approve a server whose launch command is new or changed
                     (also with --approver tty); otherwise such a server is not started and one
                     line on stderr names \`gatehouse trust accept\` (stdin/stdout are the protocol)`;

const APPROVERS = ['window', 'tty', 'none'] as const;

/** Records the headless gateway's tap keeps: nothing replays them (no window), so a few. */
const HEADLESS_TRAFFIC_REPLAY = 256;

export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs('gateway', USAGE, () =>
    parseArgs({
      args: argv,
      strict: true,
      options: {
        ...PROFILE_RUN_OPTIONS,
        http: { type: 'string' },
        'no-audit': { type: 'boolean' },
        'trust-prompt': { type: 'boolean' },
        approver: { type: 'string' },
        'profiles-dir': { type: 'string' },
      },
    }).values,
  );
  if (args instanceof UsageExit) return args.code;
  const checked = checkProfileRunArgs('gateway', USAGE, args);
  if (checked instanceof UsageExit) return checked.code;
  const { surface, log } = checked;
  const httpPort = args.http === undefined ? undefined : parsePort('gateway', 'http', args.http);
  if (httpPort instanceof UsageExit) return httpPort.code;
  const approver = args.approver ?? 'window';
  if (!(APPROVERS as readonly string[]).includes(approver)) {
    return usageError('gateway', USAGE, `--approver: expected one of ${APPROVERS.join(', ')}, got '${approver}'`).code;
  }

  // The one place the profiles folder comes from (main/paths.ts userProfilesDir: profile names,
  // the folders no sandbox may write); set before anything reads it.
  if (args['profiles-dir'] !== undefined) process.env.GATEHOUSE_PROFILES_DIR = path.resolve(args['profiles-dir']);
  // The same data dir the Host uses: a Gatehouse window of that dir relays approvals for us.
  const dataDir = args['data-dir'] ?? defaultDataDir(process.env);
  const socketPath = relaySocketPath(dataDir);
  const relay = new RelayClient({ socketPath, profile: checked.profile, log });
  const broker = new RelayingApprovalBroker(relay);
  // No window attaches to this host (approvals reach the desktop app through the relay, not the
  // tap): the tap keeps a few records instead of a window's replay.
  const host = new Host({ dataDir, audit: !args['no-audit'], broker, trafficReplay: HEADLESS_TRAFFIC_REPLAY, log });
  const shutdown = installShutdown(host, log);
  const profile = await resolveForCommand(host, 'gateway', checked.profile);
  if (profile instanceof UsageExit) return profile.code;
  host.on('server-status', (_l, s) => log(formatStatus(s)));
  // Launch consent: on /dev/tty only when asked for; otherwise one line naming `gatehouse trust accept`.
  await settleLaunchConsent(host, profile, checked.profile, { ask: !!args['trust-prompt'] || approver === 'tty', log: (l) => process.stderr.write(`${l}\n`) });
  // Approvals (never stdin/stdout, which carry protocol): the terminal only when asked; else the
  // Gatehouse window of this data dir, through its approvals relay (reconnecting, since the
  // window may start later); else APPROVAL fails closed with a reason that says how to fix it.
  if (approver === 'tty') {
    const tty = openControllingTty();
    if (!tty) {
      process.stderr.write('gatehouse gateway: --approver tty: this process has no controlling terminal (/dev/tty cannot be opened); use --approver window\n');
      await host.shutdown('no terminal');
      return 2;
    }
    attachTtyApprover(host.broker, { input: tty.input, output: tty.output });
  } else if (approver === 'window') {
    relay.start();
    await relay.ready();
  }
  log(`gatehouse gateway: profile '${profile.name}', ${approver === 'none' ? 'no approver (--approver none): calls that need approval are denied' : approvalsRoute(broker, socketPath)}`);

  const launch = await host.launch(profile, {
    toolSurface: surface,
    httpPort,
    kind: 'gateway',
    // A host that launched us waits for initialize: answer it at once, with what is ready.
    waitForServers: false,
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

function approvalsRoute(broker: RelayingApprovalBroker, socketPath: string): string {
  switch (broker.route()) {
    case 'local':
      return 'approvals on this terminal';
    case 'relay':
      return `approvals go to the Gatehouse window (via ${socketPath})`;
    default:
      return broker.relay.connected()
        ? 'the Gatehouse window has no approver open: calls that need approval are denied until one is'
        : `no approver attached: calls that need approval are denied until a Gatehouse window runs with this data directory (${socketPath})`;
  }
}
