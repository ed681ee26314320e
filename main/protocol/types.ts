// Traffic as every layer sees it. The protocol path only *records* events into a
// TrafficTap (./traffic-tap.ts); the UI and the audit writer drain it in batches.

/**
 * Which hop a message crossed, seen from Gatehouse:
 *  - `agent_to_gateway` / `gateway_to_agent`: the downstream side (an agent session).
 *  - `gateway_to_server` / `server_to_gateway`: the upstream side (one MCP server).
 */
export type TrafficDirection = 'agent_to_gateway' | 'gateway_to_agent' | 'gateway_to_server' | 'server_to_gateway';

export type TrafficKind = 'request' | 'notification' | 'response' | 'error' | 'fault';

export interface TrafficEvent {
  /** Monotonic per host, assigned by the tap. */
  seq: number;
  /** Epoch milliseconds (with fraction from performance.now where available). */
  ts: number;
  /** Launch session id (one per launched profile). */
  session: string;
  /** Downstream agent session id (gateway side), when there is one. */
  agentSession?: string;
  /** Server id, for upstream hops. */
  server?: string;
  direction: TrafficDirection;
  kind: TrafficKind;
  method?: string;
  /** JSON-RPC id, as sent (string or number). */
  id?: string | number;
  /** Size on the wire, in bytes. */
  bytes: number;
  /** The message with secret values redacted; for a fault, `{ raw: "<text>" }` (redacted, truncated). */
  message: unknown;
  /** Why a fault is a fault ("not JSON", "not JSON-RPC 2.0", "message exceeds 4194304 bytes"). */
  fault?: string;
  /** Gateway annotations, filled where known: correlation and decisions. */
  exchange?: string;
  decision?: 'ALLOW' | 'APPROVAL' | 'DENY';
  tool?: string;
  latencyMs?: number;
}

/**
 * What a traffic record learns from the exchange it belongs to (main/gateway/exchanges.ts's
 * Exchange is one): the stamp is read when the message crosses, so it carries the decision
 * as it stands then.
 */
export interface ExchangeStamp {
  id: string;
  agentSession?: string;
  tool?: string;
  decision?: 'ALLOW' | 'APPROVAL' | 'DENY';
  method: string;
  /** Filled by the channel that received the request and sent its answer: wire sizes. */
  requestBytes?: number;
  responseBytes?: number;
}

/** What a recorder hands to the tap: everything but the sequence number. */
export type TrafficRecord = Omit<TrafficEvent, 'seq'>;

export interface StderrLine {
  seq: number;
  ts: number;
  session: string;
  server: string;
  /** Which run of the server (increments on each restart). */
  run: number;
  /** One line, without its terminator, redacted. */
  line: string;
}
