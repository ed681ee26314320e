// What the audit store saw of a workspace: which MCP operations and tools were really exercised,
// how often, when first and last, and the rows that prove it (session, exchange, audit seq). The
// FIAM export turns each sighting into `realization_status: executed` and `mode: observed`
// evidence. Read through the store's public queries only, page by page (at most 10 000 rows each).
import type { AuditStore } from '../audit/store';
import type { MessageFilter, MessageRow } from '../audit/types';

export interface Citation {
  session: string;
  exchange?: string;
  agentSession?: string;
  seq: number;
  ts: number;
}

export interface Sighting {
  count: number;
  /** Answers that were errors (JSON-RPC error, or a tool result with isError). */
  errors: number;
  first: Citation;
  last: Citation;
  sessions: Set<string>;
  agentSessions: Set<string>;
}

export interface ObservedAgentSession {
  id: string;
  session: string;
  transport?: string;
  client?: { name: string; version?: string };
}

export interface Observations {
  /** The audit database file, cited as the evidence's source. */
  source: string;
  /** The launch sessions read (oldest first). */
  sessions: string[];
  /** `${server}\0${method}` → gateway→server requests (initialize, tools/list, tools/call…). */
  upstream: Map<string, Sighting>;
  /** `${server}\0${canonical tool}` → gateway→server tools/call requests. */
  toolCalls: Map<string, Sighting>;
  /** method → agent→gateway requests. */
  downstream: Map<string, Sighting>;
  agentSessions: ObservedAgentSession[];
}

export const key = (a: string, b: string): string => `${a}\u0000${b}`;

const PAGE = 10_000;

function* pages(store: AuditStore, filter: MessageFilter): Generator<MessageRow> {
  let afterSeq: number | undefined;
  for (;;) {
    const rows = store.queryMessages({ ...filter, limit: PAGE, ...(afterSeq !== undefined ? { afterSeq } : {}) });
    yield* rows;
    if (rows.length < PAGE) return;
    afterSeq = rows[rows.length - 1]!.seq;
  }
}

function cite(r: MessageRow): Citation {
  return { session: r.session, seq: r.seq, ts: r.ts, ...(r.exchange ? { exchange: r.exchange } : {}), ...(r.agentSession ? { agentSession: r.agentSession } : {}) };
}

function note(map: Map<string, Sighting>, k: string, r: MessageRow): void {
  const c = cite(r);
  const s = map.get(k);
  if (!s) {
    map.set(k, { count: 1, errors: 0, first: c, last: c, sessions: new Set([r.session]), agentSessions: new Set(r.agentSession ? [r.agentSession] : []) });
    return;
  }
  s.count++;
  if (c.ts < s.first.ts) s.first = c;
  if (c.ts >= s.last.ts) s.last = c;
  s.sessions.add(r.session);
  if (r.agentSession) s.agentSessions.add(r.agentSession);
}

function bump(map: Map<string, Sighting>, k: string): void {
  const s = map.get(k);
  if (s) s.errors++;
}

function isErrorAnswer(r: MessageRow): boolean {
  if (r.kind === 'error') return true;
  const m = r.message as { result?: { isError?: unknown } } | undefined;
  return m?.result?.isError === true;
}

/**
 * Reads the sightings of the given launch sessions, or of the `limit` most recent sessions of
 * `profile` when `sessions` is not given.
 */
export function readObservations(store: AuditStore, opts: { profile: string; sessions?: string[]; limit?: number }): Observations {
  store.flush();
  const sessions = opts.sessions ?? store.listSessions({ profile: opts.profile, limit: opts.limit ?? 50 }).map((s) => s.id).reverse();
  const obs: Observations = { source: store.file, sessions, upstream: new Map(), toolCalls: new Map(), downstream: new Map(), agentSessions: [] };
  for (const session of sessions) {
    for (const r of pages(store, { session })) {
      if (r.direction === 'agent_to_gateway' && r.kind === 'request' && r.method) note(obs.downstream, r.method, r);
      if (!r.server) continue;
      if (r.direction === 'gateway_to_server' && r.kind === 'request' && r.method) {
        note(obs.upstream, key(r.server, r.method), r);
        if (r.method === 'tools/call' && r.tool) note(obs.toolCalls, key(r.server, r.tool), r);
      } else if (r.direction === 'server_to_gateway' && (r.kind === 'response' || r.kind === 'error') && r.exchange && isErrorAnswer(r)) {
        // The answer carries its exchange's method and tool (the gateway stamped it when it was
        // read, docs/gateway.md "One table pairs"): nothing here pairs it with its request.
        if (r.method) bump(obs.upstream, key(r.server, r.method));
        if (r.method === 'tools/call' && r.tool) bump(obs.toolCalls, key(r.server, r.tool));
      }
    }
    for (const a of store.getSession(session)?.agentSessions ?? []) {
      obs.agentSessions.push({
        id: a.id,
        session,
        ...(a.transport ? { transport: a.transport } : {}),
        ...(a.clientName ? { client: { name: a.clientName, ...(a.clientVersion ? { version: a.clientVersion } : {}) } } : {}),
      });
    }
  }
  return obs;
}
