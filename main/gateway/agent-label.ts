// Which agent a call is, one rule for both protocol eras (agentNaming): the name of the minted
// per-agent token it presented (agent-tokens.ts; the agent cannot choose it), else the client name
// it declared: the `clientInfo` of its `initialize` (MCP 2025-11-25 "Lifecycle"), or, for a
// stateless MCP 2026-07-28 request, the clientInfo in that request's `_meta` (era.ts
// META_CLIENT_INFO). Traffic, approvals, the audit and policy `agents:` read the name; the id
// stays in tooltips.
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

/** Who presented a request: the token's agent name (if a minted token) and the client it declared. */
export interface AgentIdentity {
  agent?: string;
  client?: Partial<Implementation>;
}

/**
 * The one naming rule: a per-agent token's name wins over any declared client name (so a
 * stateless request cannot name itself into another agent's policy rules through `_meta`); the
 * version is the client's. Old-era sessions (session-setup.ts) and new-era requests
 * (new-era-handler.ts) both name their exchanges and records through this.
 */
export function agentNaming(who: AgentIdentity, redactor?: Redactor): AgentLabel {
  const declared = agentLabel(who.client, redactor);
  if (who.agent === undefined || who.agent === '') return declared;
  return { agentName: who.agent, ...(declared.agentVersion !== undefined ? { agentVersion: declared.agentVersion } : {}) };
}

const AGENT_TOKEN_LABEL = 'agent:';

/** The token label of a minted per-agent token (http-endpoint.ts keeps labels, '' for the main token). */
export function agentTokenLabel(agent: string): string {
  return `${AGENT_TOKEN_LABEL}${agent}`;
}

/** What a token label says about who presents it: a terminal's token, or a named agent's. */
export function tokenTag(label: string): { terminal?: string; agent?: string } {
  if (!label) return {};
  return label.startsWith(AGENT_TOKEN_LABEL) ? { agent: label.slice(AGENT_TOKEN_LABEL.length) } : { terminal: label };
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
 * request labels itself from its `_meta` (through agentNaming, so `agent`, a per-agent token's
 * name, still wins), and its answer takes the same label (by request id).
 * Everything but `publish` is the tap itself, bound to it (a Proxy, not a copy: the bus keeps
 * its own state).
 */
export function labelledTap(tap: TrafficTap, label: () => AgentLabel, redactor?: Redactor, agent?: () => string | undefined): TrafficTap {
  const byRequest = new Map<string | number, AgentLabel>();
  const stamp = (record: TrafficRecord) => {
    let own = label();
    if (record.kind === 'request' && record.direction === 'agent_to_gateway') {
      const client = metaClientInfo(record.message);
      if (client !== undefined) {
        const meta = agentNaming({ agent: agent?.(), client }, redactor);
        if (meta.agentName !== undefined) own = meta;
      }
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
