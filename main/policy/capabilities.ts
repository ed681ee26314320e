// The `gatehouse.capabilities` report: per tool, whether the agent may call it now, and a
// hash an agent can cache against.
//
// Arguments are unknown here, so each tool's status comes from `policy.outlook()`: the MOST
// PERMISSIVE verdict some arguments can reach ("callable with constraints"), with `constraints`
// saying which arguments lead where. E.g. "allow fs.read when path stays inside the workspace,
// default approve" reports `callable` with the constraints
//   ['callable when "path" stays inside the workspace (policy.rules[0])',
//    'otherwise needs approval (policy.default)'].
// Why not the cautious `needs_approval`: an agent reading the report should learn the path that
// needs no person, and every call is still decided with its real arguments by the gateway.
import { canonicalJson, sha256Hex } from './fingerprint';
import { oneLine, type Policy } from './engine';
import type { PolicySpec } from '../profiles/types';
import type { ToolAnnotations, Verdict } from './types';

export const CAPABILITIES_CONTRACT_VERSION = '1';

export type CapabilityStatus = 'callable' | 'needs_approval' | 'denied' | 'unavailable';

export interface CapabilityInputTool {
  canonical: string;
  advertised: string[];
  server: string;
  title?: string;
  annotations?: ToolAnnotations;
  available: boolean;
  unavailableReason?: string;
}

export interface CapabilityTool {
  name: string;
  advertised_names: string[];
  server: string;
  title?: string;
  status: CapabilityStatus;
  reason: string;
  constraints: string[];
}

export interface CapabilitiesReport {
  contract_version: typeof CAPABILITIES_CONTRACT_VERSION;
  capability_set_hash: string;
  tools: CapabilityTool[];
  approval_timeout_s: number;
}

const STATUS: Record<Verdict, CapabilityStatus> = { ALLOW: 'callable', APPROVAL: 'needs_approval', DENY: 'denied' };

/**
 * Builds the report. `tools` are sorted by canonical name, so the report (not just the hash)
 * is the same whatever order the servers listed their tools in.
 *
 * The hash covers configuration only: canonical names, advertised names, servers, the policy
 * status and constraints of each tool, the policy itself and the workspace it is judged against.
 * Availability (a server down) is runtime state: it shows in `status`/`reason` but leaves the
 * hash alone, so a flapping server does not make an agent think the configuration changed.
 * Free-text reasons are left out too (an unavailable reason may carry an exit code or a time).
 */
export function buildCapabilities(input: { tools: CapabilityInputTool[]; policy: Policy; policySpec: PolicySpec }): CapabilitiesReport {
  const { policy, policySpec } = input;
  const tools: CapabilityTool[] = [];
  const hashed: unknown[] = [];
  const sorted = [...input.tools].sort((a, b) => compare(a.canonical, b.canonical) || compare(a.server, b.server));
  for (const t of sorted) {
    const o = policy.outlook({ tool: t.canonical, server: t.server, annotations: t.annotations });
    const policyStatus = STATUS[o.decision];
    const advertised = [...new Set(t.advertised)].sort(compare);
    hashed.push({ name: t.canonical, advertised_names: advertised, server: t.server, status: policyStatus, constraints: o.constraints });
    const tool: CapabilityTool = {
      name: t.canonical,
      advertised_names: advertised,
      server: t.server,
      status: t.available ? policyStatus : 'unavailable',
      reason: t.available ? o.reason : oneLine(t.unavailableReason ?? `server ${t.server} is not running`),
      constraints: o.constraints,
    };
    if (t.title !== undefined) tool.title = t.title;
    tools.push(tool);
  }
  const capability_set_hash = sha256Hex(
    canonicalJson({ contract_version: CAPABILITIES_CONTRACT_VERSION, tools: hashed, policy: policySpec, workspace: policy.workspace }),
  );
  return { contract_version: CAPABILITIES_CONTRACT_VERSION, capability_set_hash, tools, approval_timeout_s: policySpec.approvalTimeoutS };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
