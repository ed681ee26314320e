// The governed gateway (issue 3; ARCHITECTURE.md "Data that flows"). One Gateway per launched
// profile aggregates the supervised servers behind one MCP surface. Each downstream connection
// (agent session) gets its own SDK `Server`; all of them share one upstream `Client` per server.
//
// Pass-through fidelity: upstream results are requested with a loose schema and handed back as
// they came (the SDK Server re-parses tools/call results through CallToolResultSchema, which
// would drop unknown fields, so tools/call is registered on the Protocol base handler).
import { EventEmitter } from 'node:events';
import type { Annotation, TapMeta } from '../protocol/traffic-tap';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ReadResourceRequestSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type LoggingLevel,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile, ToolSurface } from '../profiles/types';
import type { Supervisor } from '../supervisor/supervisor';
import type { ManagedServer } from '../supervisor/managed-server';
import type { Policy } from '../policy/engine';
import type { ApprovalBroker, AskResult } from '../approvals/broker';
import { SAMPLING_REJECTED_CODE, SAMPLING_REJECTED_MESSAGE } from '../approvals/questions';
import { actionFingerprint } from '../policy/fingerprint';
import { buildCapabilities, type ToolHold } from '../policy/capabilities';
import {
  CAPABILITIES_TOOL,
  advertisedTools,
  buildSurface,
  toAdvertised,
  type Surface,
  type SurfaceTool,
} from './tool-surface';

export const GATEWAY_NAME = 'gatehouse';
export const GATEWAY_VERSION = '0.1.0';

/** Upstream results are passed on as they came: parse nothing beyond "an object". */
const LooseResult = z.looseObject({});

/** tools/call as the Protocol base sees it: only the method is checked there (see the handler). */
const AnyCallToolRequest = z.looseObject({ method: z.literal('tools/call'), params: z.unknown().optional() });

/**
 * An upstream JSON-RPC error, passed on as the server sent it. The SDK client wraps it in an
 * McpError whose message carries an "MCP error <code>: " prefix; sent on as is, the agent would
 * see that prefix twice.
 */
function passThroughError(err: unknown): unknown {
  if (!(err instanceof McpError)) return err;
  const prefix = `MCP error ${err.code}: `;
  const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return Object.assign(new Error(message), { code: err.code, data: err.data });
}

/** The longest delay setTimeout honours (larger values fire at once). */
const MAX_TIMER_MS = 2_147_483_647;

export interface DecisionEvent {
  ts: number;
  session: string;
  agentSession?: string;
  exchange: string;
  tool: string;
  advertisedName?: string;
  server: string;
  decision: 'ALLOW' | 'APPROVAL' | 'DENY';
  /** `answered` / `declined`: a person answered a server's sampling or elicitation request (the inbox). */
  outcome: 'allowed' | 'denied' | 'approved' | 'timeout' | 'no_approver' | 'cancelled' | 'unavailable' | 'error' | 'answered' | 'declined';
  reason: string;
  rule?: string;
  fingerprint: string;
  answeredBy?: string;
  args: unknown;
}

export interface AgentSessionInfo {
  id: string;
  /** The terminal whose agent opened this session (per-terminal gateway token). */
  terminal?: string;
  transport: 'streamable-http' | 'sse' | 'stdio' | 'console';
  startedAt: number;
  client?: Implementation;
  protocolVersion?: string;
}

type Events = {
  decision: [DecisionEvent];
  'agent-session': [AgentSessionInfo & { ended?: number }];
  surface: [Surface];
};

interface SessionState {
  info: AgentSessionInfo;
  server: Server;
  subscriptions: Set<string>;
  lastActive: number;
  /** Set by logging/setLevel; unset = whatever the servers send. */
  logLevel?: LoggingLevel;
}

const LOG_SEVERITY = new Map<string, number>(LoggingLevelSchema.options.map((level, i) => [level, i]));

interface InFlight {
  agentSession: string;
  exchange: string;
  /** Canonical tool name: names the triggering call on a server→client request. */
  tool: string;
}

export interface GatewayOptions {
  session: string;
  profile: ResolvedProfile;
  policy: Policy;
  broker: ApprovalBroker;
  toolSurface?: ToolSurface;
}

export interface CallContext {
  agentSession: string;
  /** Downstream JSON-RPC id, for the exchange id. */
  requestId?: string | number;
  progressToken?: string | number;
  signal?: AbortSignal;
  /** Sends a notification to the calling session (progress). */
  notify?: (method: string, params: Record<string, unknown>) => Promise<void>;
}

function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}

function oneLine(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export class Gateway extends EventEmitter<Events> {
  readonly session: string;
  readonly profile: ResolvedProfile;
  readonly surfaceKind: ToolSurface;
  private supervisor: Supervisor | undefined;
  private readonly policy: Policy;
  private readonly broker: ApprovalBroker;
  private readonly sessions = new Map<string, SessionState>();
  private readonly inflight = new Map<string, InFlight[]>();
  /** Last tool list seen per server: kept while a server restarts so tools/list stays stable. */
  private readonly knownTools = new Map<string, Tool[]>();
  private surface: Surface;
  private surfaceKey = '';
  /** Tool and decision per downstream exchange, stamped on the response's traffic record. */
  private readonly exchangeNotes = new Map<string, Annotation>();
  private promptOwners = new Map<string, { server: string; name: string }>();
  private resourceOwners = new Map<string, string>();
  private templateOwners: Array<{ template: UriTemplate; server: string }> = [];
  /** Upstream progress token (ours, unique per call) → forwarder to the calling agent. */
  private readonly progressRoutes = new Map<string, (params: Record<string, unknown>) => void>();

  constructor(opts: GatewayOptions) {
    super();
    this.session = opts.session;
    this.profile = opts.profile;
    this.policy = opts.policy;
    this.broker = opts.broker;
    this.surfaceKind = opts.toolSurface ?? opts.profile.toolSurface;
    this.surface = this.computeSurface();
  }

  /** Wire the supervisor (created with `clientFactory: (id) => gateway.createUpstreamClient(id)`). */
  attach(supervisor: Supervisor): void {
    this.supervisor = supervisor;
    supervisor.on('tools', (serverId, tools) => {
      if (tools.length === 0 && supervisor.get(serverId)?.status().state !== 'ready') return;
      this.knownTools.set(serverId, tools);
      this.refreshSurface();
    });
    supervisor.on('status', (s) => {
      if (s.state !== 'ready') return;
      void this.refreshCatalogs(s.id);
      // A restarted server starts at its default level: give it the sessions' level again.
      const server = supervisor.get(s.id);
      if (server) void this.applyLogLevel(server);
    });
    for (const [id, server] of supervisor.servers) {
      const tools = server.tools();
      if (tools.length > 0) this.knownTools.set(id, tools);
      if (server.status().state === 'ready') void this.refreshCatalogs(id);
    }
    this.refreshSurface();
  }

  currentSurface(): Surface {
    return this.surface;
  }

  agentSessions(): AgentSessionInfo[] {
    return [...this.sessions.values()].map((s) => s.info);
  }

  // ---- tool surface -------------------------------------------------------------------------

  private capabilitiesTool(): SurfaceTool {
    const tool: Tool = {
      name: CAPABILITIES_TOOL,
      title: 'Gatehouse capabilities',
      description:
        'Lists every tool of this workspace with whether it is callable now, needs a person\'s approval, or is unavailable (server down or denied by policy), with a short summary of its constraints. Call it before planning work.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    };
    return { canonical: CAPABILITIES_TOOL, server: 'gatehouse', upstreamName: CAPABILITIES_TOOL, tool, advertised: [] };
  }

  private computeSurface(): Surface {
    const inputs = this.profile.servers
      .filter((s) => this.knownTools.has(s.id))
      .map((s) => ({ serverId: s.id, builtin: s.kind === 'builtin', tools: this.knownTools.get(s.id) ?? [] }));
    return buildSurface(inputs, { surface: this.surfaceKind, aliases: this.profile.aliases, extra: [this.capabilitiesTool()] });
  }

  private refreshSurface(): void {
    const next = this.computeSurface();
    const key = JSON.stringify(advertisedTools(next));
    this.surface = next;
    if (key === this.surfaceKey) return;
    const first = this.surfaceKey === '';
    this.surfaceKey = key;
    this.emit('surface', next);
    if (!first) for (const s of this.sessions.values()) void s.server.sendToolListChanged().catch(() => {});
  }

  // ---- downstream sessions ------------------------------------------------------------------

  /** Union of what the servers can do, plus what the gateway itself always offers. */
  capabilities(): ServerCapabilities {
    const caps: ServerCapabilities = { tools: { listChanged: true }, logging: {} };
    for (const server of this.supervisor?.servers.values() ?? []) {
      const c = server.status().capabilities;
      if (!c) continue;
      if (c.prompts) caps.prompts = { listChanged: true };
      if (c.resources) caps.resources = { listChanged: true, subscribe: caps.resources?.subscribe || !!c.resources.subscribe };
      if (c.completions) caps.completions = {};
    }
    return caps;
  }

  /** A new downstream session: an SDK Server, not yet connected to a transport. */
  createSessionServer(info: Omit<AgentSessionInfo, 'startedAt'> & { startedAt?: number }): Server {
    const agentSession = info.id;
    const capabilities = this.capabilities();
    const server = new Server(
      { name: GATEWAY_NAME, version: GATEWAY_VERSION, title: `Gatehouse · ${this.profile.name}` },
      {
        capabilities,
        instructions: `Gatehouse gateway for workspace profile '${this.profile.name}'. Call ${toAdvertised(CAPABILITIES_TOOL)} to see which tools are callable, need approval, or are unavailable.`,
      },
    );
    const state: SessionState = {
      info: { ...info, startedAt: info.startedAt ?? Date.now() },
      server,
      subscriptions: new Set(),
      lastActive: Date.now(),
    };
    this.sessions.set(agentSession, state);
    server.oninitialized = () => {
      state.info.client = server.getClientVersion();
      this.emit('agent-session', state.info);
    };
    server.onclose = () => {
      this.sessions.delete(agentSession);
      this.broker.clearSession(agentSession);
      this.emit('agent-session', { ...state.info, ended: Date.now() });
    };
    const touch = () => (state.lastActive = Date.now());

    server.setRequestHandler(ListToolsRequestSchema, async () => {
      touch();
      return { tools: advertisedTools(this.surface) };
    });
    // Registered on the Protocol base so the result is not re-parsed (see file comment). The
    // base would turn a malformed request into a ZodError, i.e. -32603; the SDK's Server maps it
    // to -32602 Invalid params, and so do we (JSON-RPC 2.0 §5.1).
    Protocol.prototype.setRequestHandler.call(server, AnyCallToolRequest, async (raw, extra) => {
      touch();
      const parsed = CallToolRequestSchema.safeParse(raw);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call request: ${z.prettifyError(parsed.error).replace(/\s+/g, ' ')}`);
      const params = parsed.data.params;
      return this.callTool(params.name, params.arguments ?? {}, {
        agentSession,
        requestId: extra.requestId,
        progressToken: params._meta?.progressToken,
        signal: extra.signal,
        notify: (method, p) => extra.sendNotification({ method, params: p } as never),
      }, params._meta);
    });
    // The SDK refuses handlers for capabilities we did not declare; declare what the servers have.
    const caps = capabilities;
    if (caps.prompts) {
      server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: await this.listPrompts() }));
      server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
        const owner = await this.promptOwner(req.params.name);
        return this.forward(owner.server, 'prompts/get', { ...req.params, name: owner.name }, extra.signal) as never;
      });
    }
    if (caps.resources) {
      server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await this.listResources() }));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: await this.listTemplates() }));
      server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
        const owner = await this.resourceOwner(req.params.uri);
        return this.forward(owner, 'resources/read', req.params, extra.signal) as never;
      });
    }
    if (caps.resources?.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
        const owner = await this.resourceOwner(req.params.uri);
        await this.forward(owner, 'resources/subscribe', req.params, extra.signal);
        state.subscriptions.add(req.params.uri);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (req, extra) => {
        state.subscriptions.delete(req.params.uri);
        const stillWanted = [...this.sessions.values()].some((s) => s.subscriptions.has(req.params.uri));
        if (!stillWanted) {
          const owner = await this.resourceOwner(req.params.uri);
          await this.forward(owner, 'resources/unsubscribe', req.params, extra.signal);
        }
        return {};
      });
    }
    if (caps.completions) {
      server.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
        const ref = req.params.ref;
        if (ref.type === 'ref/prompt') {
          const owner = await this.promptOwner(ref.name);
          return this.forward(owner.server, 'completion/complete', { ...req.params, ref: { ...ref, name: owner.name } }, extra.signal) as never;
        }
        const owner = await this.resourceOwner(ref.uri);
        return this.forward(owner, 'completion/complete', req.params, extra.signal) as never;
      });
    }
    server.setRequestHandler(SetLevelRequestSchema, async (req) => {
      // MCP server/utilities/logging: after logging/setLevel a server SHOULD send logs at that
      // level and above, per session. One upstream level serves every session, so upstream gets
      // the lowest level any session asked for, and each session is filtered to its own.
      state.logLevel = req.params.level;
      await Promise.all(this.readyServers().map((s) => this.applyLogLevel(s)));
      return {};
    });
    return server;
  }

  /**
   * The tap hook for a downstream hop: the agent's request and the gateway's response are one
   * exchange (`<agentSession>#<id>`, the same id callTool uses), carrying tool and decision.
   */
  downstreamAnnotate(agentSession: string): NonNullable<TapMeta['annotate']> {
    return (_msg, outbound, cls) => {
      if (cls.id === undefined) return undefined;
      const exchange = `${agentSession}#${cls.id}`;
      if (!outbound && cls.kind === 'request') return { exchange };
      if (outbound && (cls.kind === 'response' || cls.kind === 'error')) {
        const note = this.exchangeNotes.get(exchange);
        if (note) this.exchangeNotes.delete(exchange);
        return note ? { exchange, ...note } : undefined;
      }
      return undefined;
    };
  }

  private noteExchange(exchange: string, note: Annotation): void {
    if (this.exchangeNotes.size > 10_000) {
      const oldest = this.exchangeNotes.keys().next();
      if (!oldest.done) this.exchangeNotes.delete(oldest.value);
    }
    this.exchangeNotes.set(exchange, note);
  }

  // ---- tools/call ---------------------------------------------------------------------------

  /**
   * Resolve, decide, (ask,) forward. Used by tools/call of every downstream session, the
   * legacy envelope and the UI's tool console. Returns the upstream result as it came, or a
   * tool error (`isError: true`) for a denial or an unavailable server.
   */
  async callTool(name: string, args: Record<string, unknown>, ctx: CallContext, meta?: Record<string, unknown>): Promise<CallToolResult> {
    const target = this.surface.lookup.get(name);
    if (!target) {
      // MCP 2025-11-25 (server/tools, Error Handling): unknown tools are a protocol error.
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    const exchange = `${ctx.agentSession}#${ctx.requestId ?? `console-${randomUUID().slice(0, 8)}`}`;
    const decided = (d: DecisionEvent) => {
      if (ctx.requestId !== undefined) this.noteExchange(exchange, { tool: d.tool, decision: d.decision });
      this.emit('decision', d);
    };
    const redactedArgs = this.profile.redactor.redactJson(args);
    const fingerprint = actionFingerprint(target.canonical, args);
    const base = {
      ts: Date.now(),
      session: this.session,
      agentSession: ctx.agentSession,
      exchange,
      tool: target.canonical,
      advertisedName: name,
      server: target.server,
      fingerprint,
      args: redactedArgs,
    };
    if (target.canonical === CAPABILITIES_TOOL) {
      decided({ ...base, decision: 'ALLOW', outcome: 'allowed', reason: 'the capabilities tool is always callable' });
      const report = this.capabilitiesReport();
      return { content: [{ type: 'text', text: JSON.stringify(report, null, 2) }], structuredContent: report as never };
    }

    let verdict: ReturnType<Policy['decide']>;
    try {
      verdict = this.policy.decide({ tool: target.canonical, server: target.server, annotations: target.tool.annotations, args });
    } catch (err) {
      verdict = { decision: 'DENY', reason: `policy error: ${(err as Error).message}` };
    }
    if (verdict.decision === 'DENY') {
      decided({ ...base, decision: 'DENY', outcome: 'denied', reason: verdict.reason, rule: verdict.rule });
      return textResult(`DENY: ${oneLine(verdict.reason)}`, true);
    }
    let answeredBy: string | undefined;
    let outcome: DecisionEvent['outcome'] = 'allowed';
    if (verdict.decision === 'APPROVAL') {
      const answer = await this.broker.request(
        {
          session: this.session,
          agentSession: ctx.agentSession,
          exchange,
          tool: target.canonical,
          advertisedName: name,
          server: target.server,
          args: redactedArgs,
          annotations: target.tool.annotations,
          reason: verdict.reason,
          rule: verdict.rule,
          kind: 'tool',
          fingerprint,
        },
        { timeoutMs: this.profile.policy.approvalTimeoutS * 1000, signal: ctx.signal },
      );
      answeredBy = answer.by;
      if (!answer.approved) {
        const how = answer.how === 'timeout' || answer.how === 'no_approver' || answer.how === 'cancelled' ? answer.how : 'denied';
        decided({ ...base, decision: 'APPROVAL', outcome: how, reason: answer.reason, rule: verdict.rule, answeredBy });
        return textResult(`DENY: ${oneLine(answer.reason)}`, true);
      }
      outcome = 'approved';
    }
    const upstream = this.supervisor?.get(target.server);
    const client = upstream?.client;
    if (!upstream || !client) {
      const reason = this.unavailableReason(target.server, upstream);
      decided({ ...base, decision: verdict.decision, outcome: 'unavailable', reason, rule: verdict.rule, answeredBy });
      return textResult(reason, true);
    }
    decided({ ...base, decision: verdict.decision, outcome, reason: verdict.reason, rule: verdict.rule, answeredBy });

    const params: Record<string, unknown> = { name: target.upstreamName, arguments: args };
    const upstreamMeta: Record<string, unknown> = meta ? { ...meta } : {};
    delete upstreamMeta.progressToken; // the agent's token is mapped to one of ours (below)
    const timeoutMs = upstream.spec.requestTimeoutMs;
    const options: RequestOptions = { signal: ctx.signal, timeout: timeoutMs };
    let progress: { token: string; timer?: ReturnType<typeof setTimeout>; sending: Set<Promise<void>> } | undefined;
    if (ctx.progressToken !== undefined && ctx.notify) {
      // Progress is mapped here, not with the SDK's `onprogress`: the SDK client handles a
      // response synchronously but defers notification handlers to a microtask, so the last
      // progress notification, arriving in the same read as the result, finds its handler gone
      // and is dropped (seen with server-everything's long-running tool). Our handler
      // (createUpstreamClient) runs before the result reaches the agent, so the agent gets every
      // notification and none after the response (MCP basic/utilities/progress: notifications
      // MUST only reference tokens of operations in progress).
      const downstreamToken = ctx.progressToken;
      const notify = ctx.notify;
      const controller = new AbortController();
      const token = `gatehouse-progress-${randomUUID()}`;
      progress = { token, sending: new Set() };
      const p = progress;
      // The request timeout restarts on each progress notification (as the SDK's resetTimeoutOnProgress).
      const arm = () => {
        clearTimeout(p.timer);
        p.timer = setTimeout(
          () => controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs })),
          timeoutMs,
        );
      };
      arm();
      if (ctx.signal) {
        if (ctx.signal.aborted) controller.abort(ctx.signal.reason);
        else ctx.signal.addEventListener('abort', () => controller.abort(ctx.signal!.reason), { once: true });
      }
      options.signal = controller.signal;
      options.timeout = MAX_TIMER_MS; // ours (arm) is the one that counts
      upstreamMeta.progressToken = token;
      this.progressRoutes.set(token, (n) => {
        arm();
        const sent = notify('notifications/progress', { ...n, progressToken: downstreamToken }).catch(() => {});
        p.sending.add(sent);
        void sent.then(() => p.sending.delete(sent));
      });
    }
    if (Object.keys(upstreamMeta).length > 0) params._meta = upstreamMeta;
    const flight: InFlight = { agentSession: ctx.agentSession, exchange, tool: target.canonical };
    this.pushInFlight(target.server, flight);
    try {
      const result = await upstream.requestAnnotated(
        { method: 'tools/call', params },
        LooseResult,
        options,
        { exchange, agentSession: ctx.agentSession, tool: target.canonical, decision: verdict.decision },
      );
      // Progress already on its way goes out before the result does.
      if (progress && progress.sending.size > 0) await Promise.all(progress.sending);
      return result as CallToolResult;
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        const status = upstream.status();
        return textResult(`server '${target.server}' went away during the call: ${status.state} (${status.reason})`, true);
      }
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        return textResult(`server '${target.server}' did not answer within ${timeoutMs / 1000}s`, true);
      }
      // A JSON-RPC error from the server is passed on as one.
      throw passThroughError(err);
    } finally {
      this.popInFlight(target.server, flight);
      if (progress) {
        clearTimeout(progress.timer);
        this.progressRoutes.delete(progress.token);
      }
    }
  }

  private unavailableReason(serverId: string, upstream: ManagedServer | undefined): string {
    if (!upstream) return `server '${serverId}' is not part of this launch`;
    const s = upstream.status();
    return `server '${serverId}' is unavailable: ${s.state} (${s.reason})`;
  }

  capabilitiesReport() {
    const tools = this.surface.tools
      .filter((t) => t.canonical !== CAPABILITIES_TOOL)
      .map((t) => {
        const upstream = this.supervisor?.get(t.server);
        const holds: ToolHold[] = [];
        if (!upstream?.client) holds.push({ code: 'server_unavailable', reason: this.unavailableReason(t.server, upstream) });
        return { canonical: t.canonical, advertised: t.advertised, server: t.server, title: t.tool.title, annotations: t.tool.annotations, holds };
      });
    const holds: ToolHold[] = [];
    const noApprover = this.broker.approvalUnavailable();
    if (noApprover !== undefined) holds.push({ code: 'no_approver', reason: noApprover });
    return buildCapabilities({ tools, policy: this.policy, policySpec: this.profile.policy, holds });
  }

  /** Sets an upstream server's log level to the lowest any session asked for (none asked: nothing to set). */
  private async applyLogLevel(server: ManagedServer): Promise<void> {
    const client = server.client;
    if (!client?.getServerCapabilities()?.logging) return;
    let lowest: LoggingLevel | undefined;
    for (const s of this.sessions.values()) {
      if (s.logLevel && (!lowest || (LOG_SEVERITY.get(s.logLevel) ?? 0) < (LOG_SEVERITY.get(lowest) ?? 0))) lowest = s.logLevel;
    }
    if (!lowest) return;
    await client.request({ method: 'logging/setLevel', params: { level: lowest } }, LooseResult, { timeout: server.spec.requestTimeoutMs }).catch(() => undefined);
  }

  // ---- prompts and resources ----------------------------------------------------------------

  private readyServers(): ManagedServer[] {
    return [...(this.supervisor?.servers.values() ?? [])].filter((s) => s.client);
  }

  private async forward(serverId: string, method: string, params: unknown, signal?: AbortSignal): Promise<unknown> {
    const upstream = this.supervisor?.get(serverId);
    const client = upstream?.client;
    if (!upstream || !client) throw new McpError(ErrorCode.InternalError, this.unavailableReason(serverId, upstream));
    try {
      return await client.request({ method, params: params as Record<string, unknown> }, LooseResult, {
        signal,
        timeout: upstream.spec.requestTimeoutMs,
      });
    } catch (err) {
      throw passThroughError(err);
    }
  }

  private async listAll<T>(server: ManagedServer, method: string, key: string): Promise<T[]> {
    const client = server.client;
    if (!client) return [];
    const out: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = (await client.request({ method, params: cursor ? { cursor } : {} }, LooseResult, { timeout: server.spec.requestTimeoutMs })) as Record<string, unknown>;
      out.push(...((res[key] as T[]) ?? []));
      cursor = typeof res.nextCursor === 'string' ? res.nextCursor : undefined;
      if (!cursor) break;
    }
    return out;
  }

  private async refreshCatalogs(serverId: string): Promise<void> {
    const server = this.supervisor?.get(serverId);
    if (!server?.client) return;
    const caps = server.client.getServerCapabilities();
    try {
      if (caps?.resources) {
        const resources = await this.listAll<Resource>(server, 'resources/list', 'resources');
        for (const r of resources) this.resourceOwners.set(r.uri, serverId);
        const templates = await this.listAll<ResourceTemplate>(server, 'resources/templates/list', 'resourceTemplates');
        this.templateOwners = this.templateOwners.filter((t) => t.server !== serverId);
        for (const t of templates) this.templateOwners.push({ template: new UriTemplate(t.uriTemplate), server: serverId });
      }
    } catch {}
  }

  private async listPrompts(): Promise<Prompt[]> {
    const perServer = await Promise.all(
      this.readyServers()
        .filter((s) => s.client?.getServerCapabilities()?.prompts)
        .map(async (s) => ({ id: s.id, prompts: await this.listAll<Prompt>(s, 'prompts/list', 'prompts').catch(() => []) })),
    );
    // Same rule as tools: a prompt keeps its own name when unique, else `<server>_<name>`.
    const counts = new Map<string, number>();
    for (const p of perServer) for (const prompt of p.prompts) counts.set(prompt.name, (counts.get(prompt.name) ?? 0) + 1);
    const owners = new Map<string, { server: string; name: string }>();
    const out: Prompt[] = [];
    for (const p of perServer) {
      for (const prompt of p.prompts) {
        const name = counts.get(prompt.name) === 1 ? prompt.name : toAdvertised(`${p.id}.${prompt.name}`);
        owners.set(name, { server: p.id, name: prompt.name });
        out.push({ ...prompt, name });
      }
    }
    this.promptOwners = owners;
    return out;
  }

  /**
   * The server (and its own name) of an advertised prompt. A client may get a prompt without
   * listing first (it knows the name from an earlier session, or another session listed): the
   * prompt map is built on demand, then refreshed once before a name is called unknown.
   */
  private async promptOwner(name: string): Promise<{ server: string; name: string }> {
    const owner = this.promptOwners.get(name) ?? (await this.listPrompts(), this.promptOwners.get(name));
    if (!owner) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return owner;
  }

  /** Every page of `method` from each ready server that offers resources, tagged with its server. */
  private async fromResourceServers<T>(method: string, key: string): Promise<Array<{ id: string; items: T[] }>> {
    return Promise.all(
      this.readyServers()
        .filter((s) => s.client?.getServerCapabilities()?.resources)
        .map(async (s) => ({ id: s.id, items: await this.listAll<T>(s, method, key).catch(() => [] as T[]) })),
    );
  }

  private async listResources(): Promise<Resource[]> {
    const out: Resource[] = [];
    for (const p of await this.fromResourceServers<Resource>('resources/list', 'resources')) {
      for (const r of p.items) {
        this.resourceOwners.set(r.uri, p.id);
        out.push(r);
      }
    }
    return out;
  }

  private async listTemplates(): Promise<ResourceTemplate[]> {
    const out: ResourceTemplate[] = [];
    const owners: Array<{ template: UriTemplate; server: string }> = [];
    for (const p of await this.fromResourceServers<ResourceTemplate>('resources/templates/list', 'resourceTemplates')) {
      for (const t of p.items) {
        owners.push({ template: new UriTemplate(t.uriTemplate), server: p.id });
        out.push(t);
      }
    }
    this.templateOwners = owners;
    return out;
  }

  /** Resources route by URI: a listed resource, then a matching template, then the only resource server. */
  private async resourceOwner(uri: string): Promise<string> {
    const known = this.resourceOwners.get(uri);
    if (known) return known;
    for (const t of this.templateOwners) if (t.template.match(uri)) return t.server;
    const withResources = this.profile.servers.filter((s) => this.supervisor?.get(s.id)?.status().capabilities?.resources);
    if (withResources.length === 1) return withResources[0]!.id;
    // Not cached yet (or changed): refresh once, then give up with a clear error.
    await this.listResources();
    await this.listTemplates();
    const again = this.resourceOwners.get(uri) ?? this.templateOwners.find((t) => t.template.match(uri))?.server;
    if (again) return again;
    throw new McpError(ErrorCode.InvalidParams, `Resource not found: no server of this profile offers ${uri}`);
  }

  // ---- upstream clients and server→client requests -----------------------------------------

  private pushInFlight(serverId: string, flight: InFlight): void {
    const list = this.inflight.get(serverId) ?? [];
    list.push(flight);
    this.inflight.set(serverId, list);
  }

  private popInFlight(serverId: string, flight: InFlight): void {
    const list = this.inflight.get(serverId);
    if (!list) return;
    const i = list.indexOf(flight);
    if (i >= 0) list.splice(i, 1);
  }

  /**
   * Which downstream session a server→client request belongs to. stdio carries no link between
   * a server's request and the call that caused it, so: the most recent call in flight to that
   * server; else the session that most recently used the gateway. Documented in docs/gateway.md.
   */
  private routeFor(serverId: string, capability: keyof ClientCapabilities): SessionState | undefined {
    const flights = this.inflight.get(serverId) ?? [];
    for (let i = flights.length - 1; i >= 0; i--) {
      const s = this.sessions.get(flights[i]!.agentSession);
      if (s) return s.server.getClientCapabilities()?.[capability] ? s : undefined;
    }
    const recent = [...this.sessions.values()].sort((a, b) => b.lastActive - a.lastActive);
    return recent.find((s) => s.server.getClientCapabilities()?.[capability]);
  }

  /**
   * A server→client request (sampling, elicitation) that no connected client can answer goes
   * to a person through the approvals inbox, naming the server and the call that caused it.
   * The decision is audited like a tool's: outcome answered / declined / timeout / cancelled /
   * no_approver.
   */
  private async askPerson(
    kind: 'sampling' | 'elicitation',
    serverId: string,
    flight: InFlight | undefined,
    base: Omit<DecisionEvent, 'decision' | 'outcome' | 'reason'>,
    verdict: { decision: DecisionEvent['decision']; reason: string; rule?: string },
    params: unknown,
    signal: AbortSignal,
  ): Promise<AskResult> {
    const during = flight ? ` during ${flight.tool} (${flight.exchange})` : '';
    const reason =
      kind === 'sampling'
        ? `server '${serverId}' asks for an LLM completion${during}, and no connected agent can sample: write the reply or decline`
        : `server '${serverId}' asks for input${during}, and no connected agent can ask its user: answer or decline`;
    const res = await this.broker.ask(
      {
        session: this.session,
        agentSession: flight?.agentSession,
        exchange: base.exchange,
        tool: base.tool,
        server: serverId,
        args: base.args,
        // What a person sees: the request as sent, with the profile's secrets redacted.
        question: this.profile.redactor.redactJson(params),
        reason,
        rule: verdict.rule,
        kind,
        triggerTool: flight?.tool,
        fingerprint: base.fingerprint,
      },
      { timeoutMs: this.profile.policy.approvalTimeoutS * 1000, signal },
    );
    this.emit('decision', {
      ...base,
      ts: Date.now(),
      decision: verdict.decision,
      outcome: res.answered ? 'answered' : res.how,
      reason: res.answered ? `answered by ${res.by}` : res.reason,
      rule: verdict.rule,
      answeredBy: res.by,
    });
    return res;
  }

  /** The SDK client for one upstream server run, declaring what the gateway can route back. */
  createUpstreamClient(serverId: string): Client {
    const client = new Client(
      { name: GATEWAY_NAME, version: GATEWAY_VERSION },
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
      const decision = this.policy.decideSampling(serverId);
      const flight = (this.inflight.get(serverId) ?? []).at(-1);
      const exchange = flight?.exchange ?? `${serverId}#sampling-${randomUUID().slice(0, 8)}`;
      const base = {
        ts: Date.now(),
        session: this.session,
        agentSession: flight?.agentSession,
        exchange,
        tool: 'sampling/createMessage',
        server: serverId,
        fingerprint: actionFingerprint('sampling/createMessage', req.params),
        args: this.profile.redactor.redactJson(req.params),
      };
      if (decision.decision === 'DENY') {
        this.emit('decision', { ...base, decision: 'DENY', outcome: 'denied', reason: decision.reason, rule: decision.rule });
        throw new McpError(ErrorCode.InvalidRequest, `DENY: ${decision.reason}`);
      }
      if (!this.routeFor(serverId, 'sampling')) {
        // No connected client can sample: a person writes the reply (or declines) in the
        // approvals inbox. Their answer is the approval an APPROVAL verdict asks for.
        const res = await this.askPerson('sampling', serverId, flight, base, decision, req.params, extra.signal);
        if (res.answered) return res.content as never;
        if (res.how === 'no_approver') {
          throw new McpError(ErrorCode.InvalidRequest, `no connected agent session can answer sampling/createMessage from server '${serverId}', and ${res.reason}`);
        }
        // MCP 2025-11-25 client/sampling, Error Handling: "User rejected sampling request: -1".
        // A plain error with a code, so the message goes out without the McpError prefix.
        throw Object.assign(new Error(SAMPLING_REJECTED_MESSAGE), { code: SAMPLING_REJECTED_CODE, data: { reason: res.reason } });
      }
      if (decision.decision === 'APPROVAL') {
        const answer = await this.broker.request(
          { session: this.session, agentSession: flight?.agentSession, exchange, tool: 'sampling/createMessage', server: serverId, args: base.args, reason: decision.reason, rule: decision.rule, kind: 'sampling' } as never,
          { timeoutMs: this.profile.policy.approvalTimeoutS * 1000, signal: extra.signal },
        );
        if (!answer.approved) {
          this.emit('decision', { ...base, decision: 'APPROVAL', outcome: answer.how === 'timeout' ? 'timeout' : 'denied', reason: answer.reason, answeredBy: answer.by });
          throw new McpError(ErrorCode.InvalidRequest, `DENY: ${answer.reason}`);
        }
      }
      this.emit('decision', { ...base, decision: decision.decision, outcome: decision.decision === 'ALLOW' ? 'allowed' : 'approved', reason: decision.reason, rule: decision.rule });
      const target = this.routeFor(serverId, 'sampling');
      if (!target) throw new McpError(ErrorCode.InvalidRequest, `no connected agent session can answer sampling/createMessage from server '${serverId}'`);
      return target.server.request({ method: 'sampling/createMessage', params: req.params }, LooseResult, { signal: extra.signal }) as never;
    });
    client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
      const target = this.routeFor(serverId, 'elicitation');
      if (target) return target.server.request({ method: 'elicitation/create', params: req.params }, LooseResult, { signal: extra.signal }) as never;
      // Nobody downstream can ask the user: a person answers in the approvals inbox. Declined,
      // unanswered or nobody to ask: decline (the spec's answer for "not now").
      const flight = (this.inflight.get(serverId) ?? []).at(-1);
      const base = {
        ts: Date.now(),
        session: this.session,
        agentSession: flight?.agentSession,
        exchange: flight?.exchange ?? `${serverId}#elicitation-${randomUUID().slice(0, 8)}`,
        tool: 'elicitation/create',
        server: serverId,
        fingerprint: actionFingerprint('elicitation/create', req.params),
        args: this.profile.redactor.redactJson(req.params),
      };
      const res = await this.askPerson('elicitation', serverId, flight, base, { decision: 'APPROVAL', reason: 'elicitation needs a person' }, req.params, extra.signal);
      if (res.answered) return res.content as never;
      return { action: res.how === 'cancelled' ? 'cancel' : 'decline' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async (_req, extra) => {
      const target = this.routeFor(serverId, 'roots');
      if (target) return target.server.request({ method: 'roots/list' }, LooseResult, { signal: extra.signal }) as never;
      // No agent roots: the workspace is the one root this profile confines servers to.
      return { roots: [{ uri: `file://${this.profile.workspace}`, name: `${this.profile.name} workspace` }] };
    });
    // Replaces the SDK's own progress dispatch on this client: tool calls use gateway tokens
    // (see callTool); no other upstream request asks for progress.
    client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      const { progressToken, ...rest } = n.params;
      this.progressRoutes.get(String(progressToken))?.(rest);
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const params = { ...n.params, logger: n.params.logger ? `${serverId}/${n.params.logger}` : serverId };
      const severity = LOG_SEVERITY.get(n.params.level) ?? 0;
      for (const s of this.sessions.values()) {
        if (s.logLevel && severity < (LOG_SEVERITY.get(s.logLevel) ?? 0)) continue;
        void s.server.sendLoggingMessage(params as never).catch(() => {});
      }
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      for (const s of this.sessions.values()) {
        if (s.subscriptions.has(n.params.uri)) void s.server.sendResourceUpdated(n.params).catch(() => {});
      }
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      void this.refreshCatalogs(serverId);
      for (const s of this.sessions.values()) void s.server.sendResourceListChanged().catch(() => {});
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      for (const s of this.sessions.values()) void s.server.sendPromptListChanged().catch(() => {});
    });
    return client;
  }

  /** Ends every downstream session (their transports close). */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.server.close().catch(() => {})));
    this.sessions.clear();
  }

}
