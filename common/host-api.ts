// The host API: one contract, two transports (ARCHITECTURE.md). Every command and every event
// is declared here once, with zod schemas for inputs, outputs and payloads. Electron IPC
// (preload/ + main/electron/) and the WebSocket bridge (main/web/) are thin adapters over the
// same dispatcher (main/api/); both validate with these schemas and reject anything else.
//
// Channel names read `domain:verb` (STYLE.md). This file imports nothing but zod.
import { z } from 'zod';

// ---- shared shapes ---------------------------------------------------------------------------

export const ServerStateSchema = z.enum(['starting', 'ready', 'restarting', 'stopping', 'stopped', 'failed']);
export const DecisionSchema = z.enum(['ALLOW', 'APPROVAL', 'DENY']);
export const ToolSurfaceSchema = z.enum(['friendly', 'canonical', 'both']);
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
export const SandboxSummarySchema = z.object({
  mode: z.enum(['strict', 'off']),
  network: z.enum(['none', 'loopback', 'allow', 'host']),
  summary: z.string(),
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
  /** The protocol era of the ready run (new: 2026-07-28 and later, stateless), and how it was known. */
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
});

export const TrafficEventSchema = z.object({
  seq: z.number(),
  ts: z.number(),
  session: z.string(),
  agentSession: z.string().optional(),
  server: z.string().optional(),
  direction: DirectionSchema,
  kind: TrafficKindSchema,
  method: z.string().optional(),
  id: z.union([z.string(), z.number()]).optional(),
  bytes: z.number(),
  message: z.unknown(),
  fault: z.string().optional(),
  exchange: z.string().optional(),
  decision: DecisionSchema.optional(),
  tool: z.string().optional(),
  latencyMs: z.number().optional(),
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
  /** Who decided: rule, person, timeout, no_approver, cancelled, gateway. */
  decidedBy: z.string().optional(),
  rule: z.string().optional(),
  answeredBy: z.string().optional(),
  reason: z.string().optional(),
  /** pending, ok, error, denied, unavailable, timeout, cancelled, aborted. */
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

export const PendingApprovalSchema = z.object({
  id: z.string(),
  session: z.string(),
  agentSession: z.string().optional(),
  exchange: z.string().optional(),
  kind: z.enum(['tool', 'sampling', 'elicitation']).optional(),
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
});

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
  outcome: z.string(),
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
  client: z.enum(['claude-code', 'codex', 'gemini', 'vscode', 'cursor', 'claude-desktop']),
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

// ---- commands --------------------------------------------------------------------------------

const Empty = z.object({}).strict();

const ToolCallOutputSchema = z.object({ result: CallToolResultSchema.optional(), error: z.string().optional(), exchange: z.string().optional() });
/** A Tool console call, kept by the host (main/api/console-calls.ts): a reload finds it pending, then its result. */
export const ConsoleCallSchema = z.object({
  exchange: z.string(), launchId: z.string(), tool: z.string(), args: z.record(z.string(), z.unknown()), startedAt: z.number(),
  /** Set once the call is answered (`ms` after it started). */
  output: ToolCallOutputSchema.optional(), ms: z.number().optional(),
});
const LaunchRef = z.object({ launchId: z.string().min(1) }).strict();
const ServerRef = z.object({ launchId: z.string().min(1), serverId: z.string().min(1) }).strict();

export const commands = {
  'host:info': {
    input: Empty,
    output: z.object({ version: z.string(), dataDir: z.string(), shell: z.enum(['electron', 'web']), platform: z.string() }),
  },
  /** Everything a window needs when it (re)attaches: bounded replay before live events. */
  'host:snapshot': {
    input: z.object({ trafficLimit: z.number().int().min(0).max(100_000).optional(), stderrLimit: z.number().int().min(0).max(10_000).optional() }).strict(),
    output: z.object({
      launches: z.array(LaunchSummarySchema),
      traffic: z.array(TrafficEventSchema),
      trafficStats: BufferStatsSchema,
      stderr: z.array(StderrLineSchema),
      stderrStats: BufferStatsSchema,
      approvals: z.array(PendingApprovalSchema),
      approvalNotices: z.array(InboxNoticeSchema).optional(),
      terminals: z.array(TerminalSummarySchema).optional(),
      /** Calls still open and the recently closed ones, so a (re)attaching window knows their decisions. */
      exchanges: z.array(ExchangeSchema).optional(),
      consoleCalls: z.array(ConsoleCallSchema).optional(),
    }),
  },
  'profiles:list': { input: Empty, output: z.array(ProfileSummarySchema) },
  'profiles:launch': {
    input: z.object({ ref: z.string().min(1), toolSurface: ToolSurfaceSchema.optional() }).strict(),
    output: LaunchSummarySchema,
  },
  'profiles:stop': { input: LaunchRef, output: z.object({ ok: z.literal(true) }) },
  /** Import an existing MCP client configuration (issue 6) from its text. */
  'profiles:import': {
    input: z.object({ fileName: z.string().min(1), text: z.string().max(1_000_000) }).strict(),
    output: z.object({ file: z.string(), name: z.string(), warnings: z.array(z.string()) }),
  },
  'launches:list': { input: Empty, output: z.array(LaunchSummarySchema) },
  'servers:restart': { input: ServerRef, output: z.object({ ok: z.literal(true) }) },
  'servers:stop': { input: ServerRef, output: z.object({ ok: z.literal(true) }) },
  'servers:start': { input: ServerRef, output: z.object({ ok: z.literal(true) }) },
  /**
   * Start signing in to an `auth: oauth` server. Answers once the authorization URL is known
   * (Electron has opened it in the system browser: `opened`); the window shows it as a link
   * otherwise. Completion arrives as `server:status` (auth.state signed-in, then ready).
   */
  'auth:signIn': { input: ServerRef, output: z.object({ authorizationUrl: z.string().optional(), opened: z.boolean() }) },
  /** Remove the server's tokens from the secret store; it restarts and shows sign-in needed. */
  'auth:signOut': { input: ServerRef, output: z.object({ removed: z.boolean() }) },
  /** The secret store and the names of `${secret:NAME}` values in it (never a value). */
  'secrets:list': { input: Empty, output: z.object({ store: SecretStoreInfoSchema, names: z.array(z.string()) }) },
  /** Write-only: the value goes to the store and is never sent back to any window. */
  'secrets:set': { input: z.object({ name: SecretNameSchema, value: z.string().min(1).max(65_536) }).strict(), output: z.object({ ok: z.literal(true) }) },
  'secrets:delete': { input: z.object({ name: SecretNameSchema }).strict(), output: z.object({ removed: z.boolean() }) },
  'approvals:list': { input: Empty, output: z.array(PendingApprovalSchema) },
  'approvals:answer': {
    input: z
      .object({
        id: z.string().min(1),
        choice: ApprovalChoiceSchema,
        note: z.string().max(500).optional(),
        /** With accept: elicitation field values, or a sampling reply `{text}`. */
        content: ApprovalAnswerContentSchema.optional(),
      })
      .strict(),
    output: z.object({ ok: z.boolean() }),
  },
  'tools:list': { input: LaunchRef, output: z.array(AdvertisedToolSchema) },
  /** Call a tool through the gateway as the UI's own agent session (policy and approvals apply). */
  'tools:call': {
    input: z.object({ launchId: z.string().min(1), name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict(),
    output: ToolCallOutputSchema,
  },
  /**
   * Older traffic from the audit store (for scrolling back past the in-memory buffer), newest
   * `limit` rows before `beforeSeq`, oldest first. Here `seq` is the audit store's own cursor
   * (store-wide, survives restarts), not the live tap's: page back by passing the smallest
   * `seq` received as the next `beforeSeq`, and keep these rows apart from live ones.
   */
  'traffic:history': {
    input: z.object({ session: z.string().optional(), beforeSeq: z.number().optional(), limit: z.number().int().min(1).max(10_000).optional() }).strict(),
    output: z.array(TrafficEventSchema),
  },
  /**
   * Bodies of live traffic rows (the window keeps only row fields): by tap seq, checked against
   * session and ts; from the tap's ring, else the audit store. `found: false` when neither has it.
   */
  'traffic:bodies': {
    input: z.object({ refs: z.array(TrafficRowRefSchema).max(5000) }).strict(),
    output: z.array(z.object({ seq: z.number(), message: z.unknown().optional(), found: z.boolean() })),
  },
  /** Tap seqs of live messages since `since` whose JSON contains `text` (case-insensitive). */
  'traffic:search': {
    input: z.object({ text: z.string().min(1), since: z.number(), sessions: z.array(z.string()).optional() }).strict(),
    output: z.object({ seqs: z.array(z.number()), complete: z.boolean() }),
  },
  /** Pins and replay links of the Traffic view, kept by the host (survive reloads and restarts). */
  'traffic:marks': { input: Empty, output: TrafficMarksSchema },
  'traffic:pin': { input: z.object({ row: TrafficRowRefSchema, pinned: z.boolean() }).strict(), output: z.object({ ok: z.literal(true) }) },
  'traffic:linkReplay': {
    input: z.object({ session: z.string().min(1), exchange: z.string().min(1), original: TrafficRowRefSchema }).strict(),
    output: z.object({ ok: z.literal(true) }),
  },
  'logs:tail': { input: ServerRef.extend({ limit: z.number().int().min(1).max(10_000).optional() }).strict(), output: z.array(StderrLineSchema) },
  'audit:sessions': { input: z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict(), output: z.array(AuditSessionSchema) },
  'audit:query': {
    input: z
      .object({
        session: z.string().optional(),
        server: z.string().optional(),
        method: z.string().optional(),
        text: z.string().optional(),
        since: z.number().optional(),
        until: z.number().optional(),
        limit: z.number().int().min(1).max(10_000).optional(),
      })
      .strict(),
    output: z.object({
      messages: z.array(z.record(z.string(), z.unknown())),
      decisions: z.array(z.record(z.string(), z.unknown())),
      /** One row per call (exchange) matching the text, server and session: decision, who decided, outcome. */
      calls: z.array(z.record(z.string(), z.unknown())).optional(),
    }),
  },
  /** Calls (one row per exchange) from the audit store, newest `limit` first-to-last: decision, who decided, outcome. */
  'audit:calls': {
    input: z
      .object({
        session: z.string().optional(),
        text: z.string().optional(),
        outcome: z.string().optional(),
        decidedBy: z.string().optional(),
        limit: z.number().int().min(1).max(10_000).optional(),
      })
      .strict(),
    output: z.array(ExchangeSchema.extend({ seq: z.number() })),
  },
  /** A FIAM v0.2 YAML model of a launch (docs/fiam.md); `observed` adds what the audit store saw. */
  'model:export': {
    input: z.object({ launchId: z.string().min(1), observed: z.boolean().optional() }).strict(),
    output: z.object({ fileName: z.string(), yaml: z.string() }),
  },
  /** Ready-to-paste configurations pointing agents at a launch's gateway. */
  'connect:configs': { input: LaunchRef.extend({ transport: z.enum(['http', 'stdio']).optional() }).strict(), output: z.object({ url: z.string().optional(), tokenEnv: z.string(), configs: z.array(ClientConfigSchema) }) },
  /** Reveal the gateway token for copying (never sent with any event, only on this explicit ask). */
  'connect:token': { input: LaunchRef, output: z.object({ token: z.string() }) },
  /** Terminals (issue 6): agents and shells in a pty, wired to the launch's gateway. */
  'terminals:list': { input: z.object({ launchId: z.string().optional() }).strict(), output: z.array(TerminalSummarySchema) },
  'terminals:presets': { input: LaunchRef, output: z.array(PresetAvailabilitySchema) },
  'terminals:open': {
    input: z
      .object({
        launchId: z.string().min(1),
        /** Default: the profile's agent, else a shell. */
        preset: AgentPresetSchema.optional(),
        cols: z.number().int().min(2).max(1000).optional(),
        rows: z.number().int().min(2).max(500).optional(),
      })
      .strict(),
    output: z.object({ terminal: TerminalSummarySchema.optional(), unavailable: z.string().optional(), install: z.string().optional() }),
  },
  'terminals:input': { input: z.object({ id: z.string().min(1), data: z.string().max(65_536) }).strict(), output: z.object({ ok: z.boolean() }) },
  'terminals:resize': {
    input: z.object({ id: z.string().min(1), cols: z.number().int().min(2).max(1000), rows: z.number().int().min(2).max(500) }).strict(),
    output: z.object({ ok: z.boolean() }),
  },
  /** Flow control: the window has parsed `chars` more characters of this terminal's output. */
  'terminals:ack': { input: z.object({ id: z.string().min(1), chars: z.number().int().min(0) }).strict(), output: z.object({ ok: z.boolean() }) },
  'terminals:close': { input: z.object({ id: z.string().min(1) }).strict(), output: z.object({ ok: z.boolean() }) },
  /** Trust reviews of a launch: servers waiting for launch approval, held and removed tools. */
  'trust:reviews': { input: LaunchRef, output: TrustReviewsSchema },
  /**
   * A person's trust decision. A launch (no `tool`): approve (pins the identity, starts the
   * server) or keep_stopped. A tool: accept (pins the offered definition) or reject.
   */
  'trust:decide': {
    input: z
      .object({
        launchId: z.string().min(1),
        serverId: z.string().min(1),
        tool: z.string().min(1).optional(),
        choice: z.enum(['approve', 'keep_stopped', 'accept', 'reject']),
        /** The hash of what the person was shown; refused when what waits has changed since. */
        hash: z.string().min(1).optional(),
      })
      .strict(),
    output: z.object({ ok: z.literal(true) }),
  },
  /** Trust decisions from the audit store, oldest first. */
  'audit:trust': {
    input: z.object({ profile: z.string().optional(), limit: z.number().int().min(1).max(10_000).optional() }).strict(),
    output: z.array(TrustDecisionRowSchema),
  },
  /** The bounded scrollback, for a window that attaches late or reloads. */
  'terminals:replay': { input: z.object({ id: z.string().min(1) }).strict(), output: z.object({ data: z.string() }) },
} as const;

export type CommandName = keyof typeof commands;
export type CommandInput<C extends CommandName> = z.input<(typeof commands)[C]['input']>;
export type CommandOutput<C extends CommandName> = z.infer<(typeof commands)[C]['output']>;

// ---- events ----------------------------------------------------------------------------------

export const events = {
  /** A launch started, changed (agent sessions) or stopped (`stopped: true`). */
  'launch:changed': z.object({ launch: LaunchSummarySchema, stopped: z.boolean().optional() }),
  'server:status': z.object({ launchId: z.string(), status: ServerStatusSchema }),
  /** Batched (≈25 ms). `dropped` counts events this window missed because it fell behind. */
  'traffic:batch': z.object({ events: z.array(TrafficEventSchema), dropped: z.number() }),
  'stderr:batch': z.object({ lines: z.array(StderrLineSchema), dropped: z.number() }),
  'approval:requested': z.object({ request: PendingApprovalSchema }),
  'approval:resolved': z.object({ request: PendingApprovalSchema, outcome: ApprovalOutcomeSchema }),
  /** A notice line was added or its count grew (never a card: nothing to answer). */
  'approval:notice': z.object({ notice: InboxNoticeSchema }),
  'decision:made': DecisionEventSchema,
  /**
   * Calls whose exchange opened (arrived), was updated (decided, sent upstream) or closed
   * (answered), batched (≈25 ms) with one entry per exchange in its latest state.
   */
  'exchange:batch': z.object({ changes: z.array(z.object({ phase: z.enum(['opened', 'updated', 'closed']), exchange: ExchangeSchema })) }),
  /** Terminal output, batched by the host (≈16 ms); acknowledge with `terminals:ack`. */
  'terminal:data': z.object({ id: z.string(), data: z.string() }),
  'terminal:changed': z.object({ terminal: TerminalSummarySchema, closed: z.boolean().optional() }),
  /** An `auth: oauth` server's sign-in expired and could not be refreshed: sign in again. */
  'auth:expired': z.object({ launchId: z.string(), serverId: z.string(), reason: z.string() }),
  /** A launch's trust reviews changed: fetch them again with `trust:reviews`. */
  'trust:changed': z.object({ launchId: z.string() }),
  /** A Tool console call started (no `output`) or was answered, from any window. */
  'console:call': z.object({ call: ConsoleCallSchema }),
} as const;

export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;

/** What the renderer talks to: the same interface over Electron IPC and over the WebSocket. */
export interface HostApi {
  call<C extends CommandName>(command: C, input: CommandInput<C>): Promise<CommandOutput<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/**
 * What the Electron preload exposes as `window.gatehouse` (contextBridge): one function per
 * command, named by its channel, and one subscription function per event that strips the IPC
 * event and returns an unsubscribe function. No generic `invoke`/`on` (STYLE.md, Electron's
 * security checklist). renderer/api/ipc-client.ts adapts it to HostApi; renderer/api/README.md
 * describes it for the preload.
 */
export interface HostApiBridge {
  /** Bridge shape version; bumped when this interface changes incompatibly. */
  readonly version: 1;
  readonly commands: { readonly [C in CommandName]: (input: CommandInput<C>) => Promise<CommandOutput<C>> };
  readonly events: { readonly [E in EventName]: (listener: (payload: EventPayload<E>) => void) => () => void };
}

export const HOST_API_BRIDGE_VERSION = 1;

// ---- wire format of the WebSocket bridge -----------------------------------------------------

export const WsClientMessageSchema = z.object({
  type: z.literal('call'),
  id: z.number().int(),
  command: z.string(),
  input: z.unknown(),
});

// Two results share `type: 'result'`, so they are told apart by `ok` (a discriminated union on
// `type` alone refuses duplicate values and throws on every parse).
export const WsServerMessageSchema = z.union([
  z.discriminatedUnion('ok', [
    z.object({ type: z.literal('result'), id: z.number().int(), ok: z.literal(true), output: z.unknown() }),
    z.object({ type: z.literal('result'), id: z.number().int(), ok: z.literal(false), error: z.string() }),
  ]),
  z.object({ type: z.literal('event'), event: z.string(), payload: z.unknown() }),
]);

export function isCommandName(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(commands, name);
}

export function isEventName(name: string): name is EventName {
  return Object.prototype.hasOwnProperty.call(events, name);
}
