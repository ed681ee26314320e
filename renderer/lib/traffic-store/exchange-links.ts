// How the Traffic store groups messages into calls (docs/gateway.md "One table pairs"): by the
// exchange id the host stamped on every leg, and by nothing else. The host's exchange table
// paired each answer, progress notification and cancel with its request when it crossed; here a
// leg joins the exchange it names: the first held leg is the call's row, the others sit under it,
// and an answer merges into the request leg of its exchange that went the other way. No id,
// progress token or "newest in flight" is looked at. The store owns the rows and the visible
// list; this owns which exchange each row is a leg of.
import { isObject } from '../../../common/is-object';
import { invalidateSummary, type Obj } from './summary';
import type { Direction, Progress, RowStatus, TrafficEvent, TrafficRow } from './types';

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

export const exchangeKey = (session: string, exchange: string): string => `${session}\u0000${exchange}`;

/** What linking needs from the store: a status change goes through its filter and visible list. */
export interface LinkHost {
  setStatus(row: TrafficRow, status: RowStatus): void;
}

export class ExchangeLinks {
  /** session|exchange → the exchange's first held leg: the call's row. */
  readonly exchanges = new Map<string, TrafficRow>();
  /** session|exchange → its request legs held, oldest first (an answered one has its `pair`). */
  private readonly requests = new Map<string, TrafficRow[]>();
  /** session|exchange → seq of the original call (kept across a rebuild of the ring). */
  readonly replayLinks = new Map<string, number>();
  /** Ingesting older history: an answer whose request is older still is not "unmatched". */
  ingestingHistory = false;

  constructor(private readonly host: LinkHost) {}

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

  /** Forget every row index (a new snapshot or a rebuilt ring); replay links stay. */
  clear(): void {
    this.requests.clear();
    this.exchanges.clear();
  }

  /** Request legs in flight to `server` (in `session`, when given), for a server whose session ended. */
  *inFlightTo(server: string, session?: string): IterableIterator<TrafficRow> {
    for (const legs of this.requests.values()) {
      for (const r of legs) {
        if (!r.pair && r.ev.direction === 'gateway_to_server' && r.ev.server === server && (session === undefined || r.ev.session === session)) yield r;
      }
    }
  }

  request(row: TrafficRow): void {
    const { ev } = row;
    row.status = 'pending';
    // Only history stored before every leg was stamped has a request without an exchange.
    if (!ev.exchange) return;
    const key = exchangeKey(ev.session, ev.exchange);
    const legs = this.requests.get(key);
    if (legs) legs.push(row);
    else this.requests.set(key, [row]);
    const call = this.exchanges.get(key);
    if (call && !call.evicted) {
      // Another leg of the call (its upstream request, a retry round, a question passed on).
      attach(row, call);
      if (ev.server && !call.server) call.server = ev.server;
      if (ev.tool && !call.tool) call.tool = ev.tool;
      if (ev.decision && !call.decision) call.decision = ev.decision;
      invalidateSummary(call);
      return;
    }
    this.exchanges.set(key, row);
    const replayOf = this.replayLinks.get(key);
    if (replayOf !== undefined) row.replayOf = replayOf;
    // A server's question (sampling, elicitation, roots) names the call it came during.
    const parent = ev.parent ? this.exchanges.get(exchangeKey(ev.session, ev.parent)) : undefined;
    if (parent && !parent.evicted) attach(row, parent);
  }

  notification(row: TrafficRow): void {
    const { ev } = row;
    if (!ev.exchange) return;
    const key = exchangeKey(ev.session, ev.exchange);
    const call = this.exchanges.get(key);
    if (!call || call.evicted) return;
    const params = isObject(ev.message) && isObject(ev.message.params) ? ev.message.params : {};
    if (ev.method === 'notifications/progress') {
      // Progress travels against its request: it reports on the leg that went the other way.
      const target = this.leg(key, OPPOSITE[ev.direction], false) ?? call;
      const p: Progress = { done: Number(params.progress ?? 0) };
      if (typeof params.total === 'number') p.total = params.total;
      if (typeof params.message === 'string') p.message = params.message;
      row.progress = p;
      attach(row, target);
      for (const t of new Set([target, target.root])) {
        t.progress = p;
        invalidateSummary(t);
      }
      return;
    }
    // A cancel travels the same way as the request it cancels (MCP basic/utilities/cancellation).
    const target = ev.method === 'notifications/cancelled' ? (this.leg(key, ev.direction, true) ?? call) : call;
    attach(row, target);
    if (ev.method === 'notifications/cancelled' && target.status === 'pending') this.host.setStatus(target, 'aborted');
  }

  response(row: TrafficRow): void {
    const { ev } = row;
    const key = ev.exchange ? exchangeKey(ev.session, ev.exchange) : undefined;
    const req = key ? this.leg(key, OPPOSITE[ev.direction], true) : undefined;
    if (!req) {
      // A leg of a known exchange whose request is no longer held, or history whose request is
      // older still: not an orphan. Only an answer no exchange claims is "unmatched".
      if (key || this.ingestingHistory) {
        row.status = isFailure(ev) ? 'error' : 'ok';
        return;
      }
      row.status = 'unmatched';
      return;
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
    if (!ev.exchange) return;
    const key = exchangeKey(ev.session, ev.exchange);
    if (ev.kind === 'request') this.drop(key, row);
    if (this.exchanges.get(key) === row) {
      this.exchanges.delete(key);
      this.replayLinks.delete(key);
    }
  }

  /** The exchange's request leg that went `direction`: the oldest still unanswered, or (`open` false) the newest. */
  private leg(key: string, direction: Direction, open: boolean): TrafficRow | undefined {
    const legs = this.requests.get(key);
    if (!legs) return undefined;
    if (open) return legs.find((r) => r.ev.direction === direction && !r.pair && !r.evicted);
    return legs.findLast((r) => r.ev.direction === direction && !r.evicted);
  }

  private drop(key: string, leg: TrafficRow): void {
    const legs = this.requests.get(key);
    const i = legs ? legs.indexOf(leg) : -1;
    if (i < 0) return;
    legs!.splice(i, 1);
    if (legs!.length === 0) this.requests.delete(key);
  }
}

function isFailure(ev: TrafficEvent): boolean {
  const msg = isObject(ev.message) ? ev.message : {};
  return ev.kind === 'error' || isObject(msg.error) || (isObject(msg.result) && msg.result.isError === true);
}

function attach(row: TrafficRow, parent: TrafficRow): void {
  row.parent = parent;
  row.root = parent.root;
  row.depth = Math.min(parent.depth + 1, 4);
}
