// The host API: one contract, two transports (ARCHITECTURE.md). Every command and every event
// is declared here once, with zod schemas for inputs, outputs and payloads. Electron IPC
// (preload/ + main/electron/) and the WebSocket bridge (main/web/) are thin adapters over the
// same dispatcher (main/api/); both validate with these schemas and reject anything else.
//
// Channel names read `domain:verb` (STYLE.md). This file imports nothing but zod.
import { z } from 'zod';

import {
  ToolSurfaceSchema,
  ProfileSummarySchema,
  SecretStoreInfoSchema,
  SecretNameSchema,
  ServerStatusSchema,
  LaunchSummarySchema,
  TrafficEventSchema,
  ExchangeSchema,
  StderrLineSchema,
  ApprovalChoiceSchema,
  GrantNarrowSchema,
  SessionGrantSchema,
  ApprovalAnswerContentSchema,
  InboxNoticeSchema,
  PendingApprovalSchema,
  ApprovalOutcomeSchema,
  DecisionEventSchema,
  AdvertisedToolSchema,
  CallToolResultSchema,
  AuditSessionSchema,
  ClientConfigSchema,
  AgentPresetSchema,
  TerminalSummarySchema,
  PresetAvailabilitySchema,
  TrustReviewsSchema,
  TrustDecisionRowSchema,
  BufferStatsSchema,
  TrafficRowRefSchema,
  TrafficMarksSchema,
} from './host-api-shapes';
import { DoctorReportSchema } from './host-api-doctor';
import {
  AuditStreamSchema,
  CallGroupSchema,
  PromptGetOutputSchema,
  PromptItemSchema,
  ResourceItemSchema,
  ResourceReadOutputSchema,
  ResourceTemplateItemSchema,
} from './host-api-views';

export * from './host-api-shapes';
export * from './host-api-doctor';
export * from './host-api-views';

// ---- commands --------------------------------------------------------------------------------

const Empty = z.object({}).strict();

const ToolCallOutputSchema = z.object({ result: CallToolResultSchema.optional(), error: z.string().optional(), exchange: z.string().optional() });
/** A Tool console call, kept by the host (main/api/console-calls.ts): a reload finds it pending, then its result. */
export const ConsoleCallSchema = z.object({
  exchange: z.string(), launchId: z.string(), tool: z.string(), args: z.record(z.string(), z.unknown()), startedAt: z.number(),
  /** Set once the call is answered (`ms` after it started). */
  output: ToolCallOutputSchema.optional(), ms: z.number().optional(),
});
/** A launched profile's file on disk differs from what was launched (`changed`), or is back as it was. */
export const ProfileChangeSchema = z.object({ launchId: z.string(), profile: z.string(), file: z.string(), changed: z.boolean() });
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
  /** Import an existing MCP client configuration from its text. */
  'profiles:import': {
    input: z.object({ fileName: z.string().min(1), text: z.string().max(1_000_000) }).strict(),
    output: z.object({ file: z.string(), name: z.string(), warnings: z.array(z.string()) }),
  },
  'launches:list': { input: Empty, output: z.array(LaunchSummarySchema) },
  /** Running launches whose profile file was edited on disk since launch (a window that attaches late asks). */
  'profiles:changes': { input: Empty, output: z.array(ProfileChangeSchema) },
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
        /** With allow_tool_session: only calls whose `arg` matches `pattern` (the whole value). */
        narrow: GrantNarrowSchema.optional(),
      })
      .strict(),
    output: z.object({ ok: z.boolean() }),
  },
  /** "Allow for this session" grants of every launch (main/approvals/session-grants.ts). */
  'grants:list': { input: Empty, output: z.array(SessionGrantSchema) },
  'grants:revoke': { input: z.object({ id: z.string().min(1) }).strict(), output: z.object({ revoked: z.boolean() }) },
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
        /** Narrows the calls (not messages or decisions) to one outcome group. */
        group: CallGroupSchema.optional(),
      })
      .strict(),
    output: z.object({
      messages: z.array(z.record(z.string(), z.unknown())),
      decisions: z.array(z.record(z.string(), z.unknown())),
      /** One row per call (exchange) matching the text, server and session: decision, who decided, outcome. */
      calls: z.array(z.record(z.string(), z.unknown())).optional(),
      /** How many calls match in all (`calls` holds the newest `limit` of them). */
      callsTotal: z.number().optional(),
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
  /**
   * The same checks as `gatehouse doctor` (main/doctor/): the window's first-run panel shows what
   * fails. Run once per host (they fork bwrap and python3); `refresh` runs them again.
   */
  'doctor:run': { input: z.object({ refresh: z.boolean().optional() }).strict(), output: DoctorReportSchema },
  /** Terminals: agents and shells in a pty, wired to the launch's gateway. */
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

  // ---- Resources and Prompts views, HAR and curl, Audit export (common/host-api-views.ts) ----
  /** The launch's resources and templates as an agent lists them, and the URIs the window is subscribed to. */
  'resources:list': {
    input: LaunchRef,
    output: z.object({ resources: z.array(ResourceItemSchema), templates: z.array(ResourceTemplateItemSchema), subscribed: z.array(z.string()) }),
  },
  /** resources/read through the gateway as the UI's own session: an exchange in Traffic and the audit store. */
  'resources:read': { input: z.object({ launchId: z.string().min(1), uri: z.string().min(1).max(8192) }).strict(), output: ResourceReadOutputSchema },
  /** Subscribe (or not) the window to a resource; changes arrive as `resource:updated`. */
  'resources:subscribe': {
    input: z.object({ launchId: z.string().min(1), uri: z.string().min(1).max(8192), subscribed: z.boolean() }).strict(),
    output: z.object({ subscribed: z.array(z.string()) }),
  },
  'prompts:list': { input: LaunchRef, output: z.array(PromptItemSchema) },
  /** prompts/get through the gateway as the UI's own session; MCP prompt arguments are strings. */
  'prompts:get': {
    input: z.object({ launchId: z.string().min(1), name: z.string().min(1), arguments: z.record(z.string(), z.string().max(65_536)) }).strict(),
    output: PromptGetOutputSchema,
  },
  /**
   * A HAR 1.2 log of a launch's HTTP traffic (docs/ui-layout.md "HAR and curl"): one entry per
   * exchange an agent sent over Streamable HTTP, MCP headers included, the token a placeholder.
   */
  'traffic:har': { input: z.object({ session: z.string().min(1), agentSession: z.string().optional() }).strict(), output: z.object({ fileName: z.string(), har: z.record(z.string(), z.unknown()), entries: z.number() }) },
  /** A curl command that sends this exchange's request again (`$GATEHOUSE_TOKEN`, never the token). */
  'traffic:curl': { input: z.object({ session: z.string().min(1), exchange: z.string().min(1) }).strict(), output: z.object({ command: z.string() }) },
  /** The same JSON Lines as `gatehouse audit export --jsonl` (with `--decisions`, `--stderr`). */
  'audit:export': {
    input: z.object({ session: z.string().optional(), text: z.string().optional(), stream: AuditStreamSchema.optional() }).strict(),
    output: z.object({ fileName: z.string(), text: z.string(), count: z.number() }),
  },
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
  /** A launched profile's file changed on disk (or changed back): the window offers Relaunch. */
  'profile:changed': ProfileChangeSchema,
  /** A Tool console call started (no `output`) or was answered, from any window. */
  'console:call': z.object({ call: ConsoleCallSchema }),
  /**
   * Something a person should know about a launch, said once (also on the host's stderr and kept in
   * the launch summary's `notices`): e.g. the gateway's remembered port was taken, so a copied
   * Connect configuration must be copied again.
   */
  'launch:notice': z.object({ launchId: z.string(), message: z.string() }),
  /** A resource the window subscribed to changed (read it again with `resources:read`). */
  'resource:updated': z.object({ launchId: z.string(), uri: z.string() }),
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
