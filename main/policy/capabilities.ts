// The `gatehouse.capabilities` report (contract: ../shared/contracts/mcp-compatibility-contract.md,
// "Tool surfacing semantics"): per tool a `tool_states[*]` entry saying whether the agent may call
// it now, needs a person's approval, is denied, or is currently unavailable, with `constraints`
// (bounded, safe summaries) and a `capability_set_hash` an agent can cache against.
//
// Arguments are unknown here, so each tool's policy status comes from `policy.outlook()`: the
// MOST PERMISSIVE verdict some arguments can reach ("callable with constraints"), with
// `constraints` saying which arguments lead where. E.g. "allow fs.read when path stays inside the
// workspace, default approve" reports `callable` with the constraints
//   ['callable when "path" stays inside the workspace (policy.rules[0])',
//    'otherwise needs approval (policy.default)'].
// Why not the cautious `needs_approval`: an agent reading the report should learn the path that
// needs no person, and every call is still decided with its real arguments by the gateway.
//
// `status` is what a call would meet NOW: the policy status, unless something at runtime stands in
// the way, a **hold**. Each hold has a `code` from HOLD_CODES and a one-line reason; the first one
// that applies wins and becomes `status: unavailable` with `reason` and `reason_code`. A hold either
// blocks every call (`blocks: 'all'`, e.g. the server is down) or only calls that need a person
// (`blocks: 'approval'`, e.g. no approver attached: such a call is denied at once, so reporting
// `needs_approval` would mislead). To add a reason: add its code below and push a hold where the
// gateway builds the report's input (Gateway.capabilitiesReport).
import { canonicalJson, sha256Hex } from './fingerprint';
import { oneLine } from '../base/one-line';
import { REASON_MAX, type Policy } from './engine';
import type { PolicySpec } from '../profiles/types';
import type { ToolAnnotations, Verdict } from './types';

/** 2: `tools` became `tool_states`, with `policy_status`, `reason_code` and approval holds. */
export const CAPABILITIES_CONTRACT_VERSION = '2';

export type CapabilityStatus = 'callable' | 'needs_approval' | 'denied' | 'unavailable';

/** Why a tool is unavailable right now. One line each; the gateway decides which apply. */
export const HOLD_CODES = {
  /** The tool's server is not part of this launch, not started, restarting, or exited. */
  server_unavailable: 'all',
  /** The call needs a person's approval and nobody can answer (no window, no terminal approver). */
  no_approver: 'approval',
  /** Tool pinning (docs/trust.md): the definition is new or changed since approved, waiting for review. */
  trust_review: 'all',
} as const satisfies Record<string, 'all' | 'approval'>;

export type HoldCode = keyof typeof HOLD_CODES;

export interface ToolHold {
  code: HoldCode;
  /** One line, shown to the agent as `reason`. */
  reason: string;
}

export interface CapabilityInputTool {
  canonical: string;
  advertised: string[];
  server: string;
  title?: string;
  annotations?: ToolAnnotations;
  /** What stands in the way of this tool's calls right now (first applicable wins). */
  holds?: ToolHold[];
  /** The tool's flow marks (`private`, `untrusted`, `exfil`: main/data/flow-guard.ts). */
  flowMarks?: string[];
}

export interface CapabilityToolState {
  name: string;
  advertised_names: string[];
  server: string;
  title?: string;
  /** What a call would meet now. */
  status: CapabilityStatus;
  /** What the policy alone says (the status when nothing is held). */
  policy_status: Exclude<CapabilityStatus, 'unavailable'>;
  reason: string;
  /** Set when status is `unavailable`: which hold applies. */
  reason_code?: HoldCode;
  constraints: string[];
  /** Flow marks (docs/data.md, "The trifecta guard"): what a result gives the session, whether it can send data out. */
  flow_marks?: string[];
}

export interface CapabilitiesReport {
  contract_version: typeof CAPABILITIES_CONTRACT_VERSION;
  capability_set_hash: string;
  tool_states: CapabilityToolState[];
  approval_timeout_s: number;
}

export interface CapabilitiesInput {
  tools: CapabilityInputTool[];
  policy: Policy;
  policySpec: PolicySpec;
  /** Holds that apply to every tool (e.g. `no_approver`); checked after each tool's own. */
  holds?: ToolHold[];
}

const STATUS: Record<Verdict, Exclude<CapabilityStatus, 'unavailable'>> = { ALLOW: 'callable', APPROVAL: 'needs_approval', DENY: 'denied' };

function applies(hold: ToolHold, policyStatus: CapabilityStatus): boolean {
  if (policyStatus === 'denied') return false; // denied stays denied: no runtime state changes that
  return HOLD_CODES[hold.code] === 'all' || policyStatus === 'needs_approval';
}

/**
 * Builds the report. `tool_states` are sorted by canonical name, so the report (not just the
 * hash) is the same whatever order the servers listed their tools in.
 *
 * The hash covers configuration only: canonical names, advertised names, servers, the policy
 * status and constraints of each tool, the policy itself and the workspace it is judged against.
 * Holds (a server down, no approver) are runtime state: they show in `status`/`reason` but leave
 * the hash alone, so a flapping server does not make an agent think the configuration changed.
 * Free-text reasons are left out too (an unavailable reason may carry an exit code or a time).
 */
export function buildCapabilities(input: CapabilitiesInput): CapabilitiesReport {
  const { policy, policySpec } = input;
  const states: CapabilityToolState[] = [];
  const hashed: unknown[] = [];
  const sorted = [...input.tools].sort((a, b) => compare(a.canonical, b.canonical) || compare(a.server, b.server));
  for (const t of sorted) {
    const o = policy.outlook({ tool: t.canonical, server: t.server, annotations: t.annotations });
    const policyStatus = STATUS[o.decision];
    const advertised = [...new Set(t.advertised)].sort(compare);
    hashed.push({ name: t.canonical, advertised_names: advertised, server: t.server, status: policyStatus, constraints: o.constraints });
    const hold = [...(t.holds ?? []), ...(input.holds ?? [])].find((h) => applies(h, policyStatus));
    const state: CapabilityToolState = {
      name: t.canonical,
      advertised_names: advertised,
      server: t.server,
      status: hold ? 'unavailable' : policyStatus,
      policy_status: policyStatus,
      reason: hold ? oneLine(hold.reason, REASON_MAX) : o.reason,
      constraints: o.constraints,
    };
    if (hold) state.reason_code = hold.code;
    if (t.flowMarks?.length) state.flow_marks = t.flowMarks;
    if (t.title !== undefined) state.title = t.title;
    states.push(state);
  }
  const capability_set_hash = sha256Hex(
    canonicalJson({ contract_version: CAPABILITIES_CONTRACT_VERSION, tools: hashed, policy: policySpec, workspace: policy.workspace }),
  );
  return { contract_version: CAPABILITIES_CONTRACT_VERSION, capability_set_hash, tool_states: states, approval_timeout_s: policySpec.approvalTimeoutS };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
