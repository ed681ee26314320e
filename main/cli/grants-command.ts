// `gatehouse grants list [--json]` and `gatehouse grants revoke ID...|--all`: the "allow for this
// session" grants of the host running with this data dir (`gatehouse serve`, `gatehouse launch`,
// the desktop app), seen and taken back from a terminal through its grants control socket
// (main/approvals/grants-control.ts). Grants live only in that host's memory: with no host
// running there are none, and the command says so (exit 1).
import { parseArgs } from 'node:util';
import { askGrants, grantsSocketPath, type GrantsRequest, type GrantsResponse, type SessionGrant } from '../approvals/grants-wire';
import { dateTime } from '../audit/format';
import { dataDir as defaultDataDir } from '../paths';
import { HELP, parseCommandArgs, usageError, UsageExit } from './args';

const USAGE = `usage: gatehouse grants list [--json] [--data-dir DIR]
       gatehouse grants revoke ID... | --all [--data-dir DIR]
  list     the session grants ("allow for this session") of the running host of this data dir:
           id, agent, tool, what it covers (the narrowing pattern, if any), since when
  revoke   forget grants by id (or every one with --all); the calls they covered ask again
  --data-dir DIR   the host's data dir (default GATEHOUSE_DATA_DIR or $XDG_STATE_HOME/gatehouse)
Only list and revoke exist: nothing here grants anything or answers an approval.`;

export async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === '--help' || verb === '-h') {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  if (verb !== 'list' && verb !== 'revoke') return usageError('grants', USAGE, verb ? `unknown subcommand '${verb}'` : 'list or revoke?').code;
  let positionals: string[] = [];
  const values = parseCommandArgs('grants', USAGE, () => {
    const parsed = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: verb === 'revoke',
      options: { ...HELP, json: { type: 'boolean' }, all: { type: 'boolean' }, 'data-dir': { type: 'string' } },
    });
    positionals = parsed.positionals;
    return parsed.values;
  });
  if (values instanceof UsageExit) return values.code;
  const dir = values['data-dir'] ?? defaultDataDir(process.env);

  if (verb === 'list') {
    if (values.all) return usageError('grants', USAGE, '--all goes with revoke').code;
    const reply = await ask(dir, { verb: 'list' });
    if (typeof reply === 'number') return reply;
    const grants = 'grants' in reply ? reply.grants : [];
    if (values.json) process.stdout.write(`${JSON.stringify(grants, null, 2)}\n`);
    else process.stdout.write(formatGrants(grants));
    return 0;
  }

  if (values.json) return usageError('grants', USAGE, '--json goes with list').code;
  if (!!values.all === positionals.length > 0) return usageError('grants', USAGE, 'revoke takes grant ids or --all, one of the two').code;
  const requests: GrantsRequest[] = values.all ? [{ verb: 'revoke', all: true }] : positionals.map((id) => ({ verb: 'revoke', id }));
  let missing = 0;
  for (const req of requests) {
    const reply = await ask(dir, req);
    if (typeof reply === 'number') return reply;
    const revoked = 'revoked' in reply ? reply.revoked : [];
    for (const g of revoked) process.stdout.write(`revoked ${g.id}  ${g.tool}  (${covers(g)})\n`);
    if ('id' in req && revoked.length === 0) {
      process.stderr.write(`gatehouse grants: no grant with id ${req.id} (gatehouse grants list shows them)\n`);
      missing++;
    }
    if ('all' in req && revoked.length === 0) process.stdout.write('no session grants to revoke\n');
  }
  return missing > 0 ? 1 : 0;
}

/** One request to the host; its answer, or the exit code after saying why there is none. */
async function ask(dir: string, req: GrantsRequest): Promise<Exclude<GrantsResponse, { ok: false }> | number> {
  const got = await askGrants(grantsSocketPath(dir), req);
  if ('noHost' in got) {
    process.stderr.write(
      `gatehouse grants: no Gatehouse host is running with data in ${dir} (${got.noHost}).\n` +
        'Session grants live in a running host (gatehouse serve, gatehouse launch, the desktop app); with none running there are none.\n',
    );
    return 1;
  }
  if ('error' in got) {
    process.stderr.write(`gatehouse grants: ${got.error}\n`);
    return 1;
  }
  if (!got.reply.ok) {
    process.stderr.write(`gatehouse grants: the host said: ${got.reply.error}\n`);
    return 1;
  }
  return got.reply;
}

function covers(g: SessionGrant): string {
  if (g.grant === 'tool') return 'every call';
  if (g.grant === 'pattern') return `${g.arg} matching ${g.pattern}`;
  return `these arguments: ${JSON.stringify(g.args ?? {})}`;
}

function formatGrants(grants: SessionGrant[]): string {
  if (grants.length === 0) return 'no session grants (every call that needs approval asks)\n';
  const rows = grants.map((g) => [g.id, g.agentName ?? g.agentSession ?? '-', g.approvalKind === 'tool' ? g.tool : `${g.tool} (${g.approvalKind})`, covers(g), dateTime(g.createdAt), g.by]);
  const head = ['ID', 'AGENT', 'TOOL', 'COVERS', 'SINCE', 'BY'];
  const widths = head.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return `${[head, ...rows].map(line).join('\n')}\n`;
}
