// The shapes the host API's commands and events are made of (common/host-api.ts composes
// them): servers, launches, traffic and exchanges, approvals, audit rows, terminals, trust.
// Declared once here with zod; everything else derives its types from them.
import { z } from 'zod';

// ---- shared shapes ---------------------------------------------------------------------------

export const ServerStateSchema = z.enum(['starting', 'ready', 'restarting', 'stopping', 'stopped', 'failed']);
/** The wire-level verdict, as the gateway, traffic tap and audit record it. */
export const DecisionSchema = z.enum(['ALLOW', 'APPROVAL', 'DENY']);
export type Verdict = z.infer<typeof DecisionSchema>;
/** Who made the decision that let a call through or stopped it (main/gateway/exchanges.ts). */
export const DeciderSchema = z.enum(['rule', 'person', 'timeout', 'no_approver', 'cancelled', 'gateway']);
/**
 * How an exchange ended: answered (`ok`, or `error` for a JSON-RPC error or a tool error the
 * server returned), stopped before the server (`denied`, `unavailable`), or cut short
 * (`timeout`: the server did not answer in time; `cancelled`: the agent cancelled;
 * `aborted`: the server went away while the call was in flight).
 */
export const ExchangeOutcomeSchema = z.enum(['ok', 'error', 'denied', 'unavailable', 'timeout', 'cancelled', 'aborted']);
/** A decision's outcome; `answered` / `declined`: a person answered a server's sampling or elicitation request (the inbox). */
export const DecisionOutcomeSchema = z.enum(['allowed', 'denied', 'approved', 'timeout', 'no_approver', 'cancelled', 'unavailable', 'error', 'answered', 'declined']);
export const ToolSurfaceSchema = z.enum(['friendly', 'canonical', 'both', 'lazy']);
export const DirectionSchema = z.enum(['agent_to_gateway', 'gateway_to_agent', 'gateway_to_server', 'server_to_gateway']);
export const TrafficKindSchema = z.enum(['request', 'notification', 'response', 'error', 'fault']);

export const ProfileIssueSchema = z.object({
  file: z.string(),
  line: z.number(),
  column: z.number(),
  path: z.string(),
  message: z.string(),
});

export const ProfileSummarySchema = z.object({
  name: z.string(),
  file: z.string(),
  description: z.string().optional(),
  servers: z.array(z.string()),
  toolSurface: z.string().optional(),
  policyDefault: z.string().optional(),
  /** Set when the file does not validate: the same file:line:col text as the CLI. */
  error: z.string().optional(),
  issues: z.array(ProfileIssueSchema).optional(),
  shadowed: z.boolean().optional(),
});

export const ExitInfoSchema = z.object({
  code: z.number().nullable(),
  signal: z.string().nullable(),
  at: z.number(),
  uptimeMs: z.number(),
  reason: z.string(),
});

/** Sign-in state of an `auth: oauth` server (main/auth/). Never carries a token. */
export const AuthStatusSchema = z.object({
  state: z.enum(['signed-out', 'signed-in', 'sign-in-needed', 'signing-in']),
  issuer: z.string().optional(),
  expiresAt: z.number().optional(),
  scope: z.string().optional(),
  hasRefreshToken: z.boolean().optional(),
  reason: z.string().optional(),
});

/** Where secrets live, as the Secrets panel shows it (names only: values never reach a window). */
export const SecretStoreInfoSchema = z.object({
  kind: z.enum(['keychain', 'safe-storage', 'encrypted-file', 'memory']),
  description: z.string(),
  warning: z.string().optional(),
});

/** A `${secret:NAME}` name: letters, digits, `_ . -`, not starting with a digit. */
export const SecretNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/, 'a secret name is letters, digits, _ . -, not starting with a digit');

/** The OS sandbox a process runs in (docs/sandbox.md); `off` is shown as a warning. */
/** main/sandbox/types.ts says what each kind enforces. */
export const SandboxKindSchema = z.enum(['bubblewrap', 'landlock', 'seatbelt', 'container', 'off']);
export const SandboxSummarySchema = z.object({
  mode: z.enum(['strict', 'off']),
  network: z.enum(['none', 'loopback', 'allow', 'host']),
  /** One line for people: "strict · network none · writes workspace + 1 path". */
  summary: z.string(),
  /** The kind that ran it (known once a run was prepared). */
  kind: SandboxKindSchema.optional(),
  /** What the kind could not enforce, one line each ("no PID namespace: …"). */
  unenforced: z.array(z.string()).optional(),
  /** How the limits apply: "cgroup v1 · 256 processes · 2 GiB", "rlimit · …", "none: …". */
  limits: z.string().optional(),
});

/** One exit of a server's process, with the stderr lines just before it (main/supervisor/exit-history.ts). */
export const ExitRecordSchema = ExitInfoSchema.extend({
  run: z.number(),
  stderrTail: z.array(z.string()),
});

export const ServerStatusSchema = z.object({
  id: z.string(),
  kind: z.enum(['stdio', 'http', 'builtin']),
  state: ServerStateSchema,
  reason: z.string(),
  run: z.number(),
  restarts: z.number(),
  pid: z.number().optional(),
  command: z.string(),
  cwd: z.string().optional(),
  startedAt: z.number().optional(),
  readyAt: z.number().optional(),
  nextRestartAt: z.number().optional(),
  lastExit: ExitInfoSchema.optional(),
  /** Every exit during this launch, oldest first. */
  exits: z.array(ExitRecordSchema).optional(),
  stderrTail: z.array(z.string()),
  protocolFaults: z.number(),
  serverInfo: z.object({ name: z.string(), version: z.string() }).loose().optional(),
  protocolVersion: z.string().optional(),
  /** The protocol era of the ready run (which versions are new: common/protocol-era.ts), and how it was known. */
  era: z.object({ era: z.enum(['old', 'new']), how: z.enum(['remembered', 'probed', 'handshake']) }).optional(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  toolCount: z.number().optional(),
  instructions: z.string().optional(),
  auth: AuthStatusSchema.optional(),
  /** The OS sandbox a process server runs in (docs/sandbox.md); absent for HTTP upstreams. */
  sandbox: SandboxSummarySchema.optional(),
});

export const AgentSessionSchema = z.object({
  id: z.string(),
  transport: z.string(),
  startedAt: z.number(),
  client: z.object({ name: z.string(), version: z.string() }).loose().optional(),
  ended: z.number().optional(),
});

export const LaunchSummarySchema = z.object({
  id: z.string(),
  profile: z.string(),
  profileFile: z.string(),
  workspace: z.string(),
  /** Where the workspace came from: the profile's `workspace:`, or a default (its folder, the current directory). */
  workspaceSource: z.enum(['profile', 'profile-folder', 'cwd']).optional(),
  startedAt: z.number(),
  toolSurface: ToolSurfaceSchema,
  servers: z.array(ServerStatusSchema),
  /** The gateway's Streamable HTTP endpoint, when it serves one. Never carries the token. */
  gatewayUrl: z.string().optional(),
  agentSessions: z.array(AgentSessionSchema),
  /** What a person should know about this launch (the `launch:notice` events so far). */
  notices: z.array(z.string()).optional(),
});

export const TrafficEventSchema = z.object({
  seq: z.number(),
  ts: z.number(),
  session: z.string(),
  agentSession: z.string().optional(),
  /** The agent's client, from its `initialize` clientInfo (or, new era, the request's `_meta` clientInfo). */
  agentName: z.string().optional(),
  agentVersion: z.string().optional(),
  server: z.string().optional(),
  direction: DirectionSchema,
  kind: TrafficKindSchema,
  method: z.string().optional(),
  id: z.union([z.string(), z.number()]).optional(),
  bytes: z.number(),
  message: z.unknown(),
  fault: z.string().optional(),
  /** The exchange this message is a leg of (main/gateway/exchanges.ts): every request's, its answer's, its progress'. */
  exchange: z.string().optional(),
  /** For a leg of a server→client request: the exchange (call) it happened during. */
  parent: z.string().optional(),
  decision: DecisionSchema.optional(),
  tool: z.string().optional(),
  latencyMs: z.number().optional(),
});

/**
 * One thing the data scanner (main/data/, docs/data.md) found in a call's arguments or result:
 * what kind, which rule, and where (the JSON path of the string and the UTF-16 range in it).
 * Never the value: findings are stored, shown and exported.
 */
export const DataFindingSchema = z.object({
  direction: z.enum(['arguments', 'result']),
  /** `secret`: a value configured with `${secret:…}`; `credential`: a token a secretlint rule recognised. */
  kind: z.enum(['secret', 'credential']),
  /** `secret:NAME`, or the secretlint rule's short id (`github`, `aws`, `privatekey`…). */
  rule: z.string(),
  /** The rule's own name for what it matched (`GITHUB_TOKEN`, `AWSAccessKeyID`). */
  detail: z.string().optional(),
  /** JSON path of the string inside the arguments or result (`$.content[0].text`). */
  path: z.string(),
  start: z.number(),
  end: z.number(),
});

/**
 * One call or server→client request (main/gateway/exchanges.ts), flattened: the one record of it
 * from arrival to answer. Traffic rows carry its `id` in `exchange`; the window renders calls
 * from these and never pairs messages to find a decision.
 */
export const ExchangeSchema = z.object({
  id: z.string(),
  /** Arrival (epoch ms). */
  ts: z.number(),
  session: z.string(),
  agentSession: z.string().optional(),
  /** The agent's name (its per-agent token's, else its clientInfo name) and clientInfo version. */
  agentName: z.string().optional(),
  agentVersion: z.string().optional(),
  kind: z.enum(['call', 'server_request']),
  method: z.string(),
  server: z.string().optional(),
  tool: z.string().optional(),
  advertised: z.string().optional(),
  /** A server→client request: the call it happened during. */
  parent: z.string().optional(),
  downstreamId: z.union([z.string(), z.number()]).optional(),
  upstreamId: z.union([z.string(), z.number()]).optional(),
  decision: DecisionSchema.optional(),
  /** Who decided (DeciderSchema); a string on the wire: stored rows are read back as text. */
  decidedBy: z.string().optional(),
  rule: z.string().optional(),
  answeredBy: z.string().optional(),
  reason: z.string().optional(),
  /** `pending`, then one of ExchangeOutcomeSchema; a string on the wire: stored rows are read back as text. */
  outcome: z.string(),
  error: z.string().optional(),
  decidedAt: z.number().optional(),
  sentAt: z.number().optional(),
  answeredAt: z.number().optional(),
  latencyMs: z.number().optional(),
  requestBytes: z.number().optional(),
  responseBytes: z.number().optional(),
  /** The protocol version the agent's request used, and the one the server speaks (Traffic labels the new era). */
  agentEra: z.string().optional(),
  upstreamEra: z.string().optional(),
  /** A call held for input (the input bridge): input_required rounds sent. */
  round: z.number().optional(),
  /** Tap seqs of the traffic events that are this exchange's legs, in the order they crossed (absent on stored rows). */
  legs: z.array(z.number()).optional(),
  /** What the data scanner found in the call's arguments and result (docs/data.md). */
  findings: z.array(DataFindingSchema).optional(),
  /** The session's flow labels when the call was decided (`private`, `untrusted`), where the trifecta guard looked. */
  flow: z.array(z.string()).optional(),
});

export const StderrLineSchema = z.object({
  seq: z.number(),
  ts: z.number(),
  session: z.string(),
  server: z.string(),
  run: z.number(),
  line: z.string(),
});

/**
 * Answers to a pending request. A tool call: allow_once, allow_session, allow_tool_session or
 * deny. A question (kind sampling / elicitation): accept (with `content`), decline, or cancel
 * (elicitation); allow_once and deny are taken as accept and decline.
 */
export const ApprovalChoiceSchema = z.enum(['allow_once', 'allow_session', 'allow_tool_session', 'deny', 'accept', 'decline', 'cancel']);

/** `elicitation/create` in form mode (MCP 2025-11-25 client/elicitation). */
export const ElicitationFormQuestionSchema = z
  .object({ mode: z.literal('form').optional(), message: z.string(), requestedSchema: z.record(z.string(), z.unknown()) })
  .loose();
/** `elicitation/create` in URL mode: the person opens the URL, then accepts or declines. */
export const ElicitationUrlQuestionSchema = z
  .object({ mode: z.literal('url'), message: z.string(), url: z.string(), elicitationId: z.string().optional() })
  .loose();
/** `sampling/createMessage` params (client/sampling): the conversation a person replies to. */
export const SamplingQuestionSchema = z
  .object({
    messages: z.array(z.record(z.string(), z.unknown())),
    systemPrompt: z.string().optional(),
    maxTokens: z.number().optional(),
    modelPreferences: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
/** What a pending sampling / elicitation request asks (read it with the request's `kind`). */
export const ApprovalQuestionSchema = z.union([ElicitationUrlQuestionSchema, ElicitationFormQuestionSchema, SamplingQuestionSchema]);

/** Largest sampling reply, in characters (the host also caps it at 100 kB of UTF-8). */
export const MAX_SAMPLING_REPLY_CHARS = 100_000;
/** A person's sampling reply: the assistant message's text. */
export const SamplingReplySchema = z.object({ text: z.string().min(1).max(MAX_SAMPLING_REPLY_CHARS) }).strict();
/** Accepted elicitation content: field values (the spec's string, number, boolean, string[]). */
export const ElicitationContentSchema = z.record(
  z.string(),
  z.union([z.string().max(MAX_SAMPLING_REPLY_CHARS), z.number(), z.boolean(), z.array(z.string().max(MAX_SAMPLING_REPLY_CHARS)).max(1000)]),
);
export const ApprovalAnswerContentSchema = z.union([SamplingReplySchema, ElicitationContentSchema]);

/** A one-line inbox notice (main/approvals/inbox-notices.ts): e.g. what the approvals relay refused. */
export const InboxNoticeSchema = z.object({ key: z.string(), text: z.string(), count: z.number().int().nonnegative(), at: z.number() });

/**
 * What a pending request asks about: a tool call, a server's sampling / elicitation request,
 * or a resources/read / prompts/get a rule sent to a person (its `tool` is `resource:<uri>` or
 * `prompt:<server>.<prompt>`, main/policy/subjects.ts).
 */
export const ApprovalKindSchema = z.enum(['tool', 'sampling', 'elicitation', 'resource', 'prompt']);

export const PendingApprovalSchema = z.object({
  id: z.string(),
  session: z.string(),
  agentSession: z.string().optional(),
  agentName: z.string().optional(),
  agentVersion: z.string().optional(),
  exchange: z.string().optional(),
  kind: ApprovalKindSchema.optional(),
  tool: z.string(),
  advertisedName: z.string().optional(),
  server: z.string(),
  args: z.unknown(),
  annotations: z.record(z.string(), z.unknown()).optional(),
  reason: z.string(),
  rule: z.string().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  /** Sampling and elicitation requests no connected client could answer: what is asked. */
  question: ApprovalQuestionSchema.optional(),
  /** Canonical name of the tool call that caused a sampling / elicitation request. */
  triggerTool: z.string().optional(),
  /** Asked for each call (the trifecta guard): "allow for this session" allows this call only. */
  perCall: z.boolean().optional(),
});

/**
 * A remembered "allow for this session" grant (main/approvals/session-grants.ts): the exact
 * action (same arguments), the whole tool, or the tool narrowed to one argument's pattern.
 */
export const SessionGrantSchema = z.object({
  id: z.string(),
  session: z.string(),
  agentSession: z.string().optional(),
  /** The agent whose call was granted, as its approval card named it (main/gateway/agent-label.ts). */
  agentName: z.string().optional(),
  grant: z.enum(['action', 'tool', 'pattern']),
  /** The approval's kind (tool, sampling, elicitation): a grant answers only its own kind. */
  approvalKind: z.string(),
  tool: z.string(),
  by: z.string(),
  createdAt: z.number(),
  /** For an action grant: the (redacted) arguments it was given for. */
  args: z.unknown().optional(),
  /** For a pattern grant: the argument and the regular expression its whole value must match. */
  arg: z.string().optional(),
  pattern: z.string().optional(),
});

export type SessionGrant = z.infer<typeof SessionGrantSchema>;

/** How a person narrows "allow this tool for the session": one argument's value must match the pattern. */
export const GrantNarrowSchema = z.object({ arg: z.string().min(1).max(200), pattern: z.string().min(1).max(500) }).strict();

export const ApprovalOutcomeSchema = z.object({
  approved: z.boolean(),
  how: z.string(),
  by: z.string().optional(),
  reason: z.string(),
});

export const DecisionEventSchema = z.object({
  ts: z.number(),
  session: z.string(),
  agentSession: z.string().optional(),
  exchange: z.string(),
  tool: z.string(),
  advertisedName: z.string().optional(),
  server: z.string(),
  decision: DecisionSchema,
  outcome: DecisionOutcomeSchema,
  reason: z.string(),
  rule: z.string().optional(),
  fingerprint: z.string(),
  answeredBy: z.string().optional(),
  args: z.unknown(),
});

export const AdvertisedToolSchema = z.object({
  name: z.string(),
  canonical: z.string(),
  server: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
  /** What the policy says about this tool before arguments are known. */
  status: z.string().optional(),
  /** The trifecta guard's marks of this tool (docs/data.md "The trifecta guard"), as in the capabilities report's `flow_marks`. */
  flowMarks: z.array(z.enum(['private', 'untrusted', 'exfil'])).optional(),
});

export const CallToolResultSchema = z
  .object({
    content: z.array(z.record(z.string(), z.unknown())).optional(),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
  })
  .loose();

export const AuditSessionSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    profile: z.string().optional(),
    startedAt: z.number(),
    endedAt: z.number().optional(),
    endReason: z.string().optional(),
    messages: z.number(),
    stderrLines: z.number(),
    decisions: z.number(),
  })
  .loose();

export const ClientConfigSchema = z.object({
  client: z.enum(['claude-code', 'codex', 'gemini', 'vscode', 'cursor', 'claude-desktop', 'inspector']),
  label: z.string(),
  /** Where the user puts it (file path or command). */
  where: z.string(),
  format: z.enum(['json', 'toml', 'shell']),
  transport: z.enum(['http', 'stdio']),
  /** The `gatehouse connect` command line that prints (or, with --write, writes) this same text. */
  command: z.string(),
  /** The text to paste; the token appears only as an environment variable reference. */
  text: z.string(),
  notes: z.array(z.string()),
  /** The command line that starts the client with this text (the MCP Inspector: `--config FILE --server NAME`). */
  run: z.string().optional(),
});

export const AgentPresetSchema = z.enum(['claude-code', 'codex', 'gemini', 'shell', 'custom']);

export const TerminalSummarySchema = z.object({
  id: z.string(),
  launchId: z.string(),
  title: z.string(),
  preset: z.string(),
  command: z.string(),
  cwd: z.string(),
  pid: z.number().optional(),
  cols: z.number(),
  rows: z.number(),
  startedAt: z.number(),
  exit: z.object({ code: z.number().nullable(), signal: z.number().nullable(), at: z.number() }).optional(),
  sandbox: SandboxSummarySchema.optional(),
});

export const PresetAvailabilitySchema = z.object({
  preset: AgentPresetSchema,
  label: z.string(),
  available: z.boolean(),
  reason: z.string().optional(),
  install: z.string().optional(),
  /** The profile's own agent (what Launch starts). */
  isProfileAgent: z.boolean(),
});

/** Trust (docs/trust.md): a flag raised by the poisoning and shadowing checks. */
export const TrustFlagSchema = z.object({ kind: z.string(), severity: z.enum(['hold', 'note']), message: z.string() });
export const IdentityLineSchema = z.object({ field: z.string(), label: z.string(), value: z.string() });
/**
 * The `server` of the profile's own launch review (policy, tool surface, aliases, workspace:
 * main/trust/profile-identity.ts): not a valid server id, so it never names a real server.
 */
export const PROFILE_REVIEW_ID = '(profile)';
/** A server whose launch identity is new or changed: it does not start until a person approves. */
export const LaunchReviewSchema = z.object({
  server: z.string(),
  status: z.enum(['approved', 'new', 'changed', 'kept_stopped']),
  hash: z.string(),
  /** The exact command (untruncated) and the rest of the identity, one line per field. */
  lines: z.array(IdentityLineSchema),
  previousLines: z.array(IdentityLineSchema).optional(),
  /** Fields that differ from the approved identity. */
  changed: z.array(z.string()),
});
/** A tool held back (new or changed since approved) or one the server no longer offers. */
export const ToolReviewSchema = z.object({
  server: z.string(),
  tool: z.string(),
  canonical: z.string(),
  change: z.enum(['new', 'changed', 'removed']),
  status: z.enum(['pending', 'rejected', 'removed']),
  hash: z.string().optional(),
  previousHash: z.string().optional(),
  reason: z.string(),
  /** Unified diff of the approved and the offered definition. */
  diff: z.string(),
  flags: z.array(TrustFlagSchema),
});
export const TrustReviewsSchema = z.object({ launchId: z.string(), profile: z.string(), launch: z.array(LaunchReviewSchema), tools: z.array(ToolReviewSchema) });
export const TrustDecisionRowSchema = z.object({
  seq: z.number(),
  ts: z.number(),
  profile: z.string(),
  server: z.string().optional(),
  tool: z.string().optional(),
  kind: z.string(),
  action: z.string(),
  by: z.string(),
  oldHash: z.string().optional(),
  newHash: z.string().optional(),
  changed: z.string().optional(),
  flags: z.array(TrustFlagSchema).optional(),
  session: z.string().optional(),
});

export const BufferStatsSchema = z.object({ held: z.number(), total: z.number(), dropped: z.number(), evicted: z.number().optional() });

/** A Traffic row by launch session, seq and time (seqs alone repeat across host restarts). */
export const TrafficRowRefSchema = z.object({ session: z.string().min(1), seq: z.number(), ts: z.number() }).strict();
export const TrafficMarksSchema = z.object({
  pins: z.array(TrafficRowRefSchema),
  replays: z.array(z.object({ session: z.string(), exchange: z.string(), original: TrafficRowRefSchema })),
});
