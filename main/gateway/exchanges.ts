// The exchange table (ARCHITECTURE.md "A tool call is an exchange"): one Exchange per request
// the gateway forwards (tools/call, prompts/get, resources/read, completion/complete, a legacy
// envelope, a Tool console call) and per server→client request (sampling, elicitation, roots).
// It exists from the moment the request arrives, whether or not it ever reaches a server, and
// it is the one place that links the agent's id 7 to the server's id 42, the progress tokens
// both ways and who decided. It is also the channels' ledger (ExchangeLedger): every request a
// channel reads or writes is indexed here by (hop, side, id), lifecycle requests (initialize,
// lists, ping) included, and each response finds its exchange here and nowhere else. Traffic
// records are stamped with it by the channel that carries them and the exchange keeps their
// seqs (`legs`); the window, the audit store and the CLI join on the exchange id.
import { EventEmitter } from 'node:events';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { DeciderSchema, ExchangeOutcomeSchema, Verdict } from '../../common/host-api-shapes';
import type { ExchangeRecord } from '../audit/types';
import type { ExchangeLedger, ExchangeStamp, HopSide, LedgerEntry } from '../protocol/types';
import type { DataFinding } from '../data/scanner';

/** Who decided and how an exchange ended: the enums are common/host-api-shapes.ts's. */
export type Decider = z.infer<typeof DeciderSchema>;
export type ExchangeOutcome = z.infer<typeof ExchangeOutcomeSchema>;
export type { Verdict };

export type ExchangeKind = 'call' | 'server_request';

export interface Exchange extends ExchangeStamp {
  /** `<agentSession>#<downstream id>`, or `<agentSession>#console-…` / `<server>#sampling-…`. */
  id: string;
  kind: ExchangeKind;
  /** Launch session. */
  session: string;
  agentSession?: string;
  /** The agent's name and version (agent-label.ts agentNaming, one rule for both eras): Traffic, approvals, audit and policy `agents:`. */
  agentName?: string;
  agentVersion?: string;
  /** The agent's JSON-RPC id (absent for console calls and legacy envelopes). */
  downstreamId?: RequestId;
  server?: string;
  /** The id the gateway gave the request upstream (or the server's id, for a server→client request). */
  upstreamId?: RequestId;
  method: string;
  /** Canonical tool name (or `sampling/createMessage`… for a server→client request). */
  tool?: string;
  advertised?: string;
  /** For a server→client request: the call it happened during. */
  parent?: string;
  decision?: Verdict;
  decidedBy?: Decider;
  rule?: string;
  answeredBy?: string;
  reason?: string;
  outcome?: ExchangeOutcome;
  /** One line: what went wrong, for `error` / `timeout` / `aborted` / `unavailable`. */
  error?: string;
  progress?: { downstream: string | number; upstream: string };
  receivedAt: number;
  decidedAt?: number;
  sentAt?: number;
  answeredAt?: number;
  requestBytes?: number;
  responseBytes?: number;
  /** The protocol version the agent's request used (old-era sessions: their negotiated version). */
  agentEra?: string;
  /** The protocol version the server speaks (set when the call leaves for it). */
  upstreamEra?: string;
  /** For a call held for input (input-bridge.ts): the input_required rounds sent so far. */
  round?: number;
  /** A new-era agent's declared client capabilities (its request's `_meta`): what a new-era server may ask it. */
  agentCapabilities?: Record<string, unknown>;
  /** The `Mcp-Param-*` headers of the agent's HTTP request, sent on to a new-era HTTP server. */
  forwardHeaders?: Record<string, string>;
  /** Tap seqs of the messages of this exchange, in the order they crossed (ExchangeLedger.leg). */
  legs: number[];
  /** What the data scanner found in the arguments and the result (main/data/): kind, rule, where; never the value. */
  findings?: DataFinding[];
  /** The session's flow labels when the call was decided (main/data/flow-guard.ts). */
  flow?: string[];
}

export type ExchangeInit = Pick<Exchange, 'kind' | 'session' | 'method'> &
  Partial<Pick<Exchange, 'agentSession' | 'agentName' | 'agentVersion' | 'downstreamId' | 'server' | 'upstreamId' | 'tool' | 'advertised' | 'parent' | 'requestBytes' | 'agentEra' | 'forwardHeaders'>> & { id?: string };

type Events = {
  opened: [Exchange];
  updated: [Exchange];
  closed: [Exchange];
  /** Findings of the downstream screen reached an exchange, perhaps after it closed (its row is written again). */
  found: [Exchange];
};

/** Closed exchanges kept for late readers (the Tool console's result, a test). */
const RECENT_CLOSED = 1000;
/** Open exchanges beyond this are a leak (a peer that never answers): the oldest are closed as aborted. */
const MAX_OPEN = 50_000;

/** Requests in flight per hop (a peer that never answers): beyond this the oldest are forgotten. */
const MAX_WIRE_PER_HOP = 10_000;

let consoleCounter = 0;
let lifecycleCounter = 0;
let foundCounter = 0;

export class ExchangeTable extends EventEmitter<Events> implements ExchangeLedger {
  private readonly open = new Map<string, Exchange>();
  private readonly recent = new Map<string, Exchange>();
  /** `<server>\0<upstream id>` of forwarded calls and server→client requests. */
  private readonly upstream = new Map<string, Exchange>();
  /** `<server>\0<gateway progress token>` → the call it reports on. */
  private readonly progress = new Map<string, Exchange>();
  /** Calls in flight per server, oldest first: a stdio server's request is attributed to the newest. */
  private readonly inflight = new Map<string, Exchange[]>();
  /** Where a call's progress goes (the calling session), while it is in flight. */
  private readonly sinks = new Map<string, (params: Record<string, unknown>) => void>();
  /** How an open exchange is cancelled (the agent's notifications/cancelled, a closing session). */
  private readonly cancellers = new Map<string, AbortController>();
  /** The one listener of an open exchange's cancellation that needs no signal (whenCancelled). */
  private readonly cancelHooks = new Map<string, (reason: unknown) => void>();
  /** hop → `<side>\0<typeof id>\0<id>` → the request on the wire that waits for its answer. */
  private readonly wire = new Map<string, Map<string, LedgerEntry>>();

  /**
   * `redact`: the profile's redactor, run on the free text an exchange keeps (`error`, `reason`):
   * a server's error message may quote a configured secret, and this row is stored, printed by
   * `gatehouse audit calls` and pushed to the window (docs/security.md, "Secrets").
   */
  constructor(private readonly redact: (text: string) => string = (t) => t) {
    super();
  }

  private clean(patch: Partial<Exchange>): Partial<Exchange> {
    if (patch.error === undefined && patch.reason === undefined) return patch;
    const out = { ...patch };
    if (out.error !== undefined) out.error = this.redact(out.error);
    if (out.reason !== undefined) out.reason = this.redact(out.reason);
    return out;
  }

  /** A new exchange, from the moment its request arrived. */
  openExchange(init: ExchangeInit): Exchange {
    const id = init.id ?? (init.downstreamId !== undefined ? `${init.agentSession}#${String(init.downstreamId)}` : `${init.agentSession ?? init.server}#console-${++consoleCounter}`);
    const ex = newExchange(init, id);
    if (this.open.has(id)) this.close(this.open.get(id)!, 'aborted', { error: 'the same request id was used again before the answer' });
    if (this.open.size >= MAX_OPEN) {
      const oldest = this.open.values().next();
      if (!oldest.done) this.close(oldest.value, 'aborted', { error: 'forgotten: too many exchanges open' });
    }
    this.open.set(id, ex);
    if (ex.server !== undefined && ex.upstreamId !== undefined) this.upstream.set(key(ex.server, ex.upstreamId, ex.kind), ex);
    this.emit('opened', ex);
    return ex;
  }

  get(id: string): Exchange | undefined {
    return this.open.get(id) ?? this.recent.get(id);
  }

  /** The open exchange of a downstream request. */
  byDownstream(agentSession: string, id: RequestId): Exchange | undefined {
    return this.open.get(`${agentSession}#${String(id)}`);
  }

  /** A forwarded call by the id the gateway gave it upstream. */
  byUpstream(server: string, id: RequestId): Exchange | undefined {
    return this.upstream.get(key(server, id, 'call'));
  }

  /** A server→client request by the server's own id. */
  byServerRequest(server: string, id: RequestId): Exchange | undefined {
    return this.upstream.get(key(server, id, 'server_request'));
  }

  /** The AbortSignal of an open exchange: aborted by cancel(). */
  signal(ex: Exchange): AbortSignal {
    let c = this.cancellers.get(ex.id);
    if (!c) {
      c = new AbortController();
      if (ex.outcome === undefined) this.cancellers.set(ex.id, c);
    }
    return c.signal;
  }

  /**
   * Calls `fn` when the exchange is cancelled (at once when it was already): what a forwarded
   * call's send listens with, its own AbortController being the only one it makes (a signal()
   * and an abort listener per call were ~5% of the bytes a call allocated). Returns the undo.
   */
  whenCancelled(ex: Exchange, fn: (reason: unknown) => void): () => void {
    const c = this.cancellers.get(ex.id);
    if (c?.signal.aborted) {
      fn(c.signal.reason);
      return () => {};
    }
    if (ex.outcome !== undefined) return () => {};
    if (this.cancelHooks.has(ex.id)) {
      // A second listener at once (rare): it listens on the exchange's signal.
      const signal = this.signal(ex);
      const onAbort = () => fn(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      return () => signal.removeEventListener('abort', onAbort);
    }
    this.cancelHooks.set(ex.id, fn);
    return () => {
      if (this.cancelHooks.get(ex.id) === fn) this.cancelHooks.delete(ex.id);
    };
  }

  /** Cancels an open exchange (its pipeline sees the signal abort, also when it asks for the signal only later). */
  cancel(ex: Exchange, reason: string): void {
    const hook = this.cancelHooks.get(ex.id);
    if (hook) {
      this.cancelHooks.delete(ex.id);
      hook(new CancelledError(reason));
    }
    let c = this.cancellers.get(ex.id);
    // A cancel can come before anyone asked for the signal (the call still waits for a server's
    // first start): keep an aborted controller, so signal() hands out an aborted signal.
    if (!c) {
      if (ex.outcome !== undefined) return;
      c = new AbortController();
      this.cancellers.set(ex.id, c);
    }
    c.abort(new CancelledError(reason));
  }

  progressSink(ex: Exchange): ((params: Record<string, unknown>) => void) | undefined {
    return this.sinks.get(ex.id);
  }

  byProgress(server: string, token: string | number): Exchange | undefined {
    return this.progress.get(key(server, token));
  }

  /** The newest call in flight to `server` (what a stdio server's request belongs to). */
  newestInFlight(server: string): Exchange | undefined {
    return this.inflight.get(server)?.at(-1);
  }

  openExchanges(): Exchange[] {
    return [...this.open.values()];
  }

  /** The recently closed exchanges and the open ones, oldest first by arrival. */
  snapshot(): Exchange[] {
    return [...this.recent.values(), ...this.open.values()].sort((a, b) => a.receivedAt - b.receivedAt);
  }

  update(ex: Exchange, patch: Partial<Exchange>): void {
    Object.assign(ex, this.clean(patch));
    this.emit('updated', ex);
  }

  /**
   * What the downstream data screen found in a message toward an agent (main/data/outbound-screen.ts),
   * on the exchange the message was stamped with. A message of no stored exchange (a list's answer,
   * a notification of no call) gets a closed exchange of its own, so its findings are on record.
   */
  found(stamp: ExchangeStamp | undefined, findings: readonly DataFinding[], at: { session: string; agentSession?: string; method: string }): void {
    if (findings.length === 0) return;
    let ex = stamp ? this.get(stamp.id) : undefined;
    if (!ex || ex !== stamp) {
      ex = this.openExchange({ kind: 'call', session: at.session, method: stamp?.method ?? at.method, id: `${stamp?.id ?? `${at.agentSession ?? at.session}#${at.method}`}#found-${++foundCounter}`, ...(at.agentSession ? { agentSession: at.agentSession } : {}) });
      ex.findings = [...findings];
      this.close(ex, 'ok');
      return;
    }
    this.update(ex, { findings: [...(ex.findings ?? []), ...findings] });
    this.emit('found', ex);
  }

  decide(ex: Exchange, decision: Verdict, decidedBy: Decider, more: Pick<Exchange, 'rule' | 'answeredBy' | 'reason'> = {}): void {
    this.update(ex, { decision, decidedBy, decidedAt: Date.now(), ...more });
  }

  /** The call leaves for `server` with the id the gateway gave it (and its progress token). */
  sent(
    ex: Exchange,
    server: string,
    upstreamId: RequestId,
    progress?: { downstream: string | number; upstream: string; sink: (params: Record<string, unknown>) => void },
  ): void {
    ex.server = server;
    ex.upstreamId = upstreamId;
    ex.sentAt = Date.now();
    if (progress) {
      ex.progress = { downstream: progress.downstream, upstream: progress.upstream };
      this.progress.set(key(server, progress.upstream), ex);
      this.sinks.set(ex.id, progress.sink);
    }
    this.upstream.set(key(server, upstreamId, 'call'), ex);
    const list = this.inflight.get(server) ?? [];
    list.push(ex);
    this.inflight.set(server, list);
    this.emit('updated', ex);
  }

  /** A retry leg of the same call (a new-era server's input_required rounds): the new upstream id names it. */
  resent(ex: Exchange, server: string, upstreamId: RequestId): void {
    if (ex.upstreamId !== undefined) this.upstream.delete(key(server, ex.upstreamId, 'call'));
    ex.upstreamId = upstreamId;
    this.upstream.set(key(server, upstreamId, 'call'), ex);
    this.emit('updated', ex);
  }

  // ---- the ledger (ExchangeLedger): what the channels ask -------------------------------------

  request(hop: string, side: HopSide, id: RequestId, method: string, stamp: ExchangeStamp | undefined, since: number): ExchangeStamp {
    const ex: ExchangeStamp = stamp ?? this.lifecycle(hop, method);
    let requests = this.wire.get(hop);
    if (!requests) this.wire.set(hop, (requests = new Map()));
    if (requests.size >= MAX_WIRE_PER_HOP) {
      const oldest = requests.keys().next();
      if (!oldest.done) requests.delete(oldest.value);
    }
    // An id used again before its answer (a restarted peer counts from 0 again): the newer request owns it.
    requests.set(wireKey(side, id), { stamp: ex, since });
    return ex;
  }

  find(hop: string, side: HopSide, id: RequestId): LedgerEntry | undefined {
    return this.wire.get(hop)?.get(wireKey(side, id));
  }

  answer(hop: string, side: HopSide, id: RequestId): LedgerEntry | undefined {
    const requests = this.wire.get(hop);
    const k = wireKey(side, id);
    const entry = requests?.get(k);
    if (entry) requests!.delete(k);
    return entry;
  }

  leg(stamp: ExchangeStamp, seq: number | undefined, answer?: { error?: string }): void {
    if (seq !== undefined) stamp.legs?.push(seq);
    if (!answer) return;
    const ex = this.open.get(stamp.id);
    // A server's request the SDK client refused before any handler ran (its schema): the
    // exchange still ends, with the error it was answered with.
    // An answer without an error is a handler's: it closes the exchange itself, with what it knows.
    if (ex === stamp && ex.kind === 'server_request' && answer.error !== undefined) this.close(ex, 'error', { error: answer.error });
  }

  closedHop(hop: string): void {
    this.wire.delete(hop);
  }

  /** The exchange of a request no route claimed: never emitted, never stored, it stamps its legs. */
  private lifecycle(hop: string, method: string): ExchangeStamp {
    const [, agentSession, server] = hop.split('\u0000');
    return { id: `${agentSession || server || 'hop'}#${method}-${++lifecycleCounter}`, method, legs: [], ...(agentSession ? { agentSession } : {}) };
  }

  /** The exchange is over; its maps forget it. Idempotent: the first outcome stands. */
  close(ex: Exchange, outcome: ExchangeOutcome, patch: Partial<Exchange> = {}): void {
    if (ex.outcome !== undefined) return;
    Object.assign(ex, this.clean(patch));
    ex.outcome = outcome;
    ex.answeredAt = patch.answeredAt ?? Date.now();
    this.open.delete(ex.id);
    this.cancellers.delete(ex.id);
    this.cancelHooks.delete(ex.id);
    this.sinks.delete(ex.id);
    if (ex.server !== undefined) {
      if (ex.upstreamId !== undefined) this.upstream.delete(key(ex.server, ex.upstreamId, ex.kind));
      if (ex.progress) this.progress.delete(key(ex.server, ex.progress.upstream));
      const list = this.inflight.get(ex.server);
      const i = list?.indexOf(ex) ?? -1;
      if (list && i >= 0) list.splice(i, 1);
    }
    this.recent.set(ex.id, ex);
    if (this.recent.size > RECENT_CLOSED) {
      const oldest = this.recent.keys().next();
      if (!oldest.done) this.recent.delete(oldest.value);
    }
    this.emit('closed', ex);
  }
}

/**
 * Every field of an Exchange present from creation, in one order: the record is then one
 * hidden class from arrival to close, and the updates of its life (decide, sent, close) write
 * into slots it has instead of growing it property by property (each growth was a new map and
 * a copied backing store: ~13% of the bytes the stdio gateway allocated per call,
 * docs/gateway-performance.md). Fields not known yet are undefined, which JSON, zod and deep equality read as absent.
 */
function newExchange(init: ExchangeInit, id: string): Exchange {
  // Every key required here (a field added to Exchange and not listed is a type error).
  const ex: { [K in keyof Required<Exchange>]: Exchange[K] } = {
    id,
    kind: init.kind,
    session: init.session,
    agentSession: init.agentSession,
    agentName: init.agentName,
    agentVersion: init.agentVersion,
    downstreamId: init.downstreamId,
    server: init.server,
    upstreamId: init.upstreamId,
    method: init.method,
    tool: init.tool,
    advertised: init.advertised,
    parent: init.parent,
    decision: undefined,
    decidedBy: undefined,
    rule: undefined,
    answeredBy: undefined,
    reason: undefined,
    outcome: undefined,
    error: undefined,
    progress: undefined,
    receivedAt: Date.now(),
    decidedAt: undefined,
    sentAt: undefined,
    answeredAt: undefined,
    requestBytes: init.requestBytes,
    responseBytes: undefined,
    agentEra: init.agentEra,
    upstreamEra: undefined,
    round: undefined,
    agentCapabilities: undefined,
    forwardHeaders: init.forwardHeaders,
    legs: [],
    findings: undefined,
    flow: undefined,
  };
  return ex;
}

function wireKey(side: HopSide, id: RequestId): string {
  return `${side}\u0000${typeof id}\u0000${String(id)}`;
}

function key(server: string, id: RequestId, space = ''): string {
  return `${space}\u0000${server}\u0000${typeof id}\u0000${String(id)}`;
}

/** The reason an exchange's signal aborts when it is cancelled. */
export class CancelledError extends Error {}

/** The exchange as one flat row (the audit store's `exchanges` table, the host API). */
export function exchangeRecord(ex: Exchange): ExchangeRecord {
  // One literal, no conditional spreads (each was a temporary object per row, and a row is
  // made twice per call): a field the exchange does not have is undefined, which the audit
  // writer's JSON and the host API's schemas read as absent.
  return {
    id: ex.id,
    ts: ex.receivedAt,
    session: ex.session,
    agentSession: ex.agentSession,
    agentName: ex.agentName,
    agentVersion: ex.agentVersion,
    kind: ex.kind,
    method: ex.method,
    server: ex.server,
    tool: ex.tool,
    advertised: ex.advertised,
    parent: ex.parent,
    downstreamId: ex.downstreamId ?? undefined,
    upstreamId: ex.upstreamId ?? undefined,
    decision: ex.decision,
    decidedBy: ex.decidedBy,
    rule: ex.rule,
    answeredBy: ex.answeredBy,
    reason: ex.reason,
    outcome: ex.outcome ?? 'pending',
    error: ex.error,
    decidedAt: ex.decidedAt,
    sentAt: ex.sentAt,
    answeredAt: ex.answeredAt,
    latencyMs: exchangeLatency(ex),
    requestBytes: ex.requestBytes,
    responseBytes: ex.responseBytes,
    agentEra: ex.agentEra,
    upstreamEra: ex.upstreamEra,
    round: ex.round,
    legs: ex.legs.slice(),
    findings: ex.findings?.length ? ex.findings : undefined,
    flow: ex.flow?.length ? ex.flow : undefined,
  };
}

/** Milliseconds from arrival to answer, when answered. */
export function exchangeLatency(ex: Exchange): number | undefined {
  return ex.answeredAt !== undefined ? ex.answeredAt - ex.receivedAt : undefined;
}
