// Policy for the reads and prompt gets the gateway forwards (docs/gateway.md "Resources and
// prompts under policy"): `resources/read` and `prompts/get` are decided by the rules of their
// kind, asked of a person on APPROVAL (a card of kind resource / prompt), and recorded as a
// decision with who decided, exactly as a tool call is. A denial is a JSON-RPC error: these
// methods have no `isError` result to carry one. `completion/complete` is decided by the rules
// of what it completes (its `ref`: a prompt, or a resource template's URI), since completions
// can list what a read would reveal (file names under a denied folder): denied when that is
// denied; when that needs approval, answered with no values and no card (a person is not asked
// at every keystroke; the read or get itself is asked).
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalBroker } from '../approvals/broker';
import type { Policy } from '../policy/engine';
import { actionFingerprint } from '../policy/fingerprint';
import { shadowWords } from '../policy/replay';
import { promptSubject, resourceSubject } from '../policy/subjects';
import type { PolicyDecision } from '../policy/types';
import { isObject } from '../base/is-object';
import { oneLine } from '../base/one-line';
import type { DecisionEvent } from './decision-event';
import type { GatewayEvents } from './ports';
import type { Redactor } from '../secrets/redactor';
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
  redactor: Redactor;
  approvalTimeoutMs(): number;
  events: Pick<GatewayEvents, 'decided'>;
}

/**
 * Decides (and asks about) one forwarded request; a method policy does not govern passes. Throws a GatewayError `DENY: …` (the exchange closed as denied) when it may not
 * go on, and CancelledError when the agent cancelled while a person was asked.
 */
export async function governForward(ports: ForwardPolicyPorts, ex: Exchange, server: string, method: string, params: Record<string, unknown>): Promise<'forward' | 'no_values'> {
  const agent = ex.agentName;
  const completion = method === 'completion/complete';
  const target = completion ? completionTarget(params) : { method, params };
  if (!target) return 'forward';
  let verdict: PolicyDecision;
  let subject: string;
  let kind: 'resource' | 'prompt';
  let args: Record<string, unknown>;
  if (target.method === 'resources/read') {
    const uri = String(target.params.uri);
    kind = 'resource';
    subject = resourceSubject(uri);
    args = { uri };
    verdict = ports.policy.decideResource({ uri, server, ...(agent !== undefined ? { agent } : {}) });
  } else if (target.method === 'prompts/get') {
    const name = String(target.params.name);
    kind = 'prompt';
    subject = promptSubject(server, name);
    args = plainObject(target.params.arguments);
    verdict = ports.policy.decidePrompt({ name, server, args, ...(agent !== undefined ? { agent } : {}) });
  } else {
    return 'forward';
  }
  const { table } = ports;
  const base = {
    session: ports.session,
    agentSession: ex.agentSession,
    exchange: ex.id,
    tool: subject,
    server,
    fingerprint: actionFingerprint(subject, args),
    args: ports.redactor.redactJson(args),
  };
  const shadow = verdict.shadow ? ` [${shadowWords(verdict.shadow)}]` : '';
  const decided = (decision: Verdict, by: Decider, outcome: DecisionEvent['outcome'], why: string, answeredBy?: string) => {
    const reason = why + shadow;
    const more = { ...(verdict.rule !== undefined ? { rule: verdict.rule } : {}), ...(answeredBy !== undefined ? { answeredBy } : {}) };
    table.decide(ex, decision, by, { reason, ...more });
    ports.events.decided({ ...base, ts: Date.now(), decision, decidedBy: by, outcome, reason, ...more });
  };
  const refuse = (reason: string): never => {
    table.close(ex, 'denied', { error: oneLine(reason, LINE_MAX) });
    throw new GatewayError(DENIED_CODE, `DENY: ${oneLine(reason, LINE_MAX)}`);
  };

  if (verdict.decision === 'DENY') {
    decided('DENY', 'rule', 'denied', verdict.reason);
    return refuse(completion ? `completions for ${subject}: ${verdict.reason}` : verdict.reason);
  }
  if (verdict.decision === 'ALLOW') {
    decided('ALLOW', 'rule', 'allowed', verdict.reason);
    return 'forward';
  }
  if (completion) {
    const why = `completions for ${subject} are not forwarded: it needs approval (${verdict.reason})`;
    decided('APPROVAL', 'gateway', 'declined', why);
    // Withheld, not failed: the agent gets a valid empty answer; Traffic and the audit say why.
    table.close(ex, 'denied', { error: oneLine(why, LINE_MAX) });
    return 'no_values';
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
  return 'forward';
}

/** What a completion completes, as the request that would read it: a prompt get, or a read of the template's URI. */
function completionTarget(params: Record<string, unknown>): { method: string; params: Record<string, unknown> } | undefined {
  const ref = plainObject(params.ref);
  const argument = plainObject(params.argument);
  if (ref.type === 'ref/resource' && typeof ref.uri === 'string') return { method: 'resources/read', params: { uri: ref.uri } };
  if (ref.type !== 'ref/prompt' || typeof ref.name !== 'string') return undefined;
  // The prompt's arguments as far as the agent has typed them: `args:` constraints see the value being completed.
  const typed = { ...plainObject(plainObject(params.context).arguments), ...(typeof argument.name === 'string' ? { [argument.name]: argument.value } : {}) };
  return { method: 'prompts/get', params: { name: ref.name, arguments: typed } };
}

function plainObject(v: unknown): Record<string, unknown> {
  return isObject(v) ? v : {};
}
