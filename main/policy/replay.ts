// `gatehouse policy test` (docs/audit.md "Policy you can test"): recorded calls replayed through
// a policy. Pure: the caller reads the calls from the audit store and prints the result.
import { CAPABILITIES_TOOL, type Policy } from './engine';
import type { PolicyDecision, Verdict } from './types';
import { parseSubject } from './subjects';

export interface RecordedCall {
  seq: number;
  ts: number;
  session: string;
  tool: string;
  server?: string;
  /** As the audit stored them: redacted (a constraint on a secret's value sees «secret:NAME»). */
  args?: unknown;
  decision: Verdict;
  rule?: string;
  exchange?: string;
}

export interface ReplayChange {
  call: RecordedCall;
  before: { decision: Verdict; rule?: string };
  after: PolicyDecision;
}

export interface ReplayResult {
  replayed: number;
  /** Calls the policy did not decide when recorded (the gateway, the capabilities tool, sampling). */
  skipped: number;
  changed: ReplayChange[];
  /** Calls a shadow rule of the tested policy would have decided otherwise. */
  shadowed: Array<{ call: RecordedCall; shadow: NonNullable<PolicyDecision['shadow']> }>;
  /** "ALLOW → DENY": count. */
  totals: Record<string, number>;
}

/** "shadow policy.rules[0] would deny": how a shadow rule's verdict reads in the audit and Traffic. */
export function shadowWords(shadow: { decision: Verdict; rule: string }): string {
  const verb = shadow.decision === 'DENY' ? 'deny' : shadow.decision === 'APPROVAL' ? 'ask a person' : 'allow';
  return `shadow ${shadow.rule} would ${verb}`;
}

const POLICY_RULE = /^policy\.(rules\[\d+\]|default|resources|prompts)$/;

export function replayCalls(policy: Policy, calls: Iterable<RecordedCall>): ReplayResult {
  const out: ReplayResult = { replayed: 0, skipped: 0, changed: [], shadowed: [], totals: {} };
  for (const call of calls) {
    if (call.tool === CAPABILITIES_TOOL || !call.rule || !POLICY_RULE.test(call.rule)) {
      out.skipped++;
      continue;
    }
    out.replayed++;
    const subject = parseSubject(call.tool, call.server);
    const server = call.server ?? (subject.kind === 'prompt' ? subject.server : call.tool.split('.')[0]) ?? '';
    // A read or a prompt get replays through the rules of its kind (./subjects.ts names them).
    const after =
      subject.kind === 'resource'
        ? policy.decideResource({ uri: subject.uri, server })
        : subject.kind === 'prompt'
          ? policy.decidePrompt({ name: subject.name, server, args: call.args ?? {} })
          : policy.decide({ tool: call.tool, server, args: call.args ?? {} });
    if (after.shadow && after.shadow.decision !== after.decision) out.shadowed.push({ call, shadow: after.shadow });
    if (after.decision === call.decision) continue;
    out.changed.push({ call, before: { decision: call.decision, ...(call.rule ? { rule: call.rule } : {}) }, after });
    const key = `${call.decision} → ${after.decision}`;
    out.totals[key] = (out.totals[key] ?? 0) + 1;
  }
  return out;
}
