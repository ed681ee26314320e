// Which client an agent session is: the `clientInfo` it sent in `initialize` (MCP 2025-11-25
// "Lifecycle"), or, for a stateless MCP 2026-07-28 request, the clientInfo in its `_meta`
// (era.ts META_CLIENT_INFO). Traffic, audit and approvals show the name; the id stays in tooltips.
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { isObject } from '../base/is-object';
import { oneLine } from '../base/one-line';
import type { TrafficTap } from '../protocol/traffic-tap';
import type { TrafficRecord } from '../protocol/types';
import type { Redactor } from '../secrets/redactor';
import { META_CLIENT_INFO } from './era';

/** What records and exchanges carry of a client: its name and version, redacted, short. */
export interface AgentLabel {
  agentName?: string;
  agentVersion?: string;
}

/** A client name is the agent's own text: bounded, one line, and redacted like any text it sends. */
const MAX_LABEL = 80;

export function agentLabel(client: Partial<Implementation> | undefined, redactor?: Redactor): AgentLabel {
  if (!client || typeof client.name !== 'string' || client.name.trim() === '') return {};
  const clean = (s: string) => {
    const one = oneLine(s, MAX_LABEL);
    return redactor ? redactor.redactString(one) : one;
  };
  const out: AgentLabel = { agentName: clean(client.name) };
  if (typeof client.version === 'string' && client.version !== '') out.agentVersion = clean(client.version);
  return out;
}

/** The clientInfo a new-era request carries in its `_meta`, if any. */
export function metaClientInfo(message: unknown): Partial<Implementation> | undefined {
  if (!isObject(message) || !isObject(message.params) || !isObject(message.params._meta)) return undefined;
  const info = message.params._meta[META_CLIENT_INFO];
  return isObject(info) ? (info as Partial<Implementation>) : undefined;
}

/**
 * The tap as one agent channel sees it: every record it publishes carries the agent's label
 * (`label()` is read per record: a session learns its client at `initialize`). A new-era
 * request labels itself from its `_meta`, and its answer takes the same label (by request id).
 * Everything but `publish` is the tap itself, bound to it (a Proxy, not a copy: the bus keeps
 * its own state).
 */
export function labelledTap(tap: TrafficTap, label: () => AgentLabel, redactor?: Redactor): TrafficTap {
  const byRequest = new Map<string | number, AgentLabel>();
  const stamp = (record: TrafficRecord) => {
    let own = label();
    if (record.kind === 'request' && record.direction === 'agent_to_gateway') {
      const meta = agentLabel(metaClientInfo(record.message), redactor);
      if (meta.agentName !== undefined) own = meta;
      if (record.id !== undefined && own.agentName !== undefined) {
        // Bounded: a request's answer follows it; ids that never get one are forgotten oldest first.
        if (byRequest.size >= 1024) byRequest.delete(byRequest.keys().next().value!);
        byRequest.set(record.id, own);
      }
    } else if ((record.kind === 'response' || record.kind === 'error') && record.direction === 'gateway_to_agent' && record.id !== undefined) {
      const asked = byRequest.get(record.id);
      if (asked) {
        byRequest.delete(record.id);
        own = asked;
      }
    }
    if (own.agentName !== undefined) record.agentName = own.agentName;
    if (own.agentVersion !== undefined) record.agentVersion = own.agentVersion;
  };
  const publish = (record: TrafficRecord) => {
    stamp(record);
    return tap.publish(record);
  };
  // The channels publish through the data screen (main/data/traffic-screen.ts): labelled the same way.
  const publishScreened = (record: TrafficRecord, late?: (seq: number) => void) => {
    stamp(record);
    return tap.publishScreened(record, late);
  };
  return new Proxy(tap, {
    get(target, prop) {
      if (prop === 'publish') return publish;
      if (prop === 'publishScreened') return publishScreened;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
