// `gatehouse auth login|logout|status --profile P [--server S]`: the profile's `auth: oauth`
// servers, signed in through the same UpstreamOAuth a launch uses, on the same secret store.
import { parseArgs } from 'node:util';
import { Host } from '../host';
import type { HttpServerSpec } from '../profiles/types';
import { HELP, parseCommandArgs, resolveForCommand, UsageExit } from './args';

export async function runProfileAuth(sub: 'login' | 'logout' | 'status', argv: string[], usage: string): Promise<number> {
  const values = parseCommandArgs(`auth ${sub}`, usage, () =>
    parseArgs({
      args: argv,
      options: { ...HELP, profile: { type: 'string', short: 'p' }, server: { type: 'string', short: 's' }, headless: { type: 'boolean' }, 'data-dir': { type: 'string' } },
      strict: true,
    }).values,
  );
  if (values instanceof UsageExit) return values.code;
  if (!values.profile || (sub !== 'status' && !values.server)) {
    process.stderr.write(`gatehouse auth ${sub}: --profile${sub === 'status' ? '' : ' and --server are'}${sub === 'status' ? ' is' : ''} required\n${usage}\n`);
    return 2;
  }
  const host = new Host({ ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}), audit: false });
  try {
    const profile = await resolveForCommand(host, `auth ${sub}`, values.profile);
    if (profile instanceof UsageExit) return profile.code;
    const oauthServers = profile.servers.filter((s): s is HttpServerSpec => s.kind === 'http' && s.oauth !== undefined);
    let targets = oauthServers;
    if (values.server) {
      const spec = profile.servers.find((s) => s.id === values.server);
      if (!spec) {
        process.stderr.write(`gatehouse auth ${sub}: profile '${profile.name}' has no server '${values.server}' (it has ${profile.servers.map((s) => s.id).join(', ') || 'none'})\n`);
        return 1;
      }
      if (spec.kind !== 'http' || !spec.oauth) {
        process.stderr.write(`gatehouse auth ${sub}: server '${spec.id}' does not use \`auth: oauth\` (add it to the server in ${profile.file})\n`);
        return 1;
      }
      targets = [spec];
    }
    if (targets.length === 0) {
      process.stderr.write(`gatehouse auth ${sub}: profile '${profile.name}' has no server with \`auth: oauth\`\n`);
      return 1;
    }
    const store = host.auth.store;
    if (store.warning) process.stderr.write(`gatehouse: warning: ${store.warning}\n`);
    const say = (line: string) => process.stderr.write(`${profile.redactor.redactString(line)}\n`);
    if (sub === 'status') {
      for (const spec of targets) {
        const s = host.auth.create(spec, profile.redactor).status();
        const until = s.expiresAt ? `, token until ${new Date(s.expiresAt).toISOString()}${s.hasRefreshToken ? ' (refreshable)' : ''}` : '';
        process.stdout.write(`${spec.id}\t${s.state}${s.issuer ? `\tissuer ${s.issuer}` : ''}${until}${s.reason ? `\t${s.reason}` : ''}\n`);
      }
      say(`(secrets in ${store.description})`);
      return 0;
    }
    const spec = targets[0]!;
    const provider = host.auth.create(spec, profile.redactor);
    if (sub === 'logout') {
      say(provider.signOut() ? `signed out of ${spec.id}: its tokens were removed from ${store.description}` : `${spec.id} was not signed in`);
      return 0;
    }
    const { followAuthorizationHeadless } = await import('../auth/loopback-redirect');
    await provider.signIn(async (url) => {
      if (values.headless) await followAuthorizationHeadless(url, provider.redirectUrl);
      else say(`\nOpen this address in your browser to sign in to ${spec.id}:\n\n  ${url.href}\n\nWaiting for the sign-in (Ctrl-C to give up)...`);
    });
    const s = provider.status();
    say(`signed in to ${spec.id}${s.issuer ? ` (issuer ${s.issuer})` : ''}${s.expiresAt ? `, token until ${new Date(s.expiresAt).toISOString()}` : ''}; tokens are in ${store.description}`);
    return 0;
  } catch (err) {
    process.stderr.write(`gatehouse auth ${sub}: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await host.shutdown(`auth ${sub} done`);
  }
}
