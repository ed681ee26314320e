// How the Traffic store links messages into calls (docs/gateway.md "Every call is an exchange"): the indexes from a
// request's id, progress token and exchange to its row, and what each arriving request,
// notification and response does to the call it belongs to. The store owns the rows and the
// visible list; this owns who belongs to whom.
import { isObject } from '../../../common/is-object';
import { invalidateSummary, type Obj } from './summary';
import type { Direction, Progress, RowStatus, TrafficEvent, TrafficRow } from './types';

/** Server → client requests that happen on behalf of a call in flight (MCP: sampling, elicitation, roots). */
const NESTED_SERVER_REQUESTS = new Set(['sampling/createMessage', 'elicitation/create', 'roots/list']);

const OPPOSITE: Record<Direction, Direction> = {
  agent_to_gateway: 'gateway_to_agent',
  gateway_to_agent: 'agent_to_gateway',
  gateway_to_server: 'server_to_gateway',
  server_to_gateway: 'gateway_to_server',
};


/** `(session, agentSession)` for the downstream hops, `(session, server)` for the upstream ones. */
export function connectionOf(ev: Pick<TrafficEvent, 'session' | 'agentSession' | 'server' | 'direction'>): string {
  return ev.direction === 'agent_to_gateway' || ev.direction === 'gateway_to_agent'
    ? `${ev.session}\u0000a\u0000${ev.agentSession ?? ''}`
    : `${ev.session}\u0000s\u0000${ev.server ?? ''}`;
}

// JSON-RPC ids 1 and "1" are different ids.
const idKey = (id: string | number): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

export const exchangeKey = (session: string, exchange: string): string => `${session}\u0000${exchange}`;

/** What linking needs from the store: a status change goes through its filter and visible list. */
export interface LinkHost {
  setStatus(row: TrafficRow, status: RowStatus): void;
}

export class CallLinks {
  private readonly pending = new Map<string, TrafficRow>(); // conn|dir|id → open request
  private readonly inflight = new Map<string, TrafficRow[]>(); // conn|dir → open requests, oldest first
  private readonly tokens = new Map<string, TrafficRow>(); // conn|token → request that asked for progress
  /** session|exchange → the agent-side call (or first leg). */
  readonly exchanges = new Map<string, TrafficRow>();
  /** session|exchange → seq of the original call (kept across a rebuild of the ring). */
  readonly replayLinks = new Map<string, number>();

  /** Links a replay's exchange (`key`) to the call it re-sent; its row, when held, gets `replayOf`. */
  linkReplay(original: TrafficRow, key: string): void {
    this.replayLinks.set(key, original.seq);
    const root = this.exchanges.get(key)?.root;
    if (root) root.replayOf = original.seq;
  }

  /** The held calls that replayed the call with this seq. */
  replaysOf(seq: number): TrafficRow[] {
    const out: TrafficRow[] = [];
    for (const [key, of] of this.replayLinks) {
      const r = of === seq ? this.exchanges.get(key)?.root : undefined;
      if (r) out.push(r);
    }
    return out;
  }
  /** Ingesting older history: a response whose request is older still is not "unmatched". */
  ingestingHistory = false;

  constructor(private readonly host: LinkHost) {}

  /** Forget every row index (a new snapshot or a rebuilt ring); replay links stay. */
  clear(): void {
    this.pending.clear();
    this.inflight.clear();
    this.tokens.clear();
    this.exchanges.clear();
  }

  /** Calls in flight to `server` (in `session`, when given), for a server whose session ended. */
  *inFlightTo(server: string, session?: string): IterableIterator<TrafficRow> {
    for (const [key, list] of this.inflight) {
      const [s, side, id] = key.split('\u0000');
      if (side !== 's' || id !== server || (session !== undefined && s !== session)) continue;
      yield* list;
    }
  }

  request(row: TrafficRow): void {
    const { ev } = row;
    row.status = 'pending';
    const params = isObject(ev.message) && isObject(ev.message.params) ? ev.message.params : undefined;
    if (ev.id !== undefined) {
      const key = `${row.conn}\u0000${ev.direction}\u0000${idKey(ev.id)}`;
      this.pending.set(key, row);
      const flightKey = `${row.conn}\u0000${ev.direction}`;
      const list = this.inflight.get(flightKey);
      if (list) list.push(row);
      else this.inflight.set(flightKey, [row]);
    }
    const meta = params && isObject(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    if (typeof token === 'string' || typeof token === 'number') this.tokens.set(`${row.conn}\u0000${idKey(token)}`, row);

    let parent: TrafficRow | undefined;
    if (ev.exchange) {
      const key = exchangeKey(ev.session, ev.exchange);
      const call = this.exchanges.get(key);
      const downstream = ev.direction === 'agent_to_gateway';
      if (call && !call.evicted && !downstream) {
        // The upstream leg of an agent's call (same exchange, its own upstream id).
        parent = call;
        if (ev.server && !call.server) call.server = ev.server;
        if (ev.tool && !call.tool) call.tool = ev.tool;
        if (ev.decision && !call.decision) call.decision = ev.decision;
        invalidateSummary(call);
      } else if (!call || downstream) {
        this.exchanges.set(key, row);
      }
      const replayOf = this.replayLinks.get(key);
      if (replayOf !== undefined && !parent) row.replayOf = replayOf;
    }
    if (!parent && ev.method && NESTED_SERVER_REQUESTS.has(ev.method)) {
      // Sampling/elicitation come while a call is in flight on the same connection, the other way.
      parent = this.latestInFlight(row.conn, OPPOSITE[ev.direction]);
    }
    if (parent) attach(row, parent);
  }

  notification(row: TrafficRow): void {
    const { ev } = row;
    const params = isObject(ev.message) && isObject(ev.message.params) ? ev.message.params : {};
    if (ev.method === 'notifications/progress') {
      const token = params.progressToken;
      if (typeof token !== 'string' && typeof token !== 'number') return;
      // Downstream: the agent's token; upstream: the gateway's token, which is the upstream request id.
      let call = this.tokens.get(`${row.conn}\u0000${idKey(token)}`);
      if (!call || call.evicted) call = this.pending.get(`${row.conn}\u0000${OPPOSITE[ev.direction]}\u0000${idKey(token)}`);
      if (!call || call.evicted) return;
      const p: Progress = { done: Number(params.progress ?? 0) };
      if (typeof params.total === 'number') p.total = params.total;
      if (typeof params.message === 'string') p.message = params.message;
      row.progress = p;
      attach(row, call);
      for (const target of [call, call.root]) {
        target.progress = p;
        invalidateSummary(target);
      }
      return;
    }
    if (ev.method === 'notifications/cancelled') {
      const id = params.requestId;
      if (typeof id !== 'string' && typeof id !== 'number') return;
      // A cancel travels the same way as the request it cancels (MCP basic/utilities/cancellation).
      const call = this.pending.get(`${row.conn}\u0000${ev.direction}\u0000${idKey(id)}`);
      if (!call || call.evicted) return;
      attach(row, call);
      if (call.status === 'pending') this.host.setStatus(call, 'aborted');
    }
  }

  response(row: TrafficRow): void {
    const { ev } = row;
    const req = ev.id !== undefined ? this.pending.get(`${row.conn}\u0000${OPPOSITE[ev.direction]}\u0000${idKey(ev.id)}`) : undefined;
    if (!req || req.evicted) {
      // A leg of a known call, or history whose request is older still: not an orphan. Only a
      // response nobody asked for (as far as anything held or known says) is "unmatched".
      if (ev.exchange || this.ingestingHistory) {
        const msg = isObject(ev.message) ? ev.message : {};
        row.status = ev.kind === 'error' || isObject(msg.error) || (isObject(msg.result) && msg.result.isError === true) ? 'error' : 'ok';
        return;
      }
      row.status = 'unmatched';
      return;
    }
    this.pending.delete(`${row.conn}\u0000${OPPOSITE[ev.direction]}\u0000${idKey(ev.id!)}`);
    const list = this.inflight.get(`${req.conn}\u0000${req.ev.direction}`);
    if (list) {
      const i = list.lastIndexOf(req);
      if (i >= 0) list.splice(i, 1);
    }
    row.merged = true;
    row.pair = req;
    row.parent = req;
    row.root = req.root;
    row.depth = req.depth;
    req.pair = row;
    req.latencyMs = ev.latencyMs ?? Math.max(0, ev.ts - req.ev.ts);
    if (ev.decision) req.decision = ev.decision;
    if (ev.tool) req.tool = ev.tool;
    const msg = isObject(ev.message) ? ev.message : {};
    let status: RowStatus = 'ok';
    if (ev.kind === 'error' || isObject(msg.error)) {
      status = 'error';
      req.error = isObject(msg.error) && typeof msg.error.message === 'string' ? msg.error.message : 'error';
    } else if (isObject(msg.result) && msg.result.isError === true) {
      status = 'error';
      const content = Array.isArray(msg.result.content) ? msg.result.content : [];
      const text = content.find((c): c is Obj => isObject(c) && typeof c.text === 'string');
      req.error = text ? String(text.text) : 'tool error';
    }
    // A call already marked aborted stays aborted: whatever came late does not un-abort it.
    if (req.status !== 'aborted') this.host.setStatus(req, status);
    else invalidateSummary(req);
    if (req.root !== req && req.root.decision === undefined && req.decision) {
      req.root.decision = req.decision;
      invalidateSummary(req.root);
    }
  }

  /** An evicted row leaves every index that still points at it. */
  forget(row: TrafficRow): void {
    const { ev } = row;
    if (ev.kind === 'request' && ev.id !== undefined) {
      const key = `${row.conn}\u0000${ev.direction}\u0000${idKey(ev.id)}`;
      if (this.pending.get(key) === row) this.pending.delete(key);
      const flightKey = `${row.conn}\u0000${ev.direction}`;
      const list = this.inflight.get(flightKey);
      if (list && list[0] === row) list.shift();
      else if (list) {
        const i = list.indexOf(row);
        if (i >= 0) list.splice(i, 1);
      }
      if (list && list.length === 0) this.inflight.delete(flightKey);
      const params = isObject(ev.message) && isObject(ev.message.params) ? ev.message.params : undefined;
      const token = params && isObject(params._meta) ? params._meta.progressToken : undefined;
      if (typeof token === 'string' || typeof token === 'number') {
        const tk = `${row.conn}\u0000${idKey(token)}`;
        if (this.tokens.get(tk) === row) this.tokens.delete(tk);
      }
    }
    if (ev.exchange) {
      const key = exchangeKey(ev.session, ev.exchange);
      if (this.exchanges.get(key) === row) this.exchanges.delete(key);
      this.replayLinks.delete(key);
    }
  }

  private latestInFlight(conn: string, direction: Direction): TrafficRow | undefined {
    const list = this.inflight.get(`${conn}\u0000${direction}`);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const r = list[i]!;
      if (r.status === 'pending' && !r.evicted && r.ev.method === 'tools/call') return r;
    }
    // Only a tool call runs long enough to ask for sampling or input; a roots/list during
    // tools/list is the server's own business, not part of that request.
    return undefined;
  }
}

function attach(row: TrafficRow, parent: TrafficRow): void {
  row.parent = parent;
  row.root = parent.root;
  row.depth = Math.min(parent.depth + 1, 4);
}
