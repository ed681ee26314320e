// Traffic as every layer sees it. The protocol path only *records* events into a
// TrafficTap (./traffic-tap.ts); the UI and the audit writer drain it in batches.

import type { z } from 'zod';
import type { DirectionSchema, StderrLineSchema, TrafficEventSchema, TrafficKindSchema, Verdict } from '../../common/host-api-shapes';

/**
 * Which hop a message crossed, seen from Gatehouse:
 *  - `agent_to_gateway` / `gateway_to_agent`: the downstream side (an agent session).
 *  - `gateway_to_server` / `server_to_gateway`: the upstream side (one MCP server).
 */
export type TrafficDirection = z.infer<typeof DirectionSchema>;

export type TrafficKind = z.infer<typeof TrafficKindSchema>;

/**
 * One message as it crossed (common/host-api-shapes.ts declares it). `seq` is monotonic per
 * host (the tap assigns it); `ts` is epoch ms with a fraction; `message` is redacted (a fault
 * is `{ raw: "<text>" }`, redacted and truncated, and `fault` says why it is one); `exchange`,
 * `decision`, `tool` and `latencyMs` are the gateway's annotations, filled where known.
 */
export type TrafficEvent = z.infer<typeof TrafficEventSchema>;

/**
 * What a traffic record learns from the exchange it belongs to (main/gateway/exchanges.ts's
 * Exchange is one): the stamp is read when the message crosses, so it carries the decision
 * as it stands then.
 */
export interface ExchangeStamp {
  id: string;
  agentSession?: string;
  tool?: string;
  decision?: Verdict;
  method: string;
  /** A server→client request: the exchange (call) it happened during. */
  parent?: string;
  /** Filled by the channel that received the request and sent its answer: wire sizes. */
  requestBytes?: number;
  responseBytes?: number;
  /** Tap seqs of the exchange's messages (filled by the ledger). */
  legs?: number[];
}

/** Which side of a hop a request came from: `in` = read by the gateway, `out` = written by it. */
export type HopSide = 'in' | 'out';

/** A request on the wire that waits for its answer: its exchange, and when it crossed (for latency). */
export interface LedgerEntry {
  stamp: ExchangeStamp;
  since: number;
}

/**
 * The one pairing (docs/gateway.md "One table pairs"): the exchange table as the channels see
 * it. A channel tells it every request it reads or writes and asks it which request each
 * response answers; it tells it the tap seq of each leg. The channel itself keeps nothing but
 * its pending promises. `hop` is the channel's own key (one per channel instance: a restarted
 * server, a stateless HTTP request, each get their own), `<session>\0<agentSession>\0<server>\0<n>`.
 */
export interface ExchangeLedger {
  /** A request crossed: indexed under its exchange (`stamp`), or a lifecycle exchange opened for it. */
  request(hop: string, side: HopSide, id: string | number, method: string, stamp: ExchangeStamp | undefined, since: number): ExchangeStamp;
  /** The request with this id from `side`, still unanswered (a notifications/cancelled names it). */
  find(hop: string, side: HopSide, id: string | number): LedgerEntry | undefined;
  /** The request a response answers; it leaves the index. */
  answer(hop: string, side: HopSide, id: string | number): LedgerEntry | undefined;
  /** A message of `stamp`'s exchange crossed as tap seq `seq`; `answer`: it was the answer to its request. */
  leg(stamp: ExchangeStamp, seq: number | undefined, answer?: { error?: string }): void;
  /** The hop's transport closed: its unanswered requests are forgotten. */
  closedHop(hop: string): void;
}

/** What a recorder hands to the tap: everything but the sequence number. */
export type TrafficRecord = Omit<TrafficEvent, 'seq'>;

/** One stderr line of a server's run (`run` increments on each restart), without its terminator, redacted. */
export type StderrLine = z.infer<typeof StderrLineSchema>;
