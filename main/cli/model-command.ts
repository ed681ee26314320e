// `gatehouse model export --profile P [--observed] [--session REF]... [-o FILE] [--data-dir DIR]`:
// a FIAM v0.2 YAML model of the workspace (docs/fiam.md).
//
// Where the facts come from: the profile is launched briefly, as `gatehouse tools spec` does,
// so the model says what the servers answer NOW (initialize, tools/list, their schemas), not what
// they answered in some earlier session. That launch records nothing (audit off): exporting does
// not add a session to the trail it reads. With --observed, the audit store is then read for what
// really happened in the profile's recent sessions (or the ones named with --session).
import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auditDbFile, openAuditStore, type AuditStore } from '../audit/store';
import { Host } from '../host';
import { dataDir as defaultDataDir } from '../paths';
import { ProfileError } from '../profiles/profile-error';

const USAGE = 'usage: gatehouse model export --profile NAME|FILE [--observed] [--session ID]... [-o FILE] [--data-dir DIR]';

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'export') {
    process.stderr.write(`${sub ? `gatehouse model: unknown subcommand '${sub}'\n` : ''}${USAGE}\n`);
    return 2;
  }
  let args;
  try {
    args = parseArgs({
      args: rest,
      options: {
        profile: { type: 'string', short: 'p' },
        observed: { type: 'boolean' },
        session: { type: 'string', multiple: true },
        output: { type: 'string', short: 'o' },
        'data-dir': { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`gatehouse model: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!args.profile) {
    process.stderr.write(`gatehouse model: --profile is required\n${USAGE}\n`);
    return 2;
  }
  if (args.session && !args.observed) {
    process.stderr.write(`gatehouse model: --session picks the sessions --observed reads; add --observed\n${USAGE}\n`);
    return 2;
  }
  const dataDir = args['data-dir'] ?? defaultDataDir(process.env);
  const { exportModel } = await import('../model/export-model');
  const host = new Host({ dataDir, audit: false });
  let store: AuditStore | undefined;
  try {
    const profile = host.resolve(args.profile);
    let sessions: string[] | undefined;
    if (args.observed) {
      const file = auditDbFile(dataDir);
      if (!existsSync(file)) throw new Error(`--observed: no audit database at ${file} (nothing has been recorded there yet; launch '${profile.name}' and use it first)`);
      store = openAuditStore({ file, retention: false, onError: (err) => process.stderr.write(`gatehouse model: ${err.message}\n`) });
      if (args.session) {
        sessions = args.session.map((ref) => {
          const r = store!.resolveSession(ref);
          if ('error' in r) throw new Error(`--session ${ref}: ${r.error}`);
          return r.id;
        });
      }
    }
    const launch = await host.launch(profile, { kind: 'launch' });
    const model = exportModel(launch, { observed: !!args.observed, audit: store, sessions });
    if (args.output) {
      writeFileSync(args.output, model.yaml);
      process.stderr.write(`gatehouse model: wrote ${args.output}\n`);
    } else {
      process.stdout.write(model.yaml);
    }
    return 0;
  } catch (err) {
    process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse model: ${(err as Error).message}`}\n`);
    return 1;
  } finally {
    store?.close();
    await host.shutdown('model export done');
  }
}
