// `gatehouse` — the headless shell. Each subcommand lives in its own module and is
// loaded lazily, so `gatehouse gateway` (a stdio MCP server) starts without loading
// what it does not use. Exit codes: 0 ok, 1 failure, 2 usage error, 70 internal error.
// stdout is reserved for a command's output (and, for `gateway`, protocol bytes only);
// messages and logs go to stderr.


type Command = { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> };

const commands: Record<string, Command> = {
  profiles: { summary: 'profiles list | validate FILE... | schema | import FILE', load: () => import('./profiles-command') },
  launch: { summary: 'launch --profile NAME|FILE   start a profile\'s servers and supervise them', load: () => import('./launch-command') },
  audit: { summary: 'audit tail | query | export   read the audit store', load: () => import('./audit-command') },
  gateway: { summary: 'gateway --profile P [--http PORT]   a governed MCP server for other hosts', load: () => import('./gateway-command') },
  serve: { summary: 'serve [--port N] [--profile P]   the app in a browser on 127.0.0.1 (headless shell)', load: () => import('./serve-command') },
  connect: { summary: 'connect --profile P --client C [--url URL] [--write]   point an MCP client at the gateway', load: () => import('./connect-command') },
  auth: { summary: 'auth login|logout|status --profile P --server S | check [--headless] URL   OAuth sign-in for remote servers', load: () => import('./auth-command') },
  secrets: { summary: 'secrets set|delete|list [NAME]   the values behind ${secret:NAME}, in the OS keychain', load: () => import('./secrets-command') },
  grants: { summary: 'grants list [--json] | revoke ID...|--all   the running host\'s "allow for this session" grants', load: () => import('./grants-command') },
  trust: { summary: 'trust list|diff|accept|reject --profile P [--server S] [--tool T] | export | import FILE   launch consent and tool pins', load: () => import('./trust-command') },
  policy: { summary: 'policy test --profile P [--policy FILE] [--since 7d] [--json]   replay recorded calls through a changed policy', load: () => import('./policy-command') },
  tools: { summary: 'tools spec --profile P [--server S]   write MCP_TOOL_SPECIFICATION.md', load: () => import('./tools-command') },
  model: { summary: 'model export --profile P [--observed] [-o FILE]   a FIAM v0.2 model of the workspace', load: () => import('./model-command') },
  doctor: { summary: 'doctor [--json] [--fix [--apply]]   is this machine ready: sandbox, secret store, Electron, native modules', load: () => import('./doctor-command') },
};

function usage(): string {
  const lines = Object.entries(commands).map(([, c]) => `  gatehouse ${c.summary}`);
  return `usage:\n${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stderr.write(usage());
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`gatehouse: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  const mod = await command.load();
  return mod.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`gatehouse: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 70;
  },
);
