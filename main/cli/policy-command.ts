// `gatehouse policy test --profile P [--policy FILE] [--since 7d] [--json]`: replays the calls the
// audit store recorded for a profile through its policy as it is now (or the `policy:` of FILE)
// and prints each call whose decision would change, with totals (docs/audit.md "Policy you can
// test"). Exit codes: 0 ok (changes are not a failure), 1 failure, 2 usage.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { dataDir as defaultDataDir } from '../paths';
import { auditDbFile, openAuditStore } from '../audit/store';
import { parseTimeBound } from '../audit/queries';
import { compilePolicy } from '../policy/engine';
import { replayCalls, shadowWords, type RecordedCall, type ReplayResult } from '../policy/replay';
import { resolveProfileRef } from '../profiles/resolve-ref';
import { PolicySchema } from '../profiles/schema';
import { policySpecOf } from '../profiles/resolve';
import { ProfileError } from '../profiles/profile-error';
import { StoreSecretProvider } from '../auth/store-provider';
import { openSecretStore } from '../auth/secret-store';
import type { PolicySpec } from '../profiles/types';

const USAGE = `usage: gatehouse policy test --profile NAME|FILE [--policy FILE] [--since T] [--json] [--data-dir DIR]
  replays the calls recorded for the profile (default: the last 7d) through its policy as it is now,
  or through the policy: block of FILE (a profile, or a file holding only a policy), and prints
  each call whose decision would change (before → after, rule) with totals
`;

class Usage extends Error {}

export interface PolicyTestOptions {
  profile: string;
  policyFile?: string;
  since?: string;
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
}

/** The policy to test: the profile's now, or FILE's (`policy:` of a profile, or the block alone). */
function policyOf(file: string | undefined, current: PolicySpec): PolicySpec {
  if (!file) return current;
  const data = parseYaml(fs.readFileSync(file, 'utf8')) as unknown;
  const block = data !== null && typeof data === 'object' && 'policy' in data ? (data as { policy: unknown }).policy : data;
  const parsed = PolicySchema.safeParse(block ?? {});
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`${file}: not a valid policy: ${first ? `${first.path.join('.') || '(top)'}: ${first.message}` : parsed.error.message}`);
  }
  return policySpecOf(parsed.data);
}

export function policyTest(o: PolicyTestOptions): ReplayResult & { profile: string; since: number } {
  const dataDir = o.dataDir ?? defaultDataDir();
  const env = o.env ?? process.env;
  const secrets = new StoreSecretProvider(() => openSecretStore({ dataDir, env }), env);
  const profile = resolveProfileRef(o.profile, { dataDir, env, secrets });
  const policy = compilePolicy(policyOf(o.policyFile, profile.policy), { workspace: profile.workspace });
  const since = parseTimeBound(o.since ?? '7d');
  const file = auditDbFile(dataDir);
  if (!fs.existsSync(file)) throw new Error(`no audit database at ${file} (nothing has been recorded there yet)`);
  const store = openAuditStore({ file, retention: false, onError: (err) => process.stderr.write(`gatehouse policy: ${err.message}\n`) });
  try {
    const calls = function* (): Generator<RecordedCall> {
      for (const s of store.listSessions({ profile: profile.name, limit: 10_000 })) {
        let afterSeq: number | undefined;
        for (;;) {
          const page = store.queryDecisions({ session: s.id, since, limit: 10_000, ...(afterSeq !== undefined ? { afterSeq } : {}) });
          for (const d of page) yield d;
          if (page.length < 10_000) break;
          afterSeq = page[page.length - 1]!.seq;
        }
      }
    };
    return { profile: profile.name, since, ...replayCalls(policy, calls()) };
  } finally {
    store.close();
  }
}

export function formatPolicyTest(r: ReturnType<typeof policyTest>): string {
  const lines = r.changed.map((c) => {
    const when = new Date(c.call.ts).toISOString();
    return `${when}  ${c.call.session.slice(0, 8)}  ${c.call.tool}  ${c.before.decision} (${c.before.rule ?? '-'}) → ${c.after.decision} (${c.after.rule ?? '-'})`;
  });
  for (const s of r.shadowed) lines.push(`${new Date(s.call.ts).toISOString()}  ${s.call.session.slice(0, 8)}  ${s.call.tool}  ${shadowWords(s.shadow)} (not enforced)`);
  const totals = Object.entries(r.totals).map(([k, n]) => `${k}: ${n}`).join(', ');
  lines.push(`${r.replayed} calls of profile ${r.profile} replayed since ${new Date(r.since).toISOString()}; ${r.changed.length} would change${totals ? ` (${totals})` : ''}` +
    `${r.shadowed.length ? `; ${r.shadowed.length} would be decided otherwise by a shadow rule` : ''}${r.skipped ? `; ${r.skipped} not decided by the policy, skipped` : ''}`);
  return `${lines.join('\n')}\n`;
}

export async function run(argv: string[]): Promise<number> {
  try {
    const [sub, ...rest] = argv;
    if (sub !== 'test') throw new Usage(sub === undefined ? 'a subcommand is needed' : `unknown subcommand '${sub}'`);
    let v;
    try {
      v = parseArgs({
        args: rest,
        options: { profile: { type: 'string', short: 'p' }, policy: { type: 'string' }, since: { type: 'string' }, json: { type: 'boolean' }, 'data-dir': { type: 'string' } },
        strict: true,
      }).values;
    } catch (err) {
      throw new Usage((err as Error).message);
    }
    if (!v.profile) throw new Usage('--profile is required');
    const r = policyTest({ profile: v.profile, policyFile: v.policy, since: v.since, dataDir: v['data-dir'] });
    process.stdout.write(v.json ? `${JSON.stringify(r, null, 2)}\n` : formatPolicyTest(r));
    return 0;
  } catch (err) {
    if (err instanceof Usage) {
      process.stderr.write(`gatehouse policy: ${err.message}\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse policy: ${(err as Error).message}`}\n`);
    return 1;
  }
}
