// The shape every other module consumes: a profile after validation and `${…}` expansion.
// The raw (on-disk) shape is `ProfileSchema` in ./schema.ts; this is what comes out of
// `resolveProfile()` in ./resolve.ts. Keep the two in step.
import type { Redactor } from '../secrets/redactor';
import type { AgentSandboxSpec, SandboxSpec } from '../sandbox/types';

export type ToolSurface = 'friendly' | 'canonical' | 'both' | 'lazy';
export type Framing = 'auto' | 'line' | 'content-length';
export type Decision = 'allow' | 'approve' | 'deny';
export type TrustMode = 'pin' | 'accept-new' | 'off';

export interface RestartPolicy {
  /** Restarts allowed before the server is `failed`. */
  maxRestarts: number;
  /** First backoff delay; doubles each attempt, with ±20% jitter, capped at maxBackoffMs. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Uptime after which the backoff (and the restart count) resets. */
  resetAfterMs: number;
}

interface ServerCommon {
  id: string;
  description?: string;
  /** Disabled servers are listed but never started. */
  disabled: boolean;
  restart: RestartPolicy;
  /** `initialize` must answer within this many ms or the start counts as a crash. */
  startupTimeoutMs: number;
  /** Per-request timeout the gateway applies to calls routed to this server. */
  requestTimeoutMs: number;
  /** Largest message accepted from this server, in bytes (default 4 MiB). */
  maxMessageBytes?: number;
  /** Which of its tools are advertised: globs over the tool's own name (main/supervisor/tool-list.ts). */
  tools?: { include?: string[]; exclude: string[] };
}

export interface StdioServerSpec extends ServerCommon {
  kind: 'stdio';
  command: string;
  args: string[];
  /** The profile's `env`, expanded. Values that came from `${secret:…}` are in the redactor. */
  env: Record<string, string>;
  /**
   * Which `${secret:…}` / `${env:…}` each env value is made of, as `NAME=${secret:X}` (sorted; only
   * values with a reference): part of the launch identity (main/trust/identity.ts), never a value.
   */
  envRefs?: string[];
  /** Host variable names passed through as they are. */
  inheritEnv: string[];
  cwd: string;
  framing: Framing;
  /** Tool pinning (docs/trust.md). */
  trust: TrustMode;
  /** The OS sandbox it runs in (main/sandbox/); strict unless the profile says otherwise. */
  sandbox: SandboxSpec;
  /**
   * Set when the profile's command was a package launcher (`npx pkg`, `uvx pkg`…) and `command`
   * / `args` were rewritten to run the installed package from the cache (main/packages/).
   */
  launcher?: { tool: string; spec: string; name: string; version: string; dir: string };
}

export interface HttpServerSpec extends ServerCommon {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
  /**
   * Which `${secret:…}` / `${env:…}` each header value is made of, as `NAME=${secret:X}` (sorted; only
   * values with a reference): part of the launch identity (main/trust/identity.ts), never a value.
   */
  headerRefs?: string[];
  /** streamable-http first and legacy SSE as a fallback (`auto`), or fixed. */
  transport: 'auto' | 'streamable-http' | 'sse';
  /** `auth: oauth`: signed in through main/auth/ (the client secret is in the redactor). */
  oauth?: { clientId?: string; clientSecret?: string; scopes?: string[]; redirectPort?: number };
  trust: TrustMode;
}

/** Gatehouse's own workspace tools server (resources/workspace-tools/MCP_TOOL_SPECIFICATION.md), run as a stdio child like any other. */
export interface BuiltinServerSpec extends ServerCommon {
  kind: 'builtin';
  builtin: 'workspace-tools';
  env: Record<string, string>;
  envRefs?: string[];
  inheritEnv: string[];
  /** Options handed to the built-in server (limits, allowed hosts...), JSON-serialisable. */
  options: Record<string, unknown>;
  sandbox: SandboxSpec;
}

export type ServerSpec = StdioServerSpec | HttpServerSpec | BuiltinServerSpec;

export interface PolicyRule {
  /** Globs over canonical tool names (`files.read_*`, `*.delete_*`, `fs.*`); empty for a resource or prompt rule. */
  match: string[];
  /** A resource rule: globs over the URIs a `resources/read` asks for (main/policy/glob.ts uriGlob). */
  resource?: string[];
  /** A prompt rule: globs over prompt names (own or canonical `<server>.<prompt>`). */
  prompt?: string[];
  /** Restrict the rule to these server ids. */
  servers?: string[];
  /** Restrict the rule to calls of these agents (their per-agent token's name, else clientInfo name). */
  agents?: string[];
  /** Tool annotation conditions, e.g. { readOnlyHint: true }. All must hold. */
  annotations?: Record<string, boolean>;
  /** Argument constraints: argument name → constraint. */
  args?: Record<string, { inside_workspace?: boolean; pattern?: string; equals?: unknown }>;
  decision: Decision;
  reason?: string;
  /** Evaluated and recorded as "would have …", never enforced (docs/audit.md "Policy you can test"). */
  shadow?: boolean;
}

export interface PolicySpec {
  default: Decision;
  rules: PolicyRule[];
  approvalTimeoutS: number;
  /** Decision for server→client `sampling/createMessage` requests. */
  sampling: Decision;
  /** Decision for a `resources/read` / `prompts/get` no rule of its kind matches. Absent: allow. */
  resources?: Decision;
  prompts?: Decision;
  /** What a credential the data scanner finds does, per direction (docs/data.md). Absent: redact / approve. */
  data?: DataPolicySpec;
  /** The trifecta guard (docs/data.md). Absent: approve. */
  flow?: FlowPolicy;
  /** Flow marks on top of the defaults: globs over canonical tool names. */
  marks?: FlowMarks;
}

export interface DataPolicySpec {
  results: 'redact' | 'hold' | 'allow';
  arguments: 'deny' | 'approve' | 'allow';
}

export type FlowPolicy = 'approve' | 'deny' | 'off';

export interface FlowMarks {
  private: string[];
  untrusted: string[];
  exfil: string[];
}

export type AgentPreset = 'claude-code' | 'codex' | 'gemini' | 'shell' | 'custom';

export interface AgentSpec {
  preset: AgentPreset;
  /** The program; undefined means the preset's default (`claude`, `codex`, `gemini`, the user's shell). */
  command?: string;
  args: string[];
  env: Record<string, string>;
  inheritEnv: string[];
  cwd: string;
  autostart: boolean;
  /** Undefined: the preset's default (strict plus what its CLI needs). */
  sandbox?: AgentSandboxSpec;
}

export interface ResolvedProfile {
  name: string;
  description?: string;
  /** Absolute path of the file the profile came from. */
  file: string;
  /** Absolute workspace root. */
  workspace: string;
  /** Where it came from: the profile's `workspace:`, or a default (its folder, the current directory). */
  workspaceSource: WorkspaceSource;
  /** Absolute data directory (`${data}`). */
  dataDir: string;
  toolSurface: ToolSurface;
  /** With the lazy surface: canonical names tools/list still lists in full (docs/gateway.md, "Lazy tool surface"). */
  alwaysListed?: string[];
  servers: ServerSpec[];
  /** alias → canonical tool name (`search` → `files.search_files`). */
  aliases: Record<string, string>;
  policy: PolicySpec;
  /** Every secret value this profile expanded, for redaction downstream. */
  redactor: Redactor;
  agent?: AgentSpec;
  /** OTLP export of exchanges and call metrics (main/telemetry/), when configured. */
  telemetry?: TelemetrySpec;
}

export interface TelemetrySpec {
  /** OTLP/HTTP base URL (`/v1/traces` and `/v1/metrics` are appended). */
  otlp: string;
  /** Expanded header values (secrets included: never shown, redacted by the profile's redactor). */
  headers: Record<string, string>;
  serviceName: string;
  metricsIntervalMs: number;
}

/** `profile`: written in the profile; `profile-folder` / `cwd`: defaulted (see ResolveContext). */
export type WorkspaceSource = 'profile' | 'profile-folder' | 'cwd';
