import type { EventPayload } from '../../../common/host-api';

export type TrafficEvent = EventPayload<'traffic:batch'>['events'][number];
/** A call's one record from the host (main/gateway/exchanges.ts): decision, who decided, outcome. */
export type ExchangeInfo = EventPayload<'exchange:batch'>['changes'][number]['exchange'];
/** What the data scanner found in a call (kind, rule, where; never the value: docs/data.md). */
export type DataFinding = NonNullable<ExchangeInfo['findings']>[number];
export type Direction = TrafficEvent['direction'];
export type Decision = NonNullable<TrafficEvent['decision']>;

/** A call's outcome; `unmatched` and `fault` label rows that are not calls. */
export type RowStatus = 'ok' | 'error' | 'pending' | 'aborted' | 'unmatched' | 'fault';

/** What a status toggle filters on: a status, a denial (decision DENY), or a call with data findings. */
export type StatusFilter = RowStatus | 'denied' | 'findings';

export interface Progress {
  done: number;
  total?: number;
  message?: string;
}

/**
 * One message, indexed. A response that pairs with its request is `merged` into the request's
 * row (the call) and is not a row of its own in the timeline; its fields live on the call.
 */
export interface TrafficRow {
  readonly ev: TrafficEvent;
  readonly seq: number;
  /** Connection: `(session, agentSession)` downstream or `(session, server)` upstream. */
  readonly conn: string;
  /** The call this row sits under (progress, sampling, upstream leg, cancel); a merged response's request. */
  parent?: TrafficRow;
  /** The top-level call of this row's causal tree (itself for a root). */
  root: TrafficRow;
  depth: number;
  /** Descendants of a root, flattened in arrival order (never merged responses). */
  children?: TrafficRow[];
  /** Request ↔ response. */
  pair?: TrafficRow;
  merged: boolean;
  status?: RowStatus;
  /** Error message of a failed call (JSON-RPC error or `isError` result text). */
  error?: string;
  decision?: Decision;
  /** From the call's exchange: who decided (rule, person, timeout, no_approver…) and how it ended. */
  decidedBy?: string;
  outcome?: string;
  /** What a `shadow: true` rule would have done ("shadow policy.rules[0] would deny"): recorded, not enforced. */
  shadow?: string;
  /** From the call's exchange: why it was decided so (the flow guard's reason names the labels and the tool's mark). */
  reason?: string;
  /** The rule that decided (`policy.rules[2]`, `policy.flow` for the trifecta guard). */
  rule?: string;
  /** From the call's exchange: what the data scanner found (never the value) and the session's flow labels. */
  findings?: DataFinding[];
  flow?: string[];
  /**
   * A call none of whose messages is held (the Tool console, a legacy envelope, answered by the
   * gateway): the row stands for its exchange and `ev.message` is the exchange's record, not a
   * JSON-RPC message; its seq is fractional, between the tap's integer seqs.
   */
  synthetic?: boolean;
  latencyMs?: number;
  /** Upstream server of the call (for an agent-side call: its upstream leg's server). */
  server?: string;
  /** Canonical tool name, once known. */
  tool?: string;
  progress?: Progress;
  evicted: boolean;
  /** The message is in the host (a live row): fetch it to show it (bodies.ts); `ev.message` is a stub. */
  remote?: boolean;
  /** Summary pieces taken from the message on arrival: its own part, and a call's result text. */
  brief?: string;
  outText?: string;
  /** Replay: the seq of the call this one re-sent. */
  replayOf?: number;
  /** Which side of its exchange spoke the new protocol era (common/protocol-era.ts), if any (lib/era.ts). */
  newEra?: 'agent' | 'server' | 'both';
  // --- caches (owned by the store) ---
  /** @internal */ _summary?: string;
  /** @internal bumps whenever what the row shows may have changed (a memoised row re-renders). */ _rev: number;
  /** @internal */ _text?: string;
  /** @internal self match, valid while `_fgen` is the store's filter generation (else: no match). */ _match: boolean;
  /** @internal descendants that match (roots only), valid under the same generation (else 0). */ _childMatches: number;
  /** @internal the filter generation `_match` and `_childMatches` were computed under. */ _fgen: number;
  /** @internal the keys the filter index filed the row under (filter-index.ts). */ _filed?: { statuses: StatusFilter[]; server: string };
  /** @internal is an entry of the visible list. */ _shown: boolean;
}

export interface TrafficFilter {
  /** Methods to keep (exact, or a prefix ending in `*` / `/`: `notifications/*`). Empty = all. */
  includeMethods?: string[];
  /** Methods to hide, same patterns: e.g. `notifications/message`. */
  excludeMethods?: string[];
  /** Upstream servers to keep. Empty = all. */
  servers?: string[];
  /** Launch ids to keep. Empty = all. */
  sessions?: string[];
  directions?: Direction[];
  /** Keep only these outcomes (`['error', 'denied']`: errors and denials). Empty = all. */
  statuses?: StatusFilter[];
  /** Free text over method, summary and the JSON of the message and its pair (case-insensitive). */
  text?: string;
  /** Keep only calls answered slower than this many milliseconds. */
  minLatencyMs?: number;
}

export interface TrafficStats {
  /** Events held in memory now. */
  held: number;
  /** Events seen since the host started (as far as this window knows). */
  total: number;
  /** Events this window never received (it fell behind; the host dropped them for it). */
  dropped: number;
  /** Events this store let go to stay within `capacity`. */
  evicted: number;
  capacity: number;
}

export interface HostBufferStats {
  held: number;
  total: number;
  dropped: number;
  evicted?: number;
}
