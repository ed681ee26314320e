// The on-disk workspace profile (YAML, snake_case): the single source of truth. The loader
// validates with it, `workspace-profiles/profile.schema.json` is generated from it, and
// ./types.ts is what ./resolve.ts makes of it. Every object is strict because a typo
// (`comand:`) silently ignored would start a server without the setting the user wrote.
//
// Refinements that need the whole profile (rule `servers` naming real servers) live here too,
// so that every consumer of the schema gets them; JSON Schema cannot express them and
// `z.toJSONSchema` leaves them out.
import { z } from 'zod';

export const PROFILE_NAME_RE = /^[a-z0-9][a-z0-9_-]*$/;
/** No dots: canonical tool names are `<server-id>.<tool>`, so a dot would make them ambiguous. */
export const SERVER_ID_RE = /^[a-z][a-z0-9-]*$/;
/**
 * Server ids the built-in surface names its tools with (`fs.read`, `repo.apply_patch`,
 * `process.exec`, `net.http_request`, `gatehouse.capabilities`: main/tools/workspace-tools.ts,
 * main/gateway/tool-surface.ts). A server with one of these ids would give its tools the
 * built-ins' canonical names, and every rule written for the built-in (`fs.read: allow`) would
 * cover it (docs/gateway.md, "Names"). main/profiles/reserved-ids.test.ts keeps the list whole.
 */
export const RESERVED_SERVER_IDS: readonly string[] = ['fs', 'repo', 'process', 'net', 'gatehouse'];
/** The advertised-name alphabet every major MCP client accepts (ARCHITECTURE.md, "Names"). */
export const ALIAS_RE = /^[A-Za-z0-9_-]{1,64}$/;
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The keys that decide what kind of server an entry is; exactly one must be present. */
export const SERVER_KIND_KEYS = ['command', 'url', 'builtin'] as const;

const quoted = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

const envName = z
  .string()
  .regex(ENV_NAME_RE, { error: (iss) => `an environment variable name is letters, digits and '_', not starting with a digit, got ${quoted(iss.input)}` });

const envMap = z
  .record(envName, z.string())
  .describe('Environment variables for the process, on top of a minimal safe set. Values may use ${…} expansions.');

const inheritEnv = z
  .array(envName)
  .describe('Host environment variables passed through by name. Nothing else of the host environment reaches the server.');

const restart = z
  .strictObject({
    max_restarts: z.number().int().min(0).default(5).describe('Restarts allowed before the server is marked failed.'),
    initial_backoff_ms: z.number().int().min(0).default(500).describe('First backoff delay; doubles each attempt (with jitter).'),
    max_backoff_ms: z.number().int().min(0).default(30000).describe('Cap on the backoff delay.'),
    reset_after_s: z.number().min(0).default(60).describe('Uptime after which the backoff and the restart count reset.'),
  })
  .describe('Crash restart policy.');

/** Tool pinning (docs/trust.md); part of the launch identity, so changing it asks again. */
const trustMode = z
  .enum(['pin', 'accept-new', 'off'])
  .default('pin')
  .describe('Tool pinning: `pin` holds new and changed tools for review, `accept-new` lets new tools pass (changed ones wait), `off` advertises whatever the server lists.');
// `sandbox:` (docs/sandbox.md): the OS sandbox a process runs in. `strict` (the default for
// every process Gatehouse starts) or `off` (unconfined; only ever written explicitly), or an
// object that keeps strict and adds grants.
const sandboxNetwork = z
  .union([
    z.enum(['none', 'loopback']),
    z.strictObject({
      allow: z
        .array(z.string().min(1))
        .min(1)
        .describe('Hosts reachable over HTTP(S) through Gatehouse\'s filtering proxy; the same entries as http_request\'s allow_hosts (`api.example.com`, `*.example.com`, `host:port`, IP literals, `*`).'),
    }),
  ])
  .describe('`none`: no network at all (the process has only its own loopback); `loopback`: plus the granted host_ports on 127.0.0.1; `{allow: [hosts]}`: plus HTTP(S) to these hosts through a filtering proxy.');

const sandboxObject = z.strictObject({
  mode: z.enum(['strict', 'off']).default('strict').describe('`strict` confines the process; `off` runs it unconfined (shown as a warning).'),
  write: z.array(z.string().min(1)).default([]).describe('Paths the process may write besides the workspace (`~/…`, `${workspace}`, `${data}/…` expand). A missing folder is created.'),
  read: z.array(z.string().min(1)).default([]).describe('Paths made visible read-only even where they are hidden by default (e.g. `~/.gitconfig`).'),
  network: sandboxNetwork.optional().describe('Default: none (for an agent: what its preset needs).'),
  host_ports: z
    .array(z.number().int().min(1).max(65535))
    .default([])
    .describe('Ports of the host\'s 127.0.0.1 reachable from inside at the same number (needs network loopback or allow).'),
});

export const SandboxSchema = z
  .union([z.enum(['strict', 'off']), sandboxObject])
  .describe('The OS sandbox this process runs in (docs/sandbox.md). Default: strict (read-only system, workspace writable, credentials and Gatehouse\'s data hidden, no network).');

// `limits:` (docs/sandbox.md "Limits"): caps on the process tree of a server or the agent, under
// every sandbox kind, `sandbox: off` included. Absent keys keep the defaults (256 processes,
// 2 GiB, no CPU cap: main/sandbox/types.ts DEFAULT_LIMITS).
const SIZE_RE = /^(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|TiB)$/;
const SIZE_UNITS: Record<string, number> = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };
/** Below this nothing starts (node 20 alone touches ~40 MiB), so a smaller cap is a typo. */
const MIN_MEMORY = 16 * 1024 ** 2;
/** `512MiB`, `2GiB`, `1.5GiB` or a number of bytes → bytes; undefined when it is none of those. */
export function parseMemorySize(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  const m = typeof v === 'string' ? SIZE_RE.exec(v.trim()) : null;
  return m ? Math.floor(Number(m[1]) * SIZE_UNITS[m[2]!]!) : undefined;
}

export const LimitsSchema = z
  .strictObject({
    processes: z
      .number()
      .int()
      .min(16, { error: (iss) => `processes counts threads too (node alone runs about 11), so at least 16, got ${quoted(iss.input)}` })
      .optional()
      .describe('Most processes and threads at once (default 256).'),
    memory: z
      .union([z.number(), z.string()])
      .transform((v, ctx) => {
        const bytes = parseMemorySize(v);
        if (bytes === undefined || bytes < MIN_MEMORY) {
          ctx.addIssue({ code: 'custom', message: `expected a size like 512MiB, 2GiB or a number of bytes, at least 16MiB, got ${quoted(v)}`, input: v });
          return z.NEVER;
        }
        return bytes;
      })
      .optional()
      .describe('Most memory: `512MiB`, `2GiB` or a number of bytes (default 2GiB).'),
    cpu: z
      .number()
      .positive({ error: (iss) => `cpu is a percent of one core (50 = half a core, 200 = two cores), above 0, got ${quoted(iss.input)}` })
      .max(100_000)
      .optional()
      .describe('CPU as a percent of one core (default: no CPU cap).'),
  })
  .describe('Caps on what the process tree may use, enforced by a cgroup where Gatehouse can have one, else rlimits (docs/sandbox.md).');

const serverCommon = {
  description: z.string().optional(),
  disabled: z.boolean().default(false).describe('Listed but never started.'),
  // prefault, not default: zod 4 returns a default as-is, and the inner defaults must apply.
  restart: restart.prefault({}),
  startup_timeout_s: z.number().positive().default(30).describe('`initialize` must answer within this many seconds.'),
  request_timeout_s: z.number().positive().default(120).describe('Timeout for each request routed to this server.'),
  max_message_mb: z
    .number()
    .positive()
    .max(64)
    .default(4)
    .describe('Largest message accepted from this server, in MiB; larger ones are refused (a larger Content-Length restarts the server).'),
  tools: z
    .strictObject({
      include: z.array(z.string().min(1)).optional().describe("Only these of the server's tools are advertised (globs over the tool's own name)."),
      exclude: z.array(z.string().min(1)).default([]).describe('These are never advertised (applied after include).'),
    })
    .optional()
    .describe("Which of the server's tools the agent sees; a tool left out is unknown to the gateway, its pins and its policy (Codex enabled_tools / disabled_tools, Gemini includeTools / excludeTools)."),
};

export const StdioServerSchema = z
  .strictObject({
    command: z
      .string()
      .min(1)
      .describe('Executable name or path, run without a shell. Bare names are looked up in Gatehouse\'s node_modules/.bin, then PATH. Arguments go in `args`.'),
    args: z.array(z.string()).default([]).describe('Arguments, one per item (never split by a shell).'),
    env: envMap.default({}),
    inherit_env: inheritEnv.default([]),
    cwd: z.string().default('${workspace}').describe('Working directory; relative paths are relative to the workspace.'),
    framing: z.enum(['auto', 'line', 'content-length']).default('auto').describe('stdio framing: auto-detected, newline-delimited or Content-Length.'),
    trust: trustMode,
    sandbox: SandboxSchema.optional(),
    limits: LimitsSchema.optional(),
    ...serverCommon,
  })
  .describe('A stdio MCP server started as a child process.');

/** `auth: oauth` and its optional settings (main/auth/, docs/auth.md). */
const oauthFields = {
  auth: z.enum(['none', 'oauth']).optional().describe('oauth: sign in with OAuth 2.1 per the MCP authorization spec (tokens live in the OS keychain).'),
  client_id: z.string().min(1).optional().describe('A pre-registered OAuth client id (otherwise Gatehouse registers itself).'),
  client_secret: z
    .string()
    .regex(/^\$\{secret:[^}]+\}$/, { error: (iss) => `client_secret must be a \${secret:NAME} reference (the value lives in the secret store: gatehouse secrets set NAME), got ${typeof iss.input === 'string' && iss.input.length > 0 ? 'a literal value' : quoted(iss.input)}` })
    .optional()
    .describe('The pre-registered client\'s secret, as ${secret:NAME}; never a literal.'),
  scopes: z.array(z.string().min(1)).optional().describe('Scopes to ask for when the server names none (WWW-Authenticate, scopes_supported).'),
  redirect_port: z.number().int().min(1).max(65535).optional().describe('Fixed loopback port of the redirect URI http://127.0.0.1:PORT/callback (for a pre-registered client).'),
};

export const HttpServerSchema = z
  .strictObject({
    url: z.string().min(1).describe('http(s) URL of a Streamable HTTP (or legacy SSE) MCP endpoint.'),
    headers: z.record(z.string(), z.string()).default({}).describe('Request headers; use ${secret:NAME} for tokens.'),
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto').describe('auto tries Streamable HTTP, then legacy SSE.'),
    ...oauthFields,
    trust: trustMode,
    ...serverCommon,
  })
  .superRefine((s, ctx) => {
    // The OAuth settings mean nothing without `auth: oauth`; a token in `headers` would be sent
    // beside (or instead of) the signed-in one.
    if (s.auth !== 'oauth') {
      for (const key of ['client_id', 'client_secret', 'scopes', 'redirect_port'] as const) {
        if (s[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} needs \`auth: oauth\` on this server`, input: s[key] });
      }
      return;
    }
    const header = Object.keys(s.headers).find((h) => h.toLowerCase() === 'authorization');
    if (header) ctx.addIssue({ code: 'custom', path: ['headers', header], message: 'auth: oauth sends its own Authorization header; remove this one', input: header });
  })
  .describe('A remote MCP server reached over HTTP.');

export const BuiltinServerSchema = z
  .strictObject({
    builtin: z.enum(['workspace-tools']).describe('Gatehouse\'s own tools server, confined to the workspace.'),
    options: z.record(z.string(), z.unknown()).default({}).describe('Options handed to the built-in server.'),
    env: envMap.default({}),
    inherit_env: inheritEnv.default([]),
    sandbox: SandboxSchema.optional(),
    limits: LimitsSchema.optional(),
    ...serverCommon,
  })
  .describe('A server built into Gatehouse.');

/**
 * A union, not a discriminated union: the kind is decided by which key is present. The loader
 * turns a failed match into "expected exactly one of command, url or builtin" or into the
 * errors of the one branch whose kind key is present.
 */
// Option order matches SERVER_KIND_KEYS: the loader picks a branch's errors by that index.
export const ServerSchema = z.union([StdioServerSchema, HttpServerSchema, BuiltinServerSchema]);

const decision = z.enum(['allow', 'approve', 'deny']);

const argConstraint = z.strictObject({
  inside_workspace: z.boolean().optional().describe('The argument is a path that must resolve inside the workspace.'),
  pattern: z
    .string()
    .refine(
      (p) => {
        try {
          new RegExp(p);
          return true;
        } catch {
          return false;
        }
      },
      { error: (iss) => `not a valid regular expression: ${quoted(iss.input)}` },
    )
    .optional()
    .describe('Regular expression the argument must match.'),
  equals: z.unknown().optional().describe('Value the argument must equal.'),
});

const globs = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

/** The keys that say what a rule is about: exactly one per rule (docs/gateway.md "Policy"). */
export const RULE_SUBJECTS = ['match', 'resource', 'prompt'] as const;

const PolicyRuleObject = z.strictObject({
  match: globs.optional().describe('Glob(s) over canonical tool names, e.g. files.read_* or *.delete_*.'),
  resource: globs
    .optional()
    .describe('Glob(s) over resource URIs a resources/read asks for, e.g. file:///secret/** (* stays inside one /-segment, ** crosses them).'),
  prompt: globs
    .optional()
    .describe("Glob(s) over prompt names a prompts/get asks for: the prompt's own name (code_review) or its canonical <server>.<prompt>."),
  servers: z.array(z.string()).optional().describe('Only tools of these server ids.'),
  agents: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe("Only calls of these agents: a per-agent token's name (gatehouse connect --agent NAME), else the name the agent declares in clientInfo."),
  annotations: z
    .strictObject({
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional()
    .describe('Tool annotation conditions; all must hold.'),
  args: z.record(z.string(), argConstraint).optional().describe('Conditions on call arguments, by argument name; all must hold.'),
  decision,
  reason: z.string().optional().describe('Shown to the agent on deny and to the person on approve.'),
  shadow: z.boolean().optional().describe('Evaluated and recorded as "would have …" (audit, Traffic), never enforced: the next rule decides.'),
});

export const PolicyRuleSchema = PolicyRuleObject.superRefine((rule, ctx) => {
  const given = RULE_SUBJECTS.filter((k) => rule[k] !== undefined);
  if (given.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: given.length > 1 ? [given[1]!] : [],
      message:
        given.length === 0
          ? 'a rule needs one of match (tool names), resource (URIs) or prompt (prompt names)'
          : `a rule is about one kind: match (tools), resource or prompt, got ${given.join(' and ')}`,
      input: rule,
    });
    return;
  }
  // Tool annotations only exist on tools; a resource read has no arguments to constrain.
  if (rule.annotations !== undefined && given[0] !== 'match') {
    ctx.addIssue({ code: 'custom', path: ['annotations'], message: `annotations apply to tool rules (match), not to a ${given[0]} rule`, input: rule.annotations });
  }
  if (rule.args !== undefined && given[0] === 'resource') {
    ctx.addIssue({ code: 'custom', path: ['args'], message: 'a resource rule has no arguments to constrain (write the URI glob in resource)', input: rule.args });
  }
});

export const PolicySchema = z
  .strictObject({
    default: decision.default('approve').describe('Decision for a call that no rule matches.'),
    rules: z.array(PolicyRuleSchema).default([]).describe('First matching rule decides.'),
    approval_timeout_s: z.number().positive().default(120).describe('An unanswered approval is denied after this many seconds.'),
    sampling: decision.default('approve').describe('Decision for server→client sampling requests.'),
    resources: decision.default('allow').describe('Decision for a resources/read that no resource rule matches.'),
    prompts: decision.default('allow').describe('Decision for a prompts/get that no prompt rule matches.'),
    data: z
      .strictObject({
        results: z.enum(['redact', 'hold', 'allow']).default('redact').describe('A credential found in a result: masked, held for a person, or passed on.'),
        arguments: z.enum(['deny', 'approve', 'allow']).default('approve').describe('A credential found in a call\'s arguments: the call is denied, needs a person, or goes on.'),
      })
      .prefault({})
      .describe('What happens to credentials the data scanner finds (docs/data.md). Configured secrets are always redacted.'),
    flow: z
      .enum(['approve', 'deny', 'off'])
      .default('approve')
      .describe('The trifecta guard: a session that received private data and untrusted content calling an exfil tool (docs/data.md).'),
    marks: z
      .strictObject({
        private: z.array(z.string().min(1)).default([]).describe('Globs over canonical tool names whose results are private data.'),
        untrusted: z.array(z.string().min(1)).default([]).describe('Globs over canonical tool names whose results are untrusted content.'),
        exfil: z.array(z.string().min(1)).default([]).describe('Globs over canonical tool names that can send data out.'),
      })
      .prefault({})
      .describe('Flow marks added to the defaults (docs/data.md, "The trifecta guard").'),
  })
  .describe('Which tool calls, resource reads and prompt gets are allowed, need approval or are denied.');

const telemetry = z
  .strictObject({
    otlp: z.string().min(1).describe('OTLP/HTTP base URL of the collector (e.g. http://127.0.0.1:4318); spans go to /v1/traces, metrics to /v1/metrics.'),
    headers: z.record(z.string(), z.string()).default({}).describe('Request headers for the collector; use ${secret:NAME} for tokens.'),
    service_name: z.string().min(1).default('gatehouse').describe('The `service.name` resource attribute.'),
    metrics_interval_s: z.number().positive().default(30).describe('How often metrics are exported.'),
  })
  .describe('Export one span per exchange and call metrics over OTLP/HTTP (docs/telemetry.md). Nothing is exported unless this is set.');

export const AGENT_PRESETS = ['claude-code', 'codex', 'gemini', 'shell', 'custom'] as const;

const agent = z
  .strictObject({
    preset: z.enum(AGENT_PRESETS).default('shell').describe('Which agent CLI; each preset knows how to point its agent at the gateway.'),
    command: z.string().min(1).optional().describe('Program to run (required for `custom`; overrides a preset\'s default program).'),
    args: z.array(z.string()).default([]).describe('Extra arguments, one per item (never a shell string).'),
    env: envMap.default({}),
    inherit_env: inheritEnv.default([]),
    cwd: z.string().default('${workspace}').describe('Working directory; relative paths are relative to the workspace.'),
    autostart: z.boolean().default(true).describe('Start the agent in a terminal when the profile is launched.'),
    sandbox: SandboxSchema.optional().describe('The OS sandbox of the agent\'s terminal. Default: strict, with what the preset\'s CLI needs (its config folder, its model API hosts) and the gateway port.'),
    limits: LimitsSchema.optional(),
  })
  .refine((a) => a.preset !== 'custom' || a.command !== undefined, { message: 'preset custom needs a command', path: ['command'] })
  .describe('The agent to start with this profile, in a terminal wired to the gateway.');

export const ProfileSchema = z
  .strictObject({
    name: z
      .string()
      .regex(PROFILE_NAME_RE, {
        error: (iss) => `a profile name is lowercase letters, digits, '_' and '-', starting with a letter or digit, got ${quoted(iss.input)}`,
      })
      .optional()
      .describe("Defaults to the file's name without .yaml."),
    description: z.string().optional(),
    workspace: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Workspace root, relative to this file. The built-in tools are confined to it, so a profile with a builtin server must name it. Default: this file's folder for a bundled or user profile, the current directory for `--profile FILE`.",
      ),
    tool_surface: z
      .enum(['friendly', 'canonical', 'both', 'lazy'])
      .default('friendly')
      .describe('Which tool names the agent sees. lazy: tools/list holds only a search tool, a call tool and always_listed; every tool stays callable by its friendly name.'),
    always_listed: z
      .array(z.string().regex(/^[^.\s]+\.\S+$/, { error: (iss) => `expected a canonical tool name like files.read_file, got ${quoted(iss.input)}` }))
      .default([])
      .describe('With tool_surface lazy: canonical names of the tools tools/list still lists in full.'),
    servers: z
      .record(
        z
          .string()
          .regex(SERVER_ID_RE, {
            error: (iss) => `a server id is lowercase letters, digits and '-', starting with a letter (no dots), got ${quoted(iss.input)}`,
          })
          .refine((id) => !RESERVED_SERVER_IDS.includes(id), {
            error: (iss) => `expected a server id that is not one of the built-in tools' prefixes (${RESERVED_SERVER_IDS.join(', ')}), got ${quoted(iss.input)}`,
          }),
        ServerSchema,
      )
      .default({})
      .describe('MCP servers by id. Canonical tool names are <server-id>.<tool>.'),
    aliases: z
      .record(
        z.string().regex(ALIAS_RE, { error: (iss) => `an alias is 1-64 of A-Z a-z 0-9 _ -, got ${quoted(iss.input)}` }),
        z.string().regex(/^[^.\s]+\.\S+$/, { error: (iss) => `expected a canonical tool name like files.read_file, got ${quoted(iss.input)}` }),
      )
      .default({})
      .describe('Friendly name → canonical tool name.'),
    policy: PolicySchema.prefault({}),
    agent: agent.optional(),
    telemetry: telemetry.optional(),
  })
  .superRefine(
    (profile, ctx) => {
      // Runs even when other parts failed (see `when`), so the value may be only partly valid.
      const p = profile as unknown as { servers?: unknown; policy?: { rules?: unknown } };
      const servers = p.servers && typeof p.servers === 'object' ? p.servers : {};
      const ids = Object.keys(servers);
      const rules = Array.isArray(p.policy?.rules) ? (p.policy.rules as unknown[]) : [];
      rules.forEach((rule, i) => {
        const named = (rule as { servers?: unknown } | null)?.servers;
        if (!Array.isArray(named)) return;
        named.forEach((id: unknown, j) => {
          if (typeof id !== 'string' || ids.includes(id)) return;
          ctx.addIssue({
            code: 'custom',
            path: ['policy', 'rules', i, 'servers', j],
            message: `unknown server '${id}' (this profile's servers: ${ids.length ? ids.join(', ') : 'none'})`,
            input: id,
          });
        });
      });
    },
    // Report a misnamed server alongside the other mistakes, not only after they are fixed.
    { when: (payload) => payload.value !== null && typeof payload.value === 'object' },
  )
  .describe('A Gatehouse workspace profile.');

/** The profile as written (before defaults). */
export type ProfileInput = z.input<typeof ProfileSchema>;
/** The profile after validation, defaults applied, before `${…}` expansion. */
export type ProfileRaw = z.output<typeof ProfileSchema>;
export type ServerRaw = z.output<typeof ServerSchema>;
export type PolicyRuleRaw = z.output<typeof PolicyRuleSchema>;
export type SandboxRaw = z.output<typeof SandboxSchema>;
export type LimitsRaw = z.output<typeof LimitsSchema>;
