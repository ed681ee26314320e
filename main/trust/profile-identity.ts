// The profile's own launch identity (docs/trust.md "The profile's own identity"): the parts of a profile
// that decide reach but belong to no one server. A changed policy default (`approve` → `allow`),
// a new allow rule, a rerouted alias or a moved workspace asks again before anything of the
// profile starts, on the same review path as a changed server (launch-consent.ts), shown as
// the pseudo-server PROFILE_REVIEW.
//
// Kept: policy default, rules, sampling and the approval timeout (what an unanswered approval
// decides depends on it), the tool surface (which names an agent can call), aliases (what a name
// reaches), and the workspace when the profile writes one (every server's write grant). The
// defaults for resources and prompts, the data scanning policy, the trifecta guard and its flow
// marks are kept when they differ from their defaults (`flow: off` turns a guard off): at the
// defaults they are left out, so a profile that never changed them keeps the hash it was
// approved with before they were pinned. A
// workspace that is a default (the profile's folder, the current directory) is written as that
// default, so the same file is the same launch from any folder (identity.ts `${workspace}`).
import { canonicalJson } from '../policy/fingerprint';
import type { ResolvedProfile } from '../profiles/types';
import { PROFILE_REVIEW_ID } from '../../common/host-api-shapes';
import type { LaunchIdentity } from './identity';

/** The `server` of the profile's own review: not a valid server id (SERVER_ID_RE), so no clash. */
export const PROFILE_REVIEW = PROFILE_REVIEW_ID;

export function profileIdentity(profile: Pick<ResolvedProfile, 'policy' | 'toolSurface' | 'aliases' | 'workspace' | 'workspaceSource' | 'redactor'>): LaunchIdentity {
  const rules = profile.policy.rules.map((r) => canonicalJson(r));
  const aliases = Object.entries(profile.aliases)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([a, t]) => `${a} → ${t}`);
  const out: LaunchIdentity = {
    workspace: profile.workspaceSource === 'profile' ? profile.workspace : profile.workspaceSource === 'cwd' ? '(the current directory)' : "(the profile's folder)",
    policyDefault: profile.policy.default,
    policyRules: rules,
    policySampling: profile.policy.sampling,
    approvalTimeoutS: String(profile.policy.approvalTimeoutS),
    toolSurface: profile.toolSurface,
    aliases,
  };
  const { resources, prompts, data, flow, marks } = profile.policy;
  if (resources !== undefined && resources !== 'allow') out.policyResources = resources;
  if (prompts !== undefined && prompts !== 'allow') out.policyPrompts = prompts;
  if (data !== undefined && (data.results !== 'redact' || data.arguments !== 'approve')) out.policyData = `results ${data.results} · arguments ${data.arguments}`;
  if (flow !== undefined && flow !== 'approve') out.policyFlow = flow;
  const kinds = ['private', 'untrusted', 'exfil'] as const;
  if (marks !== undefined && kinds.some((k) => marks[k].length)) out.policyMarks = kinds.map((k) => `${k}: ${marks[k].length ? marks[k].join(', ') : '(none)'}`);
  return JSON.parse(canonicalJson(profile.redactor.redactJson(out))) as LaunchIdentity;
}
