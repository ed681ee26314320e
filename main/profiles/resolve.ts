// Loaded profile (on-disk shape) → ResolvedProfile (./types.ts): `${…}` expanded, paths made
// absolute, seconds turned into ms, snake_case into camelCase. All-or-nothing: every problem
// is collected and thrown as one ProfileError, so nothing starts from a half-resolved profile.
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redactor } from '../secrets/redactor';
import { EnvSecretProvider, type SecretProvider } from '../secrets/provider';
import { expandString, type ExpandContext } from './expand';
import type { LoadedProfile } from './loader';
import { ProfileError, type ProfileIssue } from './profile-error';
import type { LimitsRaw, ProfileRaw, SandboxRaw, ServerRaw } from './schema';
import { DEFAULT_LIMITS, type AgentSandboxSpec, type SandboxLimits, type SandboxNetwork, type SandboxSpec } from '../sandbox/types';
import type { AgentSpec, PolicyRule, PolicySpec, ResolvedProfile, RestartPolicy, ServerSpec, TelemetrySpec, WorkspaceSource } from './types';

/** Env/header names whose values are treated as secret even when written literally. */
const SENSITIVE_NAME = /^(authorization|proxy-authorization|cookie)$|token|secret|passw(or)?d|api[-_]?key|credential/i;

export interface ResolveContext {
  /** `${data}`: Gatehouse's data directory (see paths.ts dataDir()). */
  dataDir: string;
  /** Host environment for `${env:…}`; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where `${secret:…}` comes from; defaults to an EnvSecretProvider over `env`. */
  secrets?: SecretProvider;
  /**
   * The workspace of a profile without `workspace:`: the current directory for `--profile FILE`
   * (the user points at a file from where they work), else the profile file's folder.
   */
  defaultWorkspace?: 'profile-folder' | 'cwd';
  /** The current directory, for `defaultWorkspace: 'cwd'` (process.cwd() unless given). */
  cwd?: string;
}

export function resolveProfile(loaded: LoadedProfile, ctx: ResolveContext): ResolvedProfile {
  const raw = loaded.raw;
  const env = ctx.env ?? process.env;
  const issues: ProfileIssue[] = [];
  const redactor = new Redactor();
  const dataDir = path.resolve(ctx.dataDir);
  const base: ExpandContext = { dataDir, env, secrets: ctx.secrets ?? new EnvSecretProvider(env) };

  // A disabled server starts nothing, so what it references need not exist yet (an imported
  // config's unused server must not demand its secrets): its expansion problems are dropped.
  let lenient = false;
  const expand = (p: PropertyKey[], value: string, ectx: ExpandContext): string => {
    const r = expandString(value, ectx);
    for (const s of r.secrets) redactor.add(s.name, s.value);
    if (!lenient) for (const problem of r.problems) issues.push(loaded.issueAt(p, problem.message, problem.token));
    // A credential written in clear (`Authorization: Bearer abc`, `API_TOKEN: abc`) is still a
    // credential: redact it downstream even though it did not come from ${secret:…}.
    const [top, id, field, key] = p;
    const inMap = p.length === 4 && top === 'servers' && (field === 'env' || field === 'headers');
    if (inMap && typeof key === 'string' && r.secrets.length === 0 && SENSITIVE_NAME.test(key)) redactor.add(`${String(id)}.${key}`, r.value);
    // The collector's headers likewise (`telemetry.headers.Authorization: Bearer …`).
    if (p.length === 3 && top === 'telemetry' && id === 'headers' && typeof field === 'string' && r.secrets.length === 0 && SENSITIVE_NAME.test(field)) {
      redactor.add(`telemetry.${field}`, r.value);
    }
    return r.value;
  };

  const workspaceSource: WorkspaceSource = raw.workspace !== undefined ? 'profile' : (ctx.defaultWorkspace ?? 'profile-folder');
  const workspace =
    raw.workspace !== undefined
      ? path.resolve(path.dirname(loaded.absFile), expand(['workspace'], raw.workspace, base))
      : workspaceSource === 'cwd'
        ? path.resolve(ctx.cwd ?? process.cwd())
        : path.dirname(loaded.absFile);
  if (raw.workspace === undefined) {
    // The built-in tools are confined to the workspace: that folder is chosen on purpose, never
    // by where a command happened to run.
    for (const [id, s] of Object.entries(raw.servers)) {
      if ('builtin' in s) {
        issues.push(
          loaded.issueAt(['servers', id, 'builtin'], `the built-in tools server '${id}' needs an explicit \`workspace:\` (the folder its tools are confined to); add e.g. \`workspace: .\` at the top of the profile`),
        );
      }
    }
  }
  if (issues.length === 0) {
    const st = statSync(workspace, { throwIfNoEntry: false });
    if (!st) issues.push(loaded.issueAt(['workspace'], `workspace folder ${workspace} does not exist`));
    else if (!st.isDirectory()) issues.push(loaded.issueAt(['workspace'], `workspace ${workspace} is not a folder`));
  }

  const ectx: ExpandContext = { ...base, workspace };
  const str = (p: PropertyKey[], v: string): string => expand(p, v, ectx);
  const strs = (p: PropertyKey[], list: string[]): string[] => list.map((v, i) => str([...p, i], v));
  const map = (p: PropertyKey[], rec: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, str([...p, k], v)]));
  const deep = (p: PropertyKey[], v: unknown): unknown => {
    if (typeof v === 'string') return str(p, v);
    if (Array.isArray(v)) return v.map((x, i) => deep([...p, i], x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep([...p, k], x)]));
    return v;
  };

  const home = env.HOME || os.homedir();
  /** `sandbox:` → spec; paths: `~/` is $HOME, `${…}` expands, relative is relative to the workspace. */
  const sandboxOf = (p: PropertyKey[], raw: SandboxRaw | undefined, limitsRaw?: LimitsRaw): AgentSandboxSpec => {
    const limits = limitsRaw ? { limits: limitsOf(limitsRaw) } : {};
    if (raw === undefined || raw === 'strict') return { mode: 'strict', write: [], read: [], hostPorts: [], ...limits };
    if (raw === 'off') return { mode: 'off', write: [], read: [], hostPorts: [], ...limits };
    const paths = (field: 'write' | 'read') =>
      raw[field].map((v, i) => {
        const e = str([...p, field, i], v);
        return path.resolve(workspace, e === '~' ? home : e.startsWith('~/') ? path.join(home, e.slice(2)) : e);
      });
    const network: SandboxNetwork | undefined =
      raw.network === undefined ? undefined : typeof raw.network === 'string' ? { kind: raw.network } : { kind: 'allow', hosts: raw.network.allow.map((h, i) => str([...p, 'network', 'allow', i], h)) };
    if (raw.host_ports.length > 0 && network?.kind === 'none') {
      issues.push(loaded.issueAt([...p, 'host_ports'], 'host_ports needs network: loopback or {allow: [...]} (network: none reaches no port of the host)'));
    }
    return { mode: raw.mode, write: paths('write'), read: paths('read'), hostPorts: raw.host_ports, ...(network ? { network } : {}), ...limits };
  };
  const serverSandbox = (p: PropertyKey[], raw: SandboxRaw | undefined, limitsRaw?: LimitsRaw): SandboxSpec => {
    const s = sandboxOf(p, raw, limitsRaw);
    return { ...s, network: s.network ?? { kind: 'none' } };
  };

  const checkUrl = (p: PropertyKey[], url: string): void => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {}
    // The URL may embed a secret (user:token@host); messages only ever show it redacted.
    const shown = redactor.redactString(url);
    if (!parsed) issues.push(loaded.issueAt(p, `not a valid URL: ${shown}`));
    else if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') issues.push(loaded.issueAt(p, `expected an http:// or https:// URL, got ${shown}`));
  };

  const refs = (key: 'envRefs' | 'headerRefs', rec: Record<string, string>): Record<string, string[]> => {
    const list = referencesOf(rec);
    return list.length ? { [key]: list } : {};
  };

  const servers: ServerSpec[] = Object.entries(raw.servers).map(([id, s]) => {
    lenient = s.disabled;
    try {
      return serverOf(id, s);
    } finally {
      lenient = false;
    }
  });
  function serverOf(id: string, s: (typeof raw.servers)[string]): ServerSpec {
    const p = ['servers', id];
    const common = {
      id,
      ...(s.description !== undefined ? { description: s.description } : {}),
      disabled: s.disabled,
      restart: restartPolicy(s),
      startupTimeoutMs: Math.round(s.startup_timeout_s * 1000),
      requestTimeoutMs: Math.round(s.request_timeout_s * 1000),
      maxMessageBytes: Math.round(s.max_message_mb * 1024 * 1024),
      ...(s.tools ? { tools: { ...(s.tools.include ? { include: s.tools.include } : {}), exclude: s.tools.exclude } } : {}),
    };
    if ('command' in s) {
      return {
        ...common,
        kind: 'stdio',
        // `~/bin/server` as grants spell it: a program, not a file named `~` in the workspace.
        command: homeExpanded(str([...p, 'command'], s.command), home),
        args: strs([...p, 'args'], s.args),
        env: map([...p, 'env'], s.env),
        ...refs('envRefs', s.env),
        inheritEnv: s.inherit_env,
        // Relative to the workspace: the folder a server is usually meant to work in.
        cwd: path.resolve(workspace, str([...p, 'cwd'], s.cwd)),
        framing: s.framing,
        trust: s.trust,
        sandbox: serverSandbox([...p, 'sandbox'], s.sandbox, s.limits),
      };
    }
    if ('url' in s) {
      const url = str([...p, 'url'], s.url);
      const headers = map([...p, 'headers'], s.headers);
      checkUrl([...p, 'url'], url);
      const oauth =
        s.auth === 'oauth'
          ? {
              ...(s.client_id !== undefined ? { clientId: str([...p, 'client_id'], s.client_id) } : {}),
              ...(s.client_secret !== undefined ? { clientSecret: str([...p, 'client_secret'], s.client_secret) } : {}),
              ...(s.scopes ? { scopes: s.scopes } : {}),
              ...(s.redirect_port !== undefined ? { redirectPort: s.redirect_port } : {}),
            }
          : undefined;
      return { ...common, kind: 'http', url, headers, ...refs('headerRefs', s.headers), transport: s.transport, trust: s.trust, ...(oauth ? { oauth } : {}) };
    }
    return {
      ...common,
      kind: 'builtin',
      builtin: s.builtin,
      env: map([...p, 'env'], s.env),
      ...refs('envRefs', s.env),
      inheritEnv: s.inherit_env,
      options: deep([...p, 'options'], s.options) as Record<string, unknown>,
      sandbox: builtinSandbox(serverSandbox([...p, 'sandbox'], s.sandbox, s.limits), s.sandbox, deep([...p, 'options'], s.options)),
    };
  }

  const agentSpec: AgentSpec | undefined = raw.agent
    ? {
        preset: raw.agent.preset,
        ...(raw.agent.command !== undefined ? { command: str(['agent', 'command'], raw.agent.command) } : {}),
        args: strs(['agent', 'args'], raw.agent.args),
        env: map(['agent', 'env'], raw.agent.env),
        inheritEnv: raw.agent.inherit_env,
        cwd: path.resolve(workspace, str(['agent', 'cwd'], raw.agent.cwd)),
        autostart: raw.agent.autostart,
        ...(raw.agent.sandbox !== undefined || raw.agent.limits ? { sandbox: sandboxOf(['agent', 'sandbox'], raw.agent.sandbox, raw.agent.limits) } : {}),
      }
    : undefined;

  let telemetry: TelemetrySpec | undefined;
  if (raw.telemetry) {
    const otlp = str(['telemetry', 'otlp'], raw.telemetry.otlp);
    checkUrl(['telemetry', 'otlp'], otlp);
    telemetry = {
      otlp,
      headers: map(['telemetry', 'headers'], raw.telemetry.headers),
      serviceName: raw.telemetry.service_name,
      metricsIntervalMs: Math.round(raw.telemetry.metrics_interval_s * 1000),
    };
  }

  if (issues.length > 0) {
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    throw new ProfileError(issues);
  }

  return {
    name: loaded.name,
    ...(raw.description !== undefined ? { description: raw.description } : {}),
    file: loaded.absFile,
    workspace,
    workspaceSource,
    dataDir,
    toolSurface: raw.tool_surface,
    ...(raw.always_listed.length > 0 ? { alwaysListed: raw.always_listed } : {}),
    servers,
    aliases: raw.aliases,
    policy: policySpecOf(raw.policy),
    redactor,
    ...(agentSpec ? { agent: agentSpec } : {}),
    ...(telemetry ? { telemetry } : {}),
  };
}

/** A validated `policy:` block (schema.ts PolicySchema) as the engine takes it (also `gatehouse policy test --policy`). */
export function policySpecOf(p: ProfileRaw['policy']): PolicySpec {
  const rules: PolicyRule[] = p.rules.map((r) => ({
    match: r.match === undefined ? [] : typeof r.match === 'string' ? [r.match] : r.match,
    ...(r.resource !== undefined ? { resource: typeof r.resource === 'string' ? [r.resource] : r.resource } : {}),
    ...(r.prompt !== undefined ? { prompt: typeof r.prompt === 'string' ? [r.prompt] : r.prompt } : {}),
    ...(r.servers ? { servers: r.servers } : {}),
    ...(r.agents ? { agents: r.agents } : {}),
    ...(r.annotations ? { annotations: r.annotations as Record<string, boolean> } : {}),
    ...(r.args ? { args: r.args } : {}),
    decision: r.decision,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    ...(r.shadow ? { shadow: true } : {}),
  }));
  return {
    default: p.default,
    rules,
    approvalTimeoutS: p.approval_timeout_s,
    sampling: p.sampling,
    resources: p.resources,
    prompts: p.prompts,
    data: { ...p.data },
    flow: p.flow,
    marks: { private: [...p.marks.private], untrusted: [...p.marks.untrusted], exfil: [...p.marks.exfil] },
  };
}

/**
 * The built-in tools' network, when the profile does not name one: the hosts http_request may
 * reach (options.http.allow_hosts), through the sandbox's proxy; none when there are none.
 */
function builtinSandbox(spec: SandboxSpec, raw: SandboxRaw | undefined, options: unknown): SandboxSpec {
  const networkGiven = typeof raw === 'object' && raw.network !== undefined;
  const hosts = (options as { http?: { allow_hosts?: unknown } } | undefined)?.http?.allow_hosts;
  if (spec.mode === 'off' || networkGiven || !Array.isArray(hosts) || hosts.length === 0) return spec;
  return { ...spec, network: { kind: 'allow', hosts: hosts.filter((h): h is string => typeof h === 'string') } };
}

/** `limits:` with the defaults for what it leaves out (cpu: no cap unless written). */
function limitsOf(raw: LimitsRaw): SandboxLimits {
  return { processes: raw.processes ?? DEFAULT_LIMITS.processes, memoryBytes: raw.memory ?? DEFAULT_LIMITS.memoryBytes, ...(raw.cpu !== undefined ? { cpuPercent: raw.cpu } : {}) };
}

/**
 * `NAME=${secret:X}`-style lines for each value that names a secret or a host variable, in
 * the value's own order of references (`$${` is a literal, not a reference). The launch identity
 * keeps these (main/trust/identity.ts) so a swapped reference asks again.
 */
export function referencesOf(rec: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(rec)) {
    const found = [...value.replace(/\$\$\{/g, '').matchAll(/\$\{((?:secret|env):[^}:]+)/g)].map((m) => `\${${m[1]}}`);
    if (found.length) out.push(`${name}=${found.join('')}`);
  }
  return out.sort();
}

function restartPolicy(s: ServerRaw): RestartPolicy {
  return {
    maxRestarts: s.restart.max_restarts,
    initialBackoffMs: s.restart.initial_backoff_ms,
    maxBackoffMs: s.restart.max_backoff_ms,
    resetAfterMs: Math.round(s.restart.reset_after_s * 1000),
  };
}

/** `~` and `~/…` → the home folder, as grants are read. */
function homeExpanded(value: string, home: string): string {
  return value === '~' ? home : value.startsWith('~/') ? path.join(home, value.slice(2)) : value;
}
