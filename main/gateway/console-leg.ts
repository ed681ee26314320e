// The agent-side leg of a call that arrived without a downstream JSON-RPC request (the Tool
// console): no channel carries it, so no recorder taps it. Without these two records Traffic had
// only the exchange to draw the call from: arguments `{}`, 0 B and "No response yet" on a call
// whose status was ok. Here the call is recorded as if the console were an agent on its own
// hop: the request with its arguments and its answer (result or JSON-RPC error), both redacted
// by the profile's redactor, stamped with the exchange (docs/ui-layout.md "Traffic").
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { now, type TrafficTap } from '../protocol/traffic-tap';
import type { TrafficRecord } from '../protocol/types';
import type { Redactor } from '../secrets/redactor';
import type { AgentLabel } from './agent-label';
import type { Exchange } from './exchanges';

export interface ConsoleLegOptions {
  tap: TrafficTap;
  /** The client the records name (`Gatehouse Tool console`). */
  label?: AgentLabel;
}

/** Records the request now; call the returned function once with the answer. */
export function recordConsoleLeg(opts: ConsoleLegOptions, redactor: Redactor, ex: Exchange, requestId: string | number, name: string, args: Record<string, unknown>): (answer: { result: CallToolResult } | { error: { code: number; message: string; data?: unknown } }) => void {
  const base = (): Pick<TrafficRecord, 'session' | 'agentSession' | 'exchange' | 'id' | 'method'> & Partial<TrafficRecord> => ({
    session: ex.session,
    ...(ex.agentSession !== undefined ? { agentSession: ex.agentSession } : {}),
    ...(opts.label ?? {}),
    exchange: ex.id,
    id: requestId,
    method: 'tools/call',
  });
  const sentAt = now();
  const request = redactor.redactJson({ jsonrpc: '2.0', id: requestId, method: 'tools/call', params: { name, arguments: args } });
  opts.tap.publish({ ...base(), ts: sentAt, direction: 'agent_to_gateway', kind: 'request', bytes: byteLength(request), message: request });
  let done = false;
  return (answer) => {
    if (done) return;
    done = true;
    const ts = now();
    const message = redactor.redactJson({ jsonrpc: '2.0', id: requestId, ...answer });
    const record: TrafficRecord = { ...base(), ts, direction: 'gateway_to_agent', kind: 'error' in answer ? 'error' : 'response', bytes: byteLength(message), message, latencyMs: ts - sentAt };
    // What the exchange learnt while the call ran: the canonical tool and the decision.
    if (ex.tool !== undefined) record.tool = ex.tool;
    if (ex.decision !== undefined) record.decision = ex.decision;
    opts.tap.publish(record);
  };
}

function byteLength(message: unknown): number {
  return Buffer.byteLength(JSON.stringify(message));
}
