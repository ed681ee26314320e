// The host's exchange records in the Traffic store (docs/gateway.md "One table pairs"): a call's decision, decider and
// outcome from `exchange:batch`, applied to the call's row, and the row of a call none of whose
// messages is held (Tool console, legacy envelope): it shows the exchange, not a message.
import { newEraSides } from '../era';
import type { ExchangeInfo, RowStatus, TrafficEvent, TrafficRow } from './types';

/** What applying a record needs from the store. */
export interface RecordHost {
  setStatus(row: TrafficRow, status: RowStatus): void;
  noteServer(server: string): void;
}

/**
 * The row of a call no message of which is held (Tool console, legacy envelope: decided against,
 * waiting for a person, or answered by the gateway itself), at `seq`. Nothing crossed the wire
 * for it, so the row shows the exchange's own record as its body, never a made-up JSON-RPC message.
 */
export function exchangeRowEvent(info: ExchangeInfo, seq: number): TrafficEvent {
  return {
    seq,
    ts: info.ts,
    session: info.session,
    ...(info.agentSession !== undefined ? { agentSession: info.agentSession } : {}),
    direction: 'agent_to_gateway',
    kind: 'request',
    method: info.method,
    bytes: 0,
    message: info,
    exchange: info.id,
    ...(info.tool !== undefined ? { tool: info.tool } : {}),
    ...(info.server !== undefined ? { server: info.server } : {}),
    ...(info.decision !== undefined ? { decision: info.decision } : {}),
  };
}

export function applyExchangeInfo(host: RecordHost, row: TrafficRow, info: ExchangeInfo): void {
  // Which side of the call spoke MCP 2026-07-28 (Traffic tags the row).
  row.newEra = newEraSides(info);
  if (info.decision) row.decision = info.decision;
  if (info.decidedBy) row.decidedBy = info.decidedBy;
  // The gateway appends "[shadow policy.rules[N] would …]" to the reason (docs/audit.md "Policy you can test").
  const shadow = /\[(shadow policy\.rules\[\d+\] would [^\]]+)\]/.exec(info.reason ?? '');
  if (shadow) row.shadow = shadow[1];
  row.outcome = info.outcome;
  if (info.reason) row.reason = info.reason;
  if (info.rule) row.rule = info.rule;
  if (info.findings?.length) row.findings = info.findings;
  if (info.flow?.length) row.flow = info.flow;
  if (info.tool && !row.tool) row.tool = info.tool;
  if (info.server && !row.server) {
    row.server = info.server;
    host.noteServer(info.server);
  }
  let status = row.status ?? 'pending';
  if (row.synthetic || status === 'pending') {
    // The host knows how the call ended even when its response is not (yet) here.
    if (info.outcome === 'ok') status = 'ok';
    else if (info.outcome === 'cancelled' || info.outcome === 'aborted') status = 'aborted';
    else if (info.outcome !== 'pending') status = 'error';
    if (info.outcome !== 'ok' && info.outcome !== 'pending' && info.error && !row.error) row.error = info.error;
    if (info.latencyMs !== undefined && row.latencyMs === undefined && info.outcome !== 'pending') row.latencyMs = info.latencyMs;
  }
  host.setStatus(row, status);
}

/**
 * A call with no agent-side request (Tool console, legacy envelope) that has no upstream leg to
 * show either: decided against, waiting for a person, or answered by the gateway itself. One
 * that went upstream is shown by its legs, as any call.
 */
export function needsOwnRow(info: ExchangeInfo): boolean {
  if (info.kind !== 'call' || info.downstreamId !== undefined || info.sentAt !== undefined) return false;
  return info.outcome !== 'pending' || info.decision === 'APPROVAL' || info.decision === 'DENY';
}
