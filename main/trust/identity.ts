// A server's launch identity (docs/trust.md): what a person approves before a server starts.
// It is the canonical JSON of the resolved ServerSpec minus the fields that cannot change
// what runs or what it may reach (timeouts, restart policy, description). A denylist, not an
// allowlist, on purpose: a field added to ServerSpec later (the `sandbox:` grants, `network:`)
// joins the identity without anyone remembering to add it here, so changing it asks again.
//
// Transformations, each for a reason:
// - env / headers keep their NAMES only: a value may be a secret, and a rotated token is not a
//   new program. (Secret values in argv are redacted by the profile's redactor for the same reason.)
// - a URL server is identified by its origin (scheme, host, port): where the bytes go.
// - which `${secret:…}` / `${env:…}` each env value (header) is made of is kept (`envRefs`,
//   `headerRefs`, set by main/profiles/resolve.ts): swapping `${secret:OWN}` for
//   `${secret:OTHER}` hands the server another secret, and asks again. Names, never values.
// - `program` (main/trust/program-identity.ts): the sha256 of what the command runs.
// - a workspace that is the current directory (a profile without `workspace:`, launched by
//   path) is written `${workspace}`: the same profile approved from one folder is the same
//   launch from another (the workspace is the user's choice at launch, not the file's).
import { canonicalJson, sha256Hex } from '../policy/fingerprint';
import type { ResolvedProfile, ServerSpec } from '../profiles/types';
import { showHidden } from './poisoning';
import { quoteArg } from '../supervisor/quote-arg';
import { describeProgram, type ProgramIdentity } from './program-identity';

/** Fields of a ServerSpec that do not decide what runs or what it may reach. */
const NOT_LAUNCH_RELEVANT = new Set(['id', 'description', 'disabled', 'restart', 'startupTimeoutMs', 'requestTimeoutMs', 'framing', 'transport']);

export type LaunchIdentity = Record<string, unknown>;

export function launchIdentity(
  spec: ServerSpec,
  profile: Pick<ResolvedProfile, 'redactor'> & Partial<Pick<ResolvedProfile, 'workspace' | 'workspaceSource'>>,
  program?: ProgramIdentity,
): LaunchIdentity {
  let out: LaunchIdentity = {};
  for (const [key, value] of Object.entries(spec)) {
    if (NOT_LAUNCH_RELEVANT.has(key) || value === undefined) continue;
    if (key === 'env' || key === 'headers') {
      out[key === 'env' ? 'envNames' : 'headerNames'] = Object.keys(value as Record<string, string>).sort();
    } else if (key === 'url') {
      out.origin = originOf(String(value));
    } else if (key === 'inheritEnv') {
      out.inheritEnv = [...(value as string[])].sort();
    } else {
      out[key] = value;
    }
  }
  if (program) out.program = program;
  if (profile.workspaceSource === 'cwd' && profile.workspace) out = templatePaths(out, [['${workspace}', profile.workspace]]);
  // Round-trip through canonical JSON so the object compares and hashes the same everywhere.
  return JSON.parse(canonicalJson(profile.redactor.redactJson(out))) as LaunchIdentity;
}

export function identityHash(identity: LaunchIdentity): string {
  return sha256Hex(canonicalJson(identity));
}

/** The identity as pins made before program pinning held it (launch-consent.ts adopts those once). */
export function withoutProgram(identity: LaunchIdentity): LaunchIdentity {
  const { program: _program, ...rest } = identity;
  return rest;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * The identity with this machine's paths written as `${workspace}`, `${data}` and `${app}`: the
 * form a bundled pin file can carry (the demo's workspace is only known at run time).
 * Longest path first, so a workspace inside the app folder becomes `${workspace}`, not `${app}/…`.
 */
export function templatedIdentity(identity: LaunchIdentity, paths: { workspace: string; data: string; app: string }): LaunchIdentity {
  const pairs = (
    [
      ['${workspace}', paths.workspace],
      ['${data}', paths.data],
      ['${app}', paths.app],
    ] as const
  )
    .filter(([, p]) => p.length > 1)
    .sort((a, b) => b[1].length - a[1].length);
  return templatePaths(identity, pairs);
}

function templatePaths(identity: LaunchIdentity, pairs: ReadonlyArray<readonly [string, string]>): LaunchIdentity {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let s = v;
      for (const [name, p] of pairs) s = s.split(p).join(name);
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(identity) as LaunchIdentity;
}

export interface IdentityLine {
  /** `command`, `cwd`, `envNames`, `sandbox`, … (identity keys; `command` joins command and args). */
  field: string;
  label: string;
  value: string;
}

/** The identity as a person reads it: the exact command line (untruncated) first, then the rest. */
export function identityLines(identity: LaunchIdentity): IdentityLine[] {
  const lines: IdentityLine[] = [];
  const rest = { ...identity };
  if (typeof rest.command === 'string') {
    const args = Array.isArray(rest.args) ? (rest.args as string[]) : [];
    lines.push({ field: 'command', label: 'Command', value: showHidden([rest.command, ...args].map(quoteArg).join(' ')) });
    delete rest.command;
    delete rest.args;
  }
  const labels: Record<string, string> = {
    kind: 'Kind',
    origin: 'Origin',
    cwd: 'Working directory',
    envNames: 'Environment (names)',
    inheritEnv: 'Inherited from the host',
    envRefs: 'Environment (references)',
    headerRefs: 'Headers (references)',
    program: 'Program',
    workspace: 'Workspace',
    policyDefault: 'Policy default',
    policyRules: 'Policy rules',
    policySampling: 'Sampling',
    approvalTimeoutS: 'Approval timeout (s)',
    toolSurface: 'Tool surface',
    aliases: 'Aliases',
    headerNames: 'Headers (names)',
    trust: 'Tool pinning',
    builtin: 'Built-in',
    options: 'Options',
  };
  delete rest.kind;
  for (const key of Object.keys(rest).sort()) {
    const v = rest[key];
    if (key === 'program' && v && typeof v === 'object') {
      lines.push({ field: key, label: labels[key]!, value: showHidden(describeProgram(v as ProgramIdentity)) });
      continue;
    }
    const value = Array.isArray(v) ? (v.length ? v.join(', ') : '(none)') : typeof v === 'string' ? v : canonicalJson(v);
    lines.push({ field: key, label: labels[key] ?? key, value: showHidden(value) });
  }
  return lines;
}

/** Fields whose value differs (by line), for highlighting what changed since the approved identity. */
export function changedFields(previous: LaunchIdentity | undefined, current: LaunchIdentity): string[] {
  if (!previous) return [];
  const before = new Map(identityLines(previous).map((l) => [l.field, l.value]));
  const after = new Map(identityLines(current).map((l) => [l.field, l.value]));
  const out: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) if (before.get(key) !== after.get(key)) out.push(key);
  return out.sort();
}
