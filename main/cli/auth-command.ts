// `gatehouse auth login|logout|status --profile P --server S` and `gatehouse auth check URL`.
// Sign-in happens in the system browser: the CLI prints the URL (it opens nothing itself) and
// waits for the redirect on 127.0.0.1; `check --headless` follows the redirects itself, for
// authorization servers that approve without a person (test servers, the conformance suite).
import { parseArgs } from 'node:util';
import { Redactor } from '../secrets/redactor';
import { parseCommandArgs, UsageExit, HELP } from './args';

const USAGE = `usage:
  gatehouse auth login  --profile P --server S [--headless]   sign in to a profile's OAuth server
  gatehouse auth logout --profile P --server S                remove its tokens from the secret store
  gatehouse auth status --profile P [--server S]              who is signed in, until when
  gatehouse auth check [--headless] [--client-id ID] [--scope S] [--keep] URL
      connect to URL as a launched profile's upstream would (discovery, registration,
      sign-in, refresh), initialize, list tools, call each tool that needs no arguments;
      exit 0 only if all of that worked. Credentials live in memory unless --keep.`;

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'check') return check(rest);
  if (sub === 'login' || sub === 'logout' || sub === 'status') {
    const { runProfileAuth } = await import('./auth-profile-command');
    return runProfileAuth(sub, rest, USAGE);
  }
  process.stderr.write(`${sub && sub !== '--help' && sub !== '-h' ? `gatehouse auth: unknown subcommand '${sub}'\n` : ''}${USAGE}\n`);
  return sub === '--help' || sub === '-h' ? 0 : 2;
}

/** The conformance suite hands pre-registered credentials to its client in this variable. */
function conformanceContext(env: NodeJS.ProcessEnv): { client_id?: string; client_secret?: string } {
  try {
    const ctx = JSON.parse(env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;
    return {
      ...(typeof ctx.client_id === 'string' ? { client_id: ctx.client_id } : {}),
      ...(typeof ctx.client_secret === 'string' ? { client_secret: ctx.client_secret } : {}),
    };
  } catch {
    return {};
  }
}

async function check(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('auth check', USAGE, () => {
    const r = parseArgs({
      args: argv,
      options: {
        ...HELP,
        headless: { type: 'boolean' },
        'client-id': { type: 'string' },
        scope: { type: 'string' },
        keep: { type: 'boolean' },
        'data-dir': { type: 'string' },
        'client-metadata-url': { type: 'string' },
        json: { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    });
    return { ...r.values, positionals: r.positionals };
  });
  if (parsed instanceof UsageExit) return parsed.code;
  const values = parsed;
  const positionals = parsed.positionals;
  if (positionals.length !== 1) {
    process.stderr.write(`gatehouse auth check: expected one URL, got ${positionals.length}\n${USAGE}\n`);
    return 2;
  }
  const url = positionals[0]!;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    process.stderr.write(`gatehouse auth check: expected an http(s) URL, got '${url}'\n`);
    return 2;
  }
  const env = process.env;
  const ctx = conformanceContext(env);
  // A pre-registered secret comes from the environment, never from argv (ps shows argv).
  const clientId = values['client-id'] ?? env.GATEHOUSE_OAUTH_CLIENT_ID ?? ctx.client_id;
  const clientSecret = env.GATEHOUSE_OAUTH_CLIENT_SECRET ?? ctx.client_secret;
  const clientMetadataUrl = values['client-metadata-url'] ?? env.GATEHOUSE_OAUTH_CLIENT_METADATA_URL;
  const redactor = new Redactor();
  if (clientSecret) redactor.add('client_secret', clientSecret);
  const log = (line: string) => process.stderr.write(`gatehouse auth check: ${redactor.redactString(line)}\n`);

  const { runConnectCheck } = await import('../auth/connect-check');
  const { followAuthorizationHeadless } = await import('../auth/loopback-redirect');
  const { MemorySecretStore, openSecretStore } = await import('../auth/secret-store');
  const { dataDir } = await import('../paths');
  let store: import('../auth/secret-store').SecretStore;
  try {
    store = values.keep ? openSecretStore({ dataDir: values['data-dir'] ?? dataDir(env), env }) : new MemorySecretStore();
  } catch (err) {
    log((err as Error).message);
    return 1;
  }
  if (store.warning) log(`warning: ${store.warning}`);
  const result = await runConnectCheck({
    url,
    store,
    settings: {
      ...(clientId ? { clientId } : {}),
      ...(clientSecret ? { clientSecret } : {}),
      ...(values.scope ? { scopes: values.scope.split(/[\s,]+/).filter(Boolean) } : {}),
      ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    },
    open: async (authUrl, redirectUri) => {
      if (values.headless) {
        log(`following the authorization redirect headless (${authUrl.origin})`);
        await followAuthorizationHeadless(authUrl, redirectUri);
      } else {
        process.stderr.write(`\nOpen this address in your browser to sign in:\n\n  ${authUrl.href}\n\n`);
      }
    },
    log,
    onSecret: (name, value) => redactor.add(name, value),
    ...(values.headless ? { signInTimeoutMs: 20_000 } : {}),
  });
  for (const f of result.failures) log(`FAILED: ${f}`);
  const summary = `${result.ok ? 'ok' : 'failed'}: ${result.tools} tools, ${result.called} called, ${result.signIns} sign-in(s), refresh ${result.refreshed ? 'used' : 'not used'}`;
  if (values.json) process.stdout.write(`${redactor.redactString(JSON.stringify(result))}\n`);
  else log(summary);
  return result.ok ? 0 : 1;
}
