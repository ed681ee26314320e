// `gatehouse serve`: the headless shell. The same renderer as the desktop app, in a browser,
// driving the same Host through the host API over a WebSocket on 127.0.0.1. Shows a one-time
// login URL where only the person can read it (../web/login-code-sink.ts: the terminal, the
// browser, or a 0600 file in the data dir; never a non-terminal stderr), never the session
// secret, and runs until Ctrl-C.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { Host } from '../host';
import { appRoot } from '../paths';
import { ProfileError } from '../profiles/profile-error';
import { createHostApiDispatcher } from '../api/dispatcher';
import { startWebServer } from '../web/server';
import { formatStatus, installShutdown } from './host-lifecycle';
import { HELP, parseCommandArgs, parsePort, UsageExit } from './args';
import { startApprovalRelay } from '../approvals/relay-server';
import { startGrantsControl } from '../approvals/grants-control';
import { createLoginCodeSink, readLoginUrl } from '../web/login-code-sink';
import { dataDir as defaultDataDir } from '../paths';

const USAGE = `usage: gatehouse serve [--port N] [--profile NAME|FILE] [--data-dir DIR] [--open] [--quiet]
       gatehouse serve --print-login-url [--data-dir DIR]
  --port N           port on 127.0.0.1 (default 0: any free port)
  --profile P        launch this profile at start (otherwise launch it from the window)
  --data-dir DIR     where the audit store lives (default GATEHOUSE_DATA_DIR or $XDG_STATE_HOME/gatehouse)
  --open             open the first login URL in the system browser
  --print-login-url  show the current login URL of the serve running with this data dir (on a
                     terminal only; a serve whose stderr is not a terminal keeps it in
                     <data dir>/web-login-url, 0600, instead of printing it)`;

export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs('serve', USAGE, () =>
    parseArgs({
      args: argv,
      strict: true,
      options: {
        ...HELP,
        port: { type: 'string' },
        profile: { type: 'string', short: 'p' },
        'data-dir': { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
        open: { type: 'boolean' },
        'print-login-url': { type: 'boolean' },
      },
    }).values,
  );
  if (args instanceof UsageExit) return args.code;
  if (args['print-login-url']) return printLoginUrl(args['data-dir'] ?? defaultDataDir(process.env));
  const port = args.port === undefined ? 0 : parsePort('serve', 'port', args.port);
  if (port instanceof UsageExit) return port.code;
  const log = (line: string) => {
    if (!args.quiet) process.stderr.write(`${line}\n`);
  };

  const host = new Host({ dataDir: args['data-dir'] });
  const shutdown = installShutdown(host, log);
  const dispatcher = createHostApiDispatcher(host, { shell: 'web' });
  // The login URL is shown even with --quiet: without it nobody can open the window.
  const codes = createLoginCodeSink({ dataDir: host.dataDir, openBrowser: !!args.open });
  process.on('exit', () => codes.closeSync());
  const web = await startWebServer({
    dispatcher,
    rendererDir: path.join(appRoot(), 'out', 'renderer'),
    port,
    onLoginUrl: (url) => codes.publish(url),
  });
  log(`gatehouse: serving the app on ${web.origin} (data in ${host.dataDir}); press Ctrl-C to stop`);
  // `gatehouse gateway` processes of this data dir send their approvals to this window.
  const relay = await startApprovalRelay(host, { log });
  if (relay.path) log(`gatehouse: approvals from gatehouse gateway processes come here (${relay.path})`);
  // installShutdown ends with process.exit: take the socket file away with us.
  process.on('exit', () => relay.closeSync());
  // `gatehouse grants list|revoke` in a terminal sees and takes back this host's session grants.
  const grants = await startGrantsControl(host, { log });
  process.on('exit', () => grants.closeSync());
  host.on('server-status', (_launch, s) => log(formatStatus(s)));

  if (args.profile) {
    try {
      const launch = await host.launch(args.profile, { httpPort: 0, kind: 'serve', startAgent: true });
      const states = launch.statuses();
      log(`gatehouse: launched '${launch.profile.name}': ${states.filter((s) => s.state === 'ready').length} of ${states.length} servers ready`);
      if (launch.endpoint) log(`gatehouse: gateway  ${launch.endpoint.url} (token: Connect → Copy token in the window)`);
    } catch (err) {
      process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse serve: cannot launch '${args.profile}': ${(err as Error).message}`}\n`);
      dispatcher.close();
      await relay.close();
      await grants.close();
      await web.close();
      codes.closeSync();
      await host.shutdown('profile refused');
      return 1;
    }
  }
  process.on('exit', () => dispatcher.close());
  await new Promise<void>(() => {
    /* runs until a signal; installShutdown exits the process */
  });
  await shutdown('unreachable');
  return 0;
}

/** `--print-login-url`: the code is shown to a person at a terminal, never into a pipe or file. */
function printLoginUrl(dataDir: string): number {
  if (!process.stdout.isTTY) {
    process.stderr.write('gatehouse serve --print-login-url: stdout is not a terminal; the login URL is only shown on one\n');
    return 1;
  }
  const got = readLoginUrl(dataDir);
  if ('error' in got) {
    process.stderr.write(`gatehouse serve --print-login-url: ${got.error}\n`);
    return 1;
  }
  process.stdout.write(`${got.url}\n`);
  return 0;
}
