// Policy for the reads and prompt gets the gateway forwards (docs/gateway.md "Resources and
// prompts under policy"): `resources/read` and `prompts/get` are decided by the rules of their
// kind, asked of a person on APPROVAL (a card of kind resource / prompt), and recorded as a
// decision with who decided, exactly as a tool call is. A denial is a JSON-RPC error: these
// methods have no `isError` result to carry one. `completion/complete` stays ungoverned (it
// reveals argument completions, not content).
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalBroker } from '../approvals/broker';
import type { Policy } from '../policy/engine';
import { actionFingerprint } from '../policy/fingerprint';
import { shadowWords } from '../policy/replay';
import { promptSubject, resourceSubject } from '../policy/subjects';
import type { PolicyDecision } from '../policy/types';
import { oneLine } from '../base/one-line';
import type { DecisionEvent } from './decision-event';
import { GatewayError } from './errors';
import { CancelledError, type Decider, type Exchange, type ExchangeTable, type Verdict } from './exchanges';

/** The JSON-RPC error code a governed read or prompt get is refused with (the SDK's InvalidRequest). */
export const DENIED_CODE = ErrorCode.InvalidRequest;

const LINE_MAX = 300;

export interface ForwardPolicyPorts {
  session: string;
  table: ExchangeTable;
  policy: Policy;
  broker: ApprovalBroker;
  redact(value: unknown): unknown;
  approvalTimeoutMs(): number;
  decided(d: DecisionEvent): void;
}

/**
 * Decides (and asks about) one forwarded request; a method policy does not govern passes. Throws a GatewayError `DENY: …` (the exchange closed as denied) when it may not
 * go on, and CancelledError when the agent cancelled while a person was asked.
 */
export async function governForward(ports: ForwardPolicyPorts, ex: Exchange, server: string, method: string, params: Record<string, unknown>): Promise<void> {
  const agent = ex.agentName;
  let verdict: PolicyDecision;
  let subject: string;
  let kind: 'resource' | 'prompt';
  let args: Record<string, unknown>;
  if (method === 'resources/read') {
    const uri = String(params.uri);
    kind = 'resource';
    subject = resourceSubject(uri);
    args = { uri };
    verdict = ports.policy.decideResource({ uri, server, ...(agent !== undefined ? { agent } : {}) });
  } else if (method === 'prompts/get') {
    const name = String(params.name);
    const given = params.arguments;
    kind = 'prompt';
    subject = promptSubject(server, name);
    args = given !== null && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
    verdict = ports.policy.decidePrompt({ name, server, args, ...(agent !== undefined ? { agent } : {}) });
  } else {
    return;
  }
  const { table } = ports;
  const base = {
    session: ports.session,
    agentSession: ex.agentSession,
    exchange: ex.id,
    tool: subject,
    server,
    fingerprint: actionFingerprint(subject, args),
    args: ports.redact(args),
  };
  const shadow = verdict.shadow ? ` [${shadowWords(verdict.shadow)}]` : '';
  const decided = (decision: Verdict, by: Decider, outcome: DecisionEvent['outcome'], why: string, answeredBy?: string) => {
    const reason = why + shadow;
    const more = { ...(verdict.rule !== undefined ? { rule: verdict.rule } : {}), ...(answeredBy !== undefined ? { answeredBy } : {}) };
    table.decide(ex, decision, by, { reason, ...more });
    ports.decided({ ...base, ts: Date.now(), decision, decidedBy: by, outcome, reason, ...more });
  };
  const refuse = (reason: string): never => {
    table.close(ex, 'denied', { error: oneLine(reason, LINE_MAX) });
    throw new GatewayError(DENIED_CODE, `DENY: ${oneLine(reason, LINE_MAX)}`);
  };

  if (verdict.decision === 'DENY') {
    decided('DENY', 'rule', 'denied', verdict.reason);
    return refuse(verdict.reason);
  }
  if (verdict.decision === 'ALLOW') {
    decided('ALLOW', 'rule', 'allowed', verdict.reason);
    return;
  }
  table.update(ex, { decision: 'APPROVAL', reason: verdict.reason, ...(verdict.rule !== undefined ? { rule: verdict.rule } : {}) });
  const answer = await ports.broker.request(
    {
      ...base,
      ...(ex.agentName !== undefined ? { agentName: ex.agentName } : {}),
      ...(ex.agentVersion !== undefined ? { agentVersion: ex.agentVersion } : {}),
      reason: verdict.reason,
      ...(verdict.rule !== undefined ? { rule: verdict.rule } : {}),
      kind,
    },
    { timeoutMs: ports.approvalTimeoutMs(), signal: table.signal(ex) },
  );
  if (!answer.approved) {
    const how = answer.how === 'timeout' || answer.how === 'no_approver' || answer.how === 'cancelled' ? answer.how : 'denied';
    decided('APPROVAL', how === 'denied' ? 'person' : how, how, answer.reason, answer.by);
    if (how === 'cancelled') {
      table.close(ex, 'cancelled');
      throw new CancelledError(answer.reason);
    }
    return refuse(answer.reason);
  }
  decided('APPROVAL', 'person', 'approved', verdict.reason, answer.by);
}
