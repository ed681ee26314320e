// What the call pipeline asks of main/data/ (docs/data.md): one object per gateway, holding the
// scanner, `policy.data` and the trifecta guard. The pipeline stays a pipeline: it asks `gate`
// before it decides to forward, `inspectResult` before a result leaves for the agent, and
// `received` once it has; everything about data lives here.
import type { DataPolicySpec, FlowMarks, FlowPolicy, ServerSpec } from '../profiles/types';
import type { Redactor } from '../secrets/redactor';
import { DataScanner, describeFinding, maskCredentials, type DataDirection, type DataFinding } from './scanner';
import { FlowGuard, type FlowGate, type FlowTool } from './flow-guard';

export type { DataFinding } from './scanner';

export interface DataGate {
  decision: 'APPROVAL' | 'DENY';
  reason: string;
  rule: string;
}

export interface DataGuardOptions {
  redactor: Redactor;
  data?: DataPolicySpec;
  flow?: FlowPolicy;
  marks?: FlowMarks;
  servers: readonly ServerSpec[];
}

/** A result on its way to the agent: passed on (credentials masked per policy), or held for a person first. */
export type ResultVerdict = { result: Record<string, unknown>; findings: DataFinding[]; hold?: string };

const NAMED_AT_MOST = 3;

function summary(findings: readonly DataFinding[]): string {
  const shown = findings.slice(0, NAMED_AT_MOST).map(describeFinding).join('; ');
  return findings.length > NAMED_AT_MOST ? `${shown}; and ${findings.length - NAMED_AT_MOST} more` : shown;
}

export class DataGuard {
  readonly policy: DataPolicySpec;
  readonly flow: FlowGuard;
  private readonly scanner: DataScanner;

  constructor(opts: DataGuardOptions) {
    this.policy = opts.data ?? { results: 'redact', arguments: 'approve' };
    this.flow = new FlowGuard(opts.flow, opts.marks, opts.servers);
    this.scanner = new DataScanner(opts.redactor);
  }

  scan(value: unknown, direction: DataDirection): Promise<DataFinding[]> {
    return this.scanner.scan(value, direction);
  }

  /**
   * A call's arguments and the session's flow labels, before it is forwarded. `findings` are the
   * argument findings (recorded, and used to mask the arguments a person and the audit see).
   */
  async gate(agentSession: string, t: FlowTool, args: unknown): Promise<{ findings: DataFinding[]; gates: DataGate[] }> {
    const findings = await this.scanner.scan(args, 'arguments');
    const gates: DataGate[] = [];
    const credentials = findings.filter((f) => f.kind === 'credential');
    if (credentials.length > 0 && this.policy.arguments !== 'allow') {
      const rules = [...new Set(credentials.map((f) => f.rule))].join(', ');
      gates.push({
        decision: this.policy.arguments === 'deny' ? 'DENY' : 'APPROVAL',
        reason: `the arguments carry a credential (rule ${rules}): ${summary(credentials)}`,
        rule: `policy.data.arguments`,
      });
    }
    const flow: FlowGate | undefined = this.flow.check(agentSession, t);
    if (flow) gates.push(flow);
    return { findings, gates };
  }

  /** A result before it reaches the agent: scanned, and masked, held or passed per `policy.data.results`. */
  async inspectResult(result: Record<string, unknown>): Promise<ResultVerdict> {
    const findings = await this.scanner.scan(result, 'result');
    const credentials = findings.filter((f) => f.kind === 'credential');
    if (credentials.length === 0 || this.policy.results === 'allow') return { result, findings };
    if (this.policy.results === 'hold') return { result, findings, hold: `the result carries a credential: ${summary(credentials)}` };
    return { result: maskCredentials(result, findings), findings };
  }

  /** A result of `t` reached the session: its flow labels grow. */
  received(agentSession: string, t: FlowTool): void {
    this.flow.received(agentSession, t);
  }

  labels(agentSession: string): string[] {
    return Object.keys(this.flow.sessionLabels(agentSession));
  }
}

/** Gates folded into one: any DENY denies; otherwise a person is asked, every reason on the card. */
export function foldGates(gates: readonly DataGate[]): DataGate | undefined {
  if (gates.length === 0) return undefined;
  const deny = gates.find((g) => g.decision === 'DENY');
  if (deny) return deny;
  return { decision: 'APPROVAL', reason: gates.map((g) => g.reason).join('; and '), rule: gates.map((g) => g.rule).join(', ') };
}

export { maskCredentials };
