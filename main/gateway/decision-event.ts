// A decision as the gateway announces it: the wire shape (common/host-api-shapes.ts's
// DecisionEventSchema) plus who decided, which main keeps for itself. `decisionPayload` is the
// one place that picks the wire's fields from it, for the window (main/api/shapes.ts) and the
// audit store (main/host.ts) alike.
import type { z } from 'zod';
import type { DecisionEventSchema } from '../../common/host-api-shapes';
import type { Decider } from './exchanges';

export type DecisionPayload = z.infer<typeof DecisionEventSchema>;

export type DecisionEvent = DecisionPayload & {
  /** Who decided: a rule, a person, the timeout, nobody to ask (see exchanges.ts). */
  decidedBy?: Decider;
};

/** The fields that cross to a window or the audit store: optional ones only when set, never `decidedBy`. */
export function decisionPayload(d: DecisionEvent): DecisionPayload {
  const out: DecisionPayload = {
    ts: d.ts,
    session: d.session,
    exchange: d.exchange,
    tool: d.tool,
    server: d.server,
    decision: d.decision,
    outcome: d.outcome,
    reason: d.reason,
    fingerprint: d.fingerprint,
    args: d.args,
  };
  if (d.agentSession !== undefined) out.agentSession = d.agentSession;
  if (d.advertisedName !== undefined) out.advertisedName = d.advertisedName;
  if (d.rule !== undefined) out.rule = d.rule;
  if (d.answeredBy !== undefined) out.answeredBy = d.answeredBy;
  return out;
}
