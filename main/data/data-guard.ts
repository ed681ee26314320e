// What the call pipeline asks of main/data/ (docs/data.md): one object per gateway, holding the
// scanner, `policy.data` and the trifecta guard. The pipeline stays a pipeline: it asks `gate`
// before it decides to forward, `inspectResult` before a result leaves for the agent, and
// `received` once it has; everything about data lives here.
import type { DataPolicySpec, FlowMarks, FlowPolicy, ServerSpec } from '../profiles/types';
import type { Redactor } from '../secrets/redactor';
import { DataScanner, describeFinding, mayHoldCredentials, maskCredentials, type DataDirection, type DataFinding } from './scanner';
import { FlowGuard, type FlowGate, type FlowTool } from './flow-guard';

export type { DataFinding } from './scanner';

export interface DataGate {
  decision: 'APPROVAL' | 'DENY';
  reason: string;
  rule: string;
  /** A person is asked for each call: no session grant answers it (the trifecta guard). */
  perCall?: boolean;
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

/**
 * Results inspectResult has judged: the downstream screen (./outbound-screen.ts) sends them as
 * the verdict left them (masked, released from a hold, or allowed) and does not scan them again.
 */
const screened = new WeakSet<object>();

/** Whether the call pipeline has screened this result already (a value that is no object never is). */
export function isScreened(value: unknown): boolean {
  return typeof value === 'object' && value !== null && screened.has(value);
}

/** The same mark on a copy of a screened result (a new-era `resultType: complete` wrapper of it). */
export function carryScreened<T extends object>(from: object, to: T): T {
  if (screened.has(from)) screened.add(to);
  return to;
}

function summary(findings: readonly DataFinding[]): string {
  const shown = findings.slice(0, NAMED_AT_MOST).map(describeFinding).join('; ');
  return findings.length > NAMED_AT_MOST ? `${shown}; and ${findings.length - NAMED_AT_MOST} more` : shown;
}

export class DataGuard {
  readonly policy: DataPolicySpec;
  readonly flow: FlowGuard;
  private readonly scanner: DataScanner;
  private readonly redactor: Redactor;

  constructor(opts: DataGuardOptions) {
    this.redactor = opts.redactor;
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
    screened.add(result);
    if (credentials.length === 0 || this.policy.results === 'allow') return { result, findings };
    if (this.policy.results === 'hold') return { result, findings, hold: `the result carries a credential: ${summary(credentials)}` };
    const masked = maskCredentials(result, findings);
    screened.add(masked);
    return { result: masked, findings };
  }

  /**
   * Any other value a server sends toward the agent (a JSON-RPC error the pipeline closes its
   * exchange with): scanned, credentials masked unless `results: allow`. Configured secrets are
   * left for the caller's Redactor, as for results.
   */
  async screen<T>(value: T): Promise<{ value: T; findings: DataFinding[] }> {
    if (this.redactor.size === 0 && !mayHoldCredentials(value)) return { value, findings: [] };
    const findings = await this.scanner.scan(value, 'result');
    return { value: this.policy.results === 'allow' ? value : maskCredentials(value, findings), findings };
  }

  /** `value` with every detected credential masked, whatever the policy (what is stored and shown to a person). */
  async masked<T>(value: T): Promise<T> {
    if (!mayHoldCredentials(value)) return value;
    return maskCredentials(value, await this.scanner.scan(value, 'result'));
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
  const perCall = gates.some((g) => g.perCall);
  return { decision: 'APPROVAL', reason: gates.map((g) => g.reason).join('; and '), rule: gates.map((g) => g.rule).join(', '), ...(perCall ? { perCall } : {}) };
}

export { maskCredentials };
