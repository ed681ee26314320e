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
  /** Filled by the channel that received the request and sent its answer: wire sizes. */
  requestBytes?: number;
  responseBytes?: number;
}

/** What a recorder hands to the tap: everything but the sequence number. */
export type TrafficRecord = Omit<TrafficEvent, 'seq'>;

/** One stderr line of a server's run (`run` increments on each restart), without its terminator, redacted. */
export type StderrLine = z.infer<typeof StderrLineSchema>;
