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
import { isObject } from '../base/is-object';
import { canonicalJson, sha256Hex } from '../policy/fingerprint';
import type { ResolvedProfile, ServerSpec } from '../profiles/types';
import { showHidden } from './poisoning';
import { quoteArg } from '../supervisor/quote-arg';
import { describeProgram, type ProgramIdentity } from './program-identity';
import { isDockerRun } from '../sandbox/container';
import { describeSandbox, formatBytes, type SandboxKind, type SandboxSpec } from '../sandbox/types';

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

/**
 * A label for every key launchIdentity and profileIdentity write (identity.test.ts fails on a key
 * without one): the card never shows a raw key. `maxMessageBytes` stays on the card, in words:
 * it is part of the hash, so changing it asks again, and a review whose changed field is not on
 * the card would ask a person to approve a change they cannot see.
 */
export const IDENTITY_LABELS: Readonly<Record<string, string>> = {
  command: 'Command',
  args: 'Arguments',
  origin: 'Origin',
  cwd: 'Working directory',
  envNames: 'Environment (names)',
  inheritEnv: 'Inherited from the host',
  envRefs: 'Environment (references)',
  headerNames: 'Headers (names)',
  headerRefs: 'Headers (references)',
  program: 'Program',
  sandbox: 'Sandbox',
  launcher: 'Installed package',
  oauth: 'Sign-in',
  tools: 'Tools offered',
  maxMessageBytes: 'Largest message',
  trust: 'Tool pinning',
  builtin: 'Built-in',
  options: 'Options',
  workspace: 'Workspace',
  policyDefault: 'Policy default',
  policyRules: 'Policy rules',
  policySampling: 'Sampling',
  policyResources: 'Resource reads (no rule matched)',
  policyPrompts: 'Prompt gets (no rule matched)',
  policyData: 'Credentials found (policy.data)',
  policyFlow: 'Trifecta guard (policy.flow)',
  policyMarks: 'Flow marks',
  approvalTimeoutS: 'Approval timeout (s)',
  toolSurface: 'Tool surface',
  aliases: 'Aliases',
};

/** What the card says beside the identity (never part of it, so never part of the hash). */
export interface LineContext {
  /** The sandbox kind this machine would run a strict server in (availability.ts). */
  sandboxKind?: SandboxKind;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

function isSandboxSpec(v: unknown): v is SandboxSpec {
  if (!isObject(v) || (v.mode !== 'strict' && v.mode !== 'off') || !strings(v.write) || !strings(v.read) || !Array.isArray(v.hostPorts)) return false;
  const n = v.network;
  if (!isObject(n) || !(n.kind === 'none' || n.kind === 'loopback' || (n.kind === 'allow' && strings(n.hosts)))) return false;
  const l = v.limits;
  return l === undefined || (isObject(l) && typeof l.processes === 'number' && typeof l.memoryBytes === 'number');
}

const TRUST_WORDS: Record<string, string> = {
  pin: 'pin: a new or changed tool waits for a person',
  'accept-new': 'accept-new: a new tool is pinned as it comes, a changed one waits for a person',
  off: 'off: tools are advertised as the server sends them, unreviewed',
};

/** The words of one identity value, or undefined when it has a shape this code does not know (shown as JSON). */
function describe(key: string, v: unknown, identity: LaunchIdentity, ctx: LineContext): string | undefined {
  switch (key) {
    case 'program':
      return isObject(v) ? describeProgram(v as unknown as ProgramIdentity) : undefined;
    case 'sandbox': {
      if (!isSandboxSpec(v)) return undefined;
      const docker = typeof identity.command === 'string' && strings(identity.args) && isDockerRun(identity.command, identity.args);
      return describeSandbox(v, docker ? 'container' : ctx.sandboxKind);
    }
    case 'maxMessageBytes':
      return typeof v === 'number' ? formatBytes(v) : undefined;
    case 'trust':
      return typeof v === 'string' ? TRUST_WORDS[v] : undefined;
    case 'tools': {
      if (!isObject(v) || (v.include !== undefined && !strings(v.include)) || (v.exclude !== undefined && !strings(v.exclude))) return undefined;
      const inc = (v.include as string[] | undefined) ?? [];
      const exc = (v.exclude as string[] | undefined) ?? [];
      return [inc.length ? `only ${inc.join(', ')}` : 'all', ...(exc.length ? [`except ${exc.join(', ')}`] : [])].join(' · ');
    }
    case 'launcher': {
      if (!isObject(v) || ![v.tool, v.spec, v.name, v.version, v.dir].every((x) => typeof x === 'string')) return undefined;
      return `${String(v.name)} ${String(v.version)} (from \`${String(v.tool)} ${String(v.spec)}\`, run from ${String(v.dir)})`;
    }
    case 'oauth': {
      if (!isObject(v)) return undefined;
      const parts = ['OAuth'];
      if (typeof v.clientId === 'string') parts.push(`client id ${v.clientId}`);
      // Its value is a secret (redacted in the identity); whether one is set is what a person judges.
      if (v.clientSecret !== undefined) parts.push('client secret set');
      if (strings(v.scopes) && v.scopes.length) parts.push(`scopes ${v.scopes.join(', ')}`);
      if (typeof v.redirectPort === 'number') parts.push(`redirect port ${v.redirectPort}`);
      return parts.join(' · ');
    }
    default:
      return undefined;
  }
}

/** The identity as a person reads it: the exact command line (untruncated) first, then the rest. */
export function identityLines(identity: LaunchIdentity, ctx: LineContext = {}): IdentityLine[] {
  const lines: IdentityLine[] = [];
  const rest = { ...identity };
  if (typeof rest.command === 'string') {
    const args = Array.isArray(rest.args) ? (rest.args as string[]) : [];
    lines.push({ field: 'command', label: IDENTITY_LABELS.command!, value: showHidden([rest.command, ...args].map(quoteArg).join(' ')) });
    delete rest.command;
    delete rest.args;
  }
  delete rest.kind;
  for (const key of Object.keys(rest).sort()) {
    const v = rest[key];
    const value = describe(key, v, identity, ctx) ?? (Array.isArray(v) ? (v.length ? v.join(', ') : '(none)') : typeof v === 'string' ? v : canonicalJson(v));
    lines.push({ field: key, label: IDENTITY_LABELS[key] ?? key, value: showHidden(value) });
  }
  return lines;
}

/** Each line's field with the identity values it shows (`command` is command and args). */
function fieldValues(identity: LaunchIdentity): Map<string, string> {
  const out = new Map<string, string>();
  const rest = { ...identity };
  if (typeof rest.command === 'string') {
    out.set('command', canonicalJson([rest.command, rest.args ?? []]));
    delete rest.command;
    delete rest.args;
  }
  delete rest.kind;
  for (const [key, v] of Object.entries(rest)) out.set(key, canonicalJson(v));
  return out;
}

/**
 * Fields whose value differs, for highlighting what changed since the approved identity. Compared
 * by the identity's values, not by the lines' words: words may drop a detail (a secret's value,
 * a machine's sandbox kind), and a change the hash sees must still be marked on its line.
 */
export function changedFields(previous: LaunchIdentity | undefined, current: LaunchIdentity): string[] {
  if (!previous) return [];
  const before = fieldValues(previous);
  const after = fieldValues(current);
  const out: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) if (before.get(key) !== after.get(key)) out.push(key);
  return out.sort();
}
