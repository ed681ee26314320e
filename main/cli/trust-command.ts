// `gatehouse trust list|diff|accept|reject --profile P [--server S] [--tool T]` and
// `gatehouse trust export [--profile P] [--out FILE] | import FILE` (docs/trust.md).
// Exit codes: 0 done, 1 nothing of that name / refused file, 2 usage. Output to stdout; notes to stderr.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { dataDir as defaultDataDir } from '../paths';
import { ProfileError } from '../profiles/profile-error';
import { resolveProfileRef } from '../profiles/resolve-ref';
import type { ResolvedProfile } from '../profiles/types';
import { StoreSecretProvider } from '../auth/store-provider';
import { openSecretStore, type SecretStore } from '../auth/secret-store';
import { cliActor, openCliTrustStore } from './trust-store';
import { approveReview, changeSummary, keepStoppedReview, reviewProfileLaunch, type LaunchReview } from '../trust/launch-consent';
import { PROFILE_REVIEW } from '../trust/profile-identity';
import { launchSearchPath } from '../trust/program-identity';
import type { TrustStore } from '../trust/pin-store';
import { definitionDiff } from '../trust/tool-diff';
import type { ToolDefinition } from '../trust/tool-definition';
import { HELP, parseCommandArgs, usageError, UsageExit } from './args';

const USAGE = `usage: gatehouse trust list   --profile P [--server S] [--json]
       gatehouse trust diff   --profile P [--server S] [--tool T]
       gatehouse trust accept --profile P [--server S] [--tool T] [--hash H]
       gatehouse trust reject --profile P [--server S] [--tool T] [--hash H]
       gatehouse trust export [--profile P] [--out FILE]
       gatehouse trust import FILE
  (all take --data-dir DIR)

  accept without --tool approves the launch command of each server (or of --server S) and
  every tool definition held for review; with --tool T only that tool. --hash H (as \`trust diff\`
  shows it) decides only what still has that hash: a definition swapped in since is left held.`;

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const args = parseCommandArgs('trust', USAGE, () => {
    const parsed = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: true,
      options: {
        ...HELP,
        profile: { type: 'string', short: 'p' },
        server: { type: 'string', short: 's' },
        tool: { type: 'string', short: 't' },
        hash: { type: 'string' },
        out: { type: 'string', short: 'o' },
        json: { type: 'boolean' },
        'data-dir': { type: 'string' },
      },
    });
    return { ...parsed.values, positionals: parsed.positionals };
  });
  if (args instanceof UsageExit) return args.code;
  if (sub === '--help' || sub === '-h') {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const v = args;
  const dataDir = v['data-dir'] ?? defaultDataDir(process.env);
  const trust = openCliTrustStore(dataDir);
  try {
    // The PATH a launch would search: the program pins are computed on it (trust/program-identity.ts).
    const searchPath = ['list', 'diff', 'accept', 'reject'].includes(sub ?? '') ? await launchSearchPath(process.env) : '';
    return dispatch(searchPath);
  } catch (err) {
    process.stderr.write(`gatehouse trust: ${(err as Error).message}\n`);
    return 1;
  } finally {
    trust.close();
  }

  function dispatch(searchPath: string): number {
    switch (sub) {
      case 'export': {
        const bundle = trust.store.exportBundle(v.profile ? [v.profile] : undefined);
        const text = `${JSON.stringify(bundle, null, 2)}\n`;
        if (v.out) fs.writeFileSync(v.out, text, { mode: 0o600 });
        else process.stdout.write(text);
        process.stderr.write(`exported the pins of ${bundle.profiles.length} profile${bundle.profiles.length === 1 ? '' : 's'}\n`);
        return 0;
      }
      case 'import': {
        const file = v.positionals[0];
        if (!file) return usageError('trust', USAGE, 'import needs a FILE').code;
        try {
          const names = trust.store.importBundle(JSON.parse(fs.readFileSync(file, 'utf8')), cliActor());
          process.stderr.write(`imported the pins of ${names.join(', ') || 'no profile'}\n`);
          return 0;
        } catch (err) {
          process.stderr.write(`gatehouse trust import: ${file}: ${(err as Error).message}\n`);
          return 1;
        }
      }
      case 'list':
      case 'diff':
      case 'accept':
      case 'reject': {
        if (!v.profile) return usageError('trust', USAGE, '--profile is required').code;
        let profile: ResolvedProfile;
        try {
          // Resolved exactly as `launch` resolves it (the same default workspace; ${secret:…} from
          // the secret store, then the environment), so what is pinned here is what launch checks.
          let secretStore: SecretStore | undefined;
          const secrets = new StoreSecretProvider(() => (secretStore ??= openSecretStore({ dataDir, env: process.env })), process.env);
          profile = resolveProfileRef(v.profile, { dataDir, env: process.env, secrets });
        } catch (err) {
          process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse trust: ${(err as Error).message}`}\n`);
          return 1;
        }
        if (v.server && !profile.servers.some((s) => s.id === v.server)) {
          process.stderr.write(`gatehouse trust: profile '${profile.name}' has no server '${v.server}' (its servers: ${profile.servers.map((s) => s.id).join(', ')})\n`);
          return 1;
        }
        const ctx = { profile, store: trust.store, server: v.server, tool: v.tool, hash: v.hash, by: cliActor(), searchPath };
        if (sub === 'list') return list(ctx, !!v.json);
        if (sub === 'diff') return diff(ctx);
        return decide(ctx, sub);
      }
      default:
        return usageError('trust', USAGE, sub ? `unknown subcommand '${sub}'` : 'a subcommand is required').code;
    }
  }
}

interface Ctx {
  profile: ResolvedProfile;
  store: TrustStore;
  server?: string;
  tool?: string;
  /** accept/reject only what has this hash (the one `trust diff` showed): nothing swapped in since. */
  hash?: string;
  by: string;
  searchPath: string;
}

/** The profile's own review (unless --server names one server) and each server's. */
function launches(ctx: Ctx): LaunchReview[] {
  return reviewProfileLaunch(ctx.profile, ctx.store, { searchPath: ctx.searchPath }).filter((r) => !ctx.server || r.server === ctx.server);
}

function list(ctx: Ctx, json: boolean): number {
  const all = launches(ctx);
  const own = all.find((r) => r.server === PROFILE_REVIEW);
  const policy = own ? { launch: own.status, changed: own.changed, approvedBy: own.approvedBy, approvedAt: own.approvedAt } : undefined;
  const rows = all.filter((r) => r.server !== PROFILE_REVIEW).map((r) => {
    const pin = ctx.store.server(ctx.profile.name, r.server);
    return {
      server: r.server,
      launch: r.builtin ? 'built-in' : r.status,
      changed: r.changed,
      approvedBy: r.approvedBy,
      approvedAt: r.approvedAt,
      command: r.lines.find((l) => l.field === 'command' || l.field === 'origin')?.value,
      pinnedTools: Object.keys(pin?.tools ?? {}).sort(),
      pending: Object.entries(pin?.pending ?? {}).map(([name, p]) => ({ name, change: pin?.tools?.[name] ? 'changed' : 'new', hash: p.hash, flags: p.flags })),
      rejected: Object.keys(pin?.rejectedTools ?? {}),
    };
  });
  if (json) {
    process.stdout.write(`${JSON.stringify({ profile: ctx.profile.name, ...(policy ? { policy } : {}), servers: rows }, null, 2)}\n`);
    return 0;
  }
  if (policy) {
    const state = policy.launch === 'changed' ? `changed (${policy.changed.join(', ')})` : policy.launch === 'approved' ? `approved by ${policy.approvedBy ?? '?'}` : policy.launch;
    process.stdout.write(`${PROFILE_REVIEW}\tpolicy and tool surface: ${state}\n`);
  }
  for (const r of rows) {
    const launch = r.launch === 'changed' ? `changed (${r.changed.join(', ')})` : r.launch === 'approved' ? `approved by ${r.approvedBy ?? '?'}` : r.launch;
    process.stdout.write(`${r.server}\tlaunch: ${launch}\ttools pinned: ${r.pinnedTools.length}\n`);
    if (r.command) process.stdout.write(`  ${r.command}\n`);
    for (const p of r.pending) {
      const flags = p.flags.filter((f) => f.severity === 'hold').map((f) => f.message);
      process.stdout.write(`  held: ${p.name} (${p.change})${flags.length ? ` flagged: ${flags.join('; ')}` : ''}\n`);
    }
  }
  return 0;
}

function diff(ctx: Ctx): number {
  let shown = 0;
  for (const r of launches(ctx)) {
    if (!ctx.tool && r.status !== 'approved') {
      shown++;
      // `server b: program changed (entry … sha256:old → sha256:new)`, `profile p: policy and tool surface changed (policyDefault)`.
      const state = r.status === 'kept_stopped' ? 'kept stopped' : r.status === 'changed' ? `changed (${r.changed.join(', ')})` : r.status;
      process.stdout.write(r.server === PROFILE_REVIEW ? `profile ${ctx.profile.name}: policy and tool surface ${state}\n` : `server ${r.server}: ${r.status === 'changed' ? changeSummary(r) : `launch command ${state}`}\n`);
      const before = new Map((r.previousLines ?? []).map((l) => [l.field, l]));
      for (const l of r.lines) {
        const old = before.get(l.field);
        if (old && old.value !== l.value) process.stdout.write(`- ${old.label}: ${old.value}\n`);
        process.stdout.write(`${old && old.value === l.value ? ' ' : '+'} ${l.label}: ${l.value}\n`);
      }
    }
    if (r.server === PROFILE_REVIEW) continue;
    const pin = ctx.store.server(ctx.profile.name, r.server);
    for (const [name, p] of Object.entries(pin?.pending ?? {})) {
      if (ctx.tool && ctx.tool !== name) continue;
      shown++;
      const previous = pin?.tools?.[name]?.definition as unknown as ToolDefinition | undefined;
      process.stdout.write(definitionDiff(`${r.server}.${name}`, previous, p.definition as unknown as ToolDefinition));
      for (const f of p.flags) process.stdout.write(`  flag (${f.severity}): ${f.message}\n`);
    }
  }
  if (!shown) process.stderr.write(`nothing in profile '${ctx.profile.name}' waits for review\n`);
  return 0;
}

function decide(ctx: Ctx, sub: 'accept' | 'reject'): number {
  const profile = ctx.profile.name;
  let done = 0;
  let skipped = 0;
  for (const r of launches(ctx)) {
    if (!ctx.tool && r.status !== 'approved' && ctx.hash && r.hash !== ctx.hash) skipped++;
    else if (!ctx.tool && r.status !== 'approved') {
      if (sub === 'accept') approveReview(ctx.store, ctx.profile, r, ctx.by);
      else keepStoppedReview(ctx.store, ctx.profile, r, ctx.by);
      process.stderr.write(`${sub === 'accept' ? 'approved' : 'kept stopped'}: ${r.server === PROFILE_REVIEW ? "the profile's policy and tool surface" : `launch of ${r.server}`}\n`);
      done++;
    }
    if (r.server === PROFILE_REVIEW) continue;
    const pin = ctx.store.server(profile, r.server);
    for (const [name, p] of Object.entries(pin?.pending ?? {})) {
      if (ctx.tool && ctx.tool !== name) continue;
      if (ctx.hash && p.hash !== ctx.hash) {
        skipped++;
        continue;
      }
      if (sub === 'accept') ctx.store.pinTools(profile, r.server, [{ name, hash: p.hash, definition: p.definition as unknown as ToolDefinition, flags: p.flags as never }], ctx.by, 'accepted');
      else ctx.store.rejectTool(profile, r.server, name, p.hash, ctx.by);
      process.stderr.write(`${sub === 'accept' ? 'accepted' : 'rejected'}: tool ${r.server}.${name} (${p.hash.slice(0, 12)})\n`);
      done++;
    }
  }
  if (ctx.hash && done === 0 && skipped > 0) {
    process.stderr.write(`gatehouse trust: what waits for review no longer has hash ${ctx.hash} (it changed since you looked): run \`gatehouse trust diff\` again\n`);
    return 1;
  }
  if (ctx.tool && done === 0) {
    process.stderr.write(`gatehouse trust: no held definition of tool '${ctx.tool}'${ctx.server ? ` on server '${ctx.server}'` : ''} in profile '${profile}'\n`);
    return 1;
  }
  if (done === 0) process.stderr.write(`nothing in profile '${profile}' waits for review\n`);
  return 0;
}
