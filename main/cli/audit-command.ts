// `gatehouse audit …`: read (and prune) the audit store from a shell. Rows go to stdout,
// messages to stderr. Exit codes: 0 ok, 1 failure (no database, no such session), 2 usage.
import fs from 'node:fs';
import { once } from 'node:events';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { dataDir } from '../paths';
import { CALL_HEADER, formatCall, formatDecision, formatMessage, formatRun, formatSession, formatStderr, SESSION_HEADER, dateTime } from '../audit/format';
import { parseTimeBound, MAX_LIMIT } from '../audit/queries';
import { DEFAULT_RETENTION } from '../audit/retention';
import { auditDbFile, openAuditStore, type AuditStore, type OpenAuditStoreOptions } from '../audit/store';
import type { AuditStream, CallFilter, DecisionFilter, MessageFilter, PruneOptions, StderrFilter } from '../audit/types';
import type { TrafficDirection } from '../protocol/types';

const USAGE = `usage:
  gatehouse audit sessions [--limit N] [--profile P] [--json]
  gatehouse audit show [SESSION|latest] [--json]
  gatehouse audit tail [--session S|latest|all] [--server X] [-n N] [--follow] [--stderr|--decisions]
  gatehouse audit query [--session S] [--server X] [--method M] [--direction D] [--since T] [--until T]
                        [--text STR] [--exchange ID] [--limit N] [--after-seq N] [--before-seq N] [--json] [--stderr|--decisions]
  gatehouse audit calls [--session S|latest|all] [--outcome O] [--decided-by B] [--decision D] [--tool T]
                        [--server X] [--since T] [--until T] [--text STR] [-n N] [--json]
  gatehouse audit export --jsonl [--out FILE] [filters as for query] [--stderr|--decisions]
  gatehouse audit prune [--max-age-days N] [--max-messages N] [--max-stderr-lines N] [--json]
  gatehouse audit verify [--session S] [--json]          check the store's hash chains and signatures
  gatehouse audit verify FILE [--key KEYID] [--json]      check an export bundle, without the store
  gatehouse audit export --bundle FILE [--session S]      a signed bundle: rows, checkpoints, public key
  gatehouse audit key [--json]                            this install's audit key id and public key
common: --data-dir DIR (default: GATEHOUSE_DATA_DIR, else $XDG_STATE_HOME/gatehouse)
times (--since/--until): epoch ms, ISO 8601, or a duration back from now (90s, 15m, 2h, 7d)
directions: agent_to_gateway, gateway_to_agent, gateway_to_server, server_to_gateway
outcomes (calls): pending, ok, error, denied, unavailable, timeout, cancelled, aborted
decided by (calls): rule, person, timeout, no_approver, cancelled, gateway
`;

const OUTCOMES = ['pending', 'ok', 'error', 'denied', 'unavailable', 'timeout', 'cancelled', 'aborted'];
const DECIDERS = ['rule', 'person', 'timeout', 'no_approver', 'cancelled', 'gateway'];
const DECISIONS = ['ALLOW', 'APPROVAL', 'DENY'];

const DIRECTIONS: readonly TrafficDirection[] = ['agent_to_gateway', 'gateway_to_agent', 'gateway_to_server', 'server_to_gateway'];
const FOLLOW_POLL_MS = 250;
const FOLLOW_PAGE = 1_000;

class UsageError extends Error {}
class Failure extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

const common: Options = { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } };
const filters: Options = {
  session: { type: 'string' },
  server: { type: 'string' },
  method: { type: 'string' },
  direction: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  text: { type: 'string' },
  tool: { type: 'string' },
  exchange: { type: 'string' },
  stderr: { type: 'boolean' },
  decisions: { type: 'boolean' },
};

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    switch (sub) {
      case 'sessions':
        return await sessions(rest);
      case 'show':
        return await show(rest);
      case 'tail':
        return await tail(rest);
      case 'query':
        return await query(rest);
      case 'export':
        return await exportCmd(rest);
      case 'calls':
        return await calls(rest);
      case 'prune':
        return await pruneCmd(rest);
      case 'verify':
      case 'key':
        return await (await import('./audit-proof')).runProof(sub, rest, USAGE);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stderr.write(USAGE);
        return sub === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown subcommand '${sub}'`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`gatehouse audit: ${err.message}\n${USAGE}`);
      return 2;
    }
    if (err instanceof Failure) {
      process.stderr.write(`gatehouse audit: ${err.message}\n`);
      return 1;
    }
    // A database we cannot open (newer schema, corrupt file, permissions) is a failure the
    // user can act on, not an internal error: say what and where.
    if (err instanceof Error && (err.name === 'AuditSchemaTooNewError' || (err as { code?: unknown }).code !== undefined)) {
      process.stderr.write(`gatehouse audit: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

// ---------------------------------------------------------------- subcommands

async function sessions(argv: string[]): Promise<number> {
  const v = parse(argv, { limit: { type: 'string' }, profile: { type: 'string' }, json: { type: 'boolean' } });
  if (v.help) return help();
  const limit = int(v, 'limit') ?? 20;
  return withStore(v, async (store) => {
    const rows = store.listSessions({ limit, profile: str(v, 'profile') });
    if (v.json) await emit(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length) await emit(`${SESSION_HEADER}\n${rows.map(formatSession).join('\n')}\n`);
    else process.stderr.write('gatehouse audit: no sessions recorded\n');
    return 0;
  });
}

async function show(argv: string[]): Promise<number> {
  const v = parse(argv, { json: { type: 'boolean' } }, true);
  if (v.help) return help();
  const positionals = v._;
  if (positionals.length > 1) throw new UsageError('show takes one session');
  return withStore(v, async (store) => {
    const id = resolve(store, positionals[0] ?? 'latest');
    const detail = store.getSession(id);
    if (!detail) throw new Failure(`no such session '${id}'`);
    const runs = store.serverRuns(id);
    const gaps = store.queryGaps(id);
    if (v.json) {
      await emit(`${JSON.stringify({ ...detail, serverRuns: runs, gaps }, null, 2)}\n`);
      return 0;
    }
    const lines = [SESSION_HEADER, formatSession(detail)];
    if (detail.profileFile || detail.workspace) lines.push(`profile file ${detail.profileFile ?? '-'}  workspace ${detail.workspace ?? '-'}`);
    if (runs.length) lines.push('server runs:', ...runs.map(formatRun));
    for (const a of detail.agentSessions) {
      lines.push(`agent session ${a.id}  ${a.clientName ?? '?'} ${a.clientVersion ?? ''}  ${a.transport ?? ''}  ${dateTime(a.startedAt)}${a.endedAt ? ` – ${dateTime(a.endedAt)}` : ''}`);
    }
    for (const g of gaps) lines.push(`gap: ${g.dropped} ${g.stream} dropped (audit queue full) around ${dateTime(g.firstTs ?? g.ts)}`);
    await emit(`${lines.join('\n')}\n`);
    return 0;
  });
}

async function tail(argv: string[]): Promise<number> {
  const v = parse(argv, { ...filters, follow: { type: 'boolean', short: 'f' }, n: { type: 'string', short: 'n' }, json: { type: 'boolean' } });
  if (v.help) return help();
  const n = int(v, 'n') ?? 20;
  const stream = streamOf(v);
  return withStore(v, async (store) => {
    const sessionRef = str(v, 'session') ?? 'latest';
    const f = { ...filterOf(v), session: sessionRef === 'all' ? undefined : resolve(store, sessionRef) };
    const print = printer(stream, Boolean(v.json));
    const fetch = (extra: { afterSeq?: number; latest?: boolean; limit: number }): { seq: number }[] =>
      select(store, stream, { ...f, ...extra });

    const first = fetch({ latest: true, limit: n });
    await print(first);
    if (!v.follow) return 0;

    let last = first[first.length - 1]?.seq ?? 0;
    let stop = false;
    let wake: (() => void) | undefined;
    const onSignal = (): void => {
      stop = true;
      wake?.();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      while (!stop) {
        const rows = fetch({ afterSeq: last, limit: FOLLOW_PAGE });
        if (rows.length) {
          last = rows[rows.length - 1]?.seq ?? last;
          await print(rows);
          if (rows.length === FOLLOW_PAGE) continue; // catching up: no sleep
        }
        await new Promise<void>((r) => {
          const t = setTimeout(r, FOLLOW_POLL_MS);
          wake = () => {
            clearTimeout(t);
            r();
          };
        });
        wake = undefined;
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    return 0;
  });
}

async function query(argv: string[]): Promise<number> {
  const v = parse(argv, {
    ...filters,
    limit: { type: 'string' },
    'after-seq': { type: 'string' },
    'before-seq': { type: 'string' },
    latest: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (v.help) return help();
  const stream = streamOf(v);
  const limit = int(v, 'limit') ?? 200;
  if (limit > MAX_LIMIT) throw new UsageError(`--limit is at most ${MAX_LIMIT} (page with --after-seq, or use export)`);
  return withStore(v, async (store) => {
    const f = { ...filterOf(v), session: sessionOf(store, v), limit: limit + 1, latest: Boolean(v.latest) };
    f.afterSeq = int(v, 'after-seq', 0);
    f.beforeSeq = int(v, 'before-seq', 0);
    let rows = select(store, stream, f);
    // One row more than asked says whether there is another page, without a count(*).
    const more = rows.length > limit;
    if (more) rows = f.latest ? rows.slice(1) : rows.slice(0, limit);
    // query --json is one document (an array); tail --json streams JSON Lines.
    if (v.json) await emit(`${JSON.stringify(rows, null, 2)}\n`);
    else await printer(stream, false)(rows);
    if (more && !v.json) {
      const hint = f.latest ? `--latest --before-seq ${rows[0]?.seq}` : `--after-seq ${rows[rows.length - 1]?.seq}`;
      process.stderr.write(`gatehouse audit: more rows match; next page: ${hint}\n`);
    }
    return 0;
  });
}

/** One row per call: decision, who decided, outcome, latency (the audit store's exchanges). */
async function calls(argv: string[]): Promise<number> {
  const v = parse(argv, {
    ...filters,
    outcome: { type: 'string' },
    'decided-by': { type: 'string' },
    decision: { type: 'string' },
    n: { type: 'string', short: 'n' },
    json: { type: 'boolean' },
  });
  if (v.help) return help();
  for (const only of ['method', 'direction', 'stderr', 'decisions']) {
    if (v[only] !== undefined) throw new UsageError(`--${only} does not apply to calls`);
  }
  const oneOf = (name: string, allowed: string[]): string | undefined => {
    const x = str(v, name);
    if (x !== undefined && !allowed.includes(x)) throw new UsageError(`--${name} expects one of ${allowed.join(', ')}, got '${x}'`);
    return x;
  };
  const f: CallFilter = { ...filterOf(v), limit: int(v, 'n') ?? 50, latest: true };
  const outcome = oneOf('outcome', OUTCOMES);
  const decidedBy = oneOf('decided-by', DECIDERS);
  const decision = oneOf('decision', DECISIONS);
  if (outcome) f.outcome = outcome;
  if (decidedBy) f.decidedBy = decidedBy;
  if (decision) f.decision = decision as CallFilter['decision'];
  return withStore(v, async (store) => {
    const sessionRef = str(v, 'session') ?? 'all';
    if (sessionRef !== 'all') f.session = resolve(store, sessionRef);
    const rows = store.queryCalls(f);
    if (v.json) await emit(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length) await emit(`${CALL_HEADER}\n${rows.map(formatCall).join('\n')}\n`);
    else process.stderr.write('gatehouse audit: no calls match\n');
    return 0;
  });
}

async function exportCmd(argv: string[]): Promise<number> {
  if (argv.some((a) => a === '--bundle' || a.startsWith('--bundle='))) return (await import('./audit-proof')).runProof('export', argv, USAGE);
  const v = parse(argv, { ...filters, jsonl: { type: 'boolean' }, out: { type: 'string', short: 'o' }, limit: { type: 'string' } });
  if (v.help) return help();
  if (!v.jsonl) throw new UsageError('export needs --jsonl (JSON Lines is the one export format)');
  const stream = streamOf(v);
  return withStore(v, async (store) => {
    const f = { ...filterOf(v), session: sessionOf(store, v), limit: int(v, 'limit') };
    const file = str(v, 'out');
    if (!file) {
      guardStdout();
      await store.exportJsonl(f, process.stdout, stream);
      return 0;
    }
    // Exports hold tool arguments and results: private, like the database itself.
    const out = fs.createWriteStream(file, { mode: 0o600 });
    try {
      await once(out, 'open');
      const count = await store.exportJsonl(f, out, stream);
      out.end();
      await once(out, 'finish');
      process.stderr.write(`gatehouse audit: exported ${count} ${stream === 'stderr' ? 'stderr lines' : stream} to ${file}\n`);
      return 0;
    } catch (err) {
      out.destroy();
      throw new Failure(`cannot write ${file}: ${(err as Error)?.message ?? String(err)}`);
    }
  });
}

async function pruneCmd(argv: string[]): Promise<number> {
  const v = parse(argv, {
    'max-age-days': { type: 'string' },
    'max-messages': { type: 'string' },
    'max-stderr-lines': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (v.help) return help();
  const given: PruneOptions = {
    maxAgeDays: num(v, 'max-age-days'),
    maxMessages: int(v, 'max-messages', 0),
    maxStderrLines: int(v, 'max-stderr-lines', 0),
  };
  const opts = Object.values(given).some((x) => x !== undefined) ? given : DEFAULT_RETENTION;
  return withStore(v, async (store) => {
    const r = store.prune(opts);
    if (v.json) await emit(`${JSON.stringify(r)}\n`);
    else {
      await emit(
        `removed ${r.messages} messages, ${r.stderrLines} stderr lines, ${r.decisions} decisions, ` +
          `${r.serverStates} server states, ${r.sessions} sessions\n`,
      );
    }
    return 0;
  }, (await import('./audit-proof')).pruneSigner(str(v, 'data-dir') ?? dataDir())); // what it removes from the chains leaves a signed summary
}

// ---------------------------------------------------------------- helpers

function help(): number {
  process.stderr.write(USAGE);
  return 0;
}

function parse(argv: string[], options: Options, positionals = false): Values & { _: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options: { ...common, ...options }, strict: true, allowPositionals: positionals });
    return Object.assign(parsed.values as Values, { _: parsed.positionals });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function str(v: Values, name: string): string | undefined {
  const x = v[name];
  return typeof x === 'string' ? x : undefined;
}

function num(v: Values, name: string): number | undefined {
  const x = str(v, name);
  if (x === undefined) return undefined;
  const n = Number(x);
  if (x.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`--${name} expects a number >= 0, got '${x}'`);
  return n;
}

function int(v: Values, name: string, min = 1): number | undefined {
  const x = str(v, name);
  if (x === undefined) return undefined;
  if (!/^\d+$/.test(x) || Number(x) < min) throw new UsageError(`${name.length === 1 ? '-' : '--'}${name} expects an integer >= ${min}, got '${x}'`);
  return Number(x);
}

function streamOf(v: Values): AuditStream {
  if (v.stderr && v.decisions) throw new UsageError('--stderr and --decisions exclude each other');
  const stream: AuditStream = v.stderr ? 'stderr' : v.decisions ? 'decisions' : 'messages';
  if (stream !== 'messages') {
    for (const only of ['method', 'direction']) {
      if (v[only] !== undefined) throw new UsageError(`--${only} applies to messages, not --${stream}`);
    }
  }
  if (stream === 'stderr' && v.tool !== undefined) throw new UsageError('--tool applies to messages and --decisions, not --stderr');
  if (stream === 'stderr' && v.exchange !== undefined) throw new UsageError('--exchange applies to messages and --decisions, not --stderr');
  return stream;
}

type AnyFilter = MessageFilter & StderrFilter & DecisionFilter;

function filterOf(v: Values): AnyFilter {
  const f: AnyFilter = {};
  f.server = str(v, 'server');
  f.method = str(v, 'method');
  f.text = str(v, 'text');
  f.tool = str(v, 'tool');
  // Every leg of one call (or one lifecycle request): the exchange id the gateway stamped on it.
  f.exchange = str(v, 'exchange');
  const direction = str(v, 'direction');
  if (direction !== undefined) {
    if (!DIRECTIONS.includes(direction as TrafficDirection)) {
      throw new UsageError(`--direction expects one of ${DIRECTIONS.join(', ')}, got '${direction}'`);
    }
    f.direction = direction as TrafficDirection;
  }
  // Fix relative times once, so `--since 15m` means the same thing on every page.
  const now = Date.now();
  for (const name of ['since', 'until'] as const) {
    const x = str(v, name);
    if (x === undefined) continue;
    try {
      f[name] = parseTimeBound(x, now);
    } catch (err) {
      throw new UsageError(`--${name}: ${(err as Error).message}`);
    }
  }
  for (const k of Object.keys(f) as (keyof AnyFilter)[]) if (f[k] === undefined) delete f[k];
  return f;
}

function sessionOf(store: AuditStore, v: Values): string | undefined {
  const ref = str(v, 'session');
  return ref === undefined || ref === 'all' ? undefined : resolve(store, ref);
}

function resolve(store: AuditStore, ref: string): string {
  const r = store.resolveSession(ref);
  if ('error' in r) throw new Failure(r.error);
  return r.id;
}

function select(store: AuditStore, stream: AuditStream, f: AnyFilter): { seq: number }[] {
  if (stream === 'stderr') return store.queryStderr(f);
  if (stream === 'decisions') return store.queryDecisions(f);
  return store.queryMessages(f);
}

function printer(stream: AuditStream, json: boolean): (rows: { seq: number }[]) => Promise<void> {
  // In follow mode JSON goes out as JSON Lines (one object per row), so it can be piped.
  if (json) return (rows) => (rows.length ? emit(rows.map((r) => JSON.stringify(r)).join('\n') + '\n') : Promise.resolve());
  const line =
    stream === 'stderr' ? formatStderr : stream === 'decisions' ? formatDecision : formatMessage;
  return (rows) => (rows.length ? emit(`${rows.map((r) => line(r as never)).join('\n')}\n`) : Promise.resolve());
}

let stdoutGuarded = false;

/** A reader that closes the pipe early (`| head`) has what it wanted: end quietly, not with EPIPE. */
function guardStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/** Writes to stdout, waiting when the pipe is full. */
async function emit(text: string): Promise<void> {
  guardStdout();
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

async function withStore(v: Values, fn: (store: AuditStore) => Promise<number>, signer?: OpenAuditStoreOptions['signer']): Promise<number> {
  const dir = str(v, 'data-dir') ?? dataDir();
  const file = auditDbFile(dir);
  // Reading must not create an empty database (and a data dir) as a side effect.
  if (!fs.existsSync(file)) throw new Failure(`no audit database at ${file} (nothing has been recorded there yet)`);
  // Retention off: a reader never deletes; `audit prune` asks for it explicitly.
  const store = openAuditStore({
    file,
    retention: false,
    signer,
    onError: (err) => process.stderr.write(`gatehouse audit: ${err.message}\n`),
  });
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}
