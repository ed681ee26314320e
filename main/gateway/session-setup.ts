// Downstream session setup: one SDK `Server` per agent session, on an exchange channel. The SDK
// Server keeps the lifecycle (initialize, ping, the list requests, logging/setLevel,
// subscriptions); the requests the gateway forwards (tools/call, prompts/get, resources/read,
// completion/complete) are taken at the channel as they arrive, each opening its exchange
// there, and answered by the call pipeline. The agent's notifications/cancelled for such a
// request cancels its exchange.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  LATEST_PROTOCOL_VERSION,
  LoggingLevelSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCRequest,
  type LoggingLevel,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalBroker } from '../approvals/broker';
import { ExchangeChannel, type ChannelRoutes, type OutboundScreen } from '../protocol/exchange-channel';
import type { TrafficTap } from '../protocol/traffic-tap';
import type { ResolvedProfile } from '../profiles/types';
import type { Redactor } from '../secrets/redactor';
import type { ManagedServer } from '../supervisor/managed-server';
import type { CallPipeline } from './call-pipeline';
import type { Catalog } from './catalog';
import { LooseResult } from './catalog';
import { toRpcError } from './errors';
import { CancelledError, type Exchange, type ExchangeTable } from './exchanges';
import type { ForwardRunner, GatewayEvents, ProgressSink, RoutedSession, ServerDirectory, SessionRegistry } from './ports';
import { ConsoleRequests } from './console-requests';
import { GATEWAY_NAME, GATEWAY_VERSION } from './server-requests';
import { CAPABILITIES_TOOL, advertisedTools } from './tool-surface';
import { toAdvertised } from '../protocol/tool-names';
import { isNewEraRequest, isNewEraVersion } from './era';
import { NewEraHandler } from './new-era-handler';
import { agentNaming, labelledTap, type AgentLabel } from './agent-label';

export interface AgentSessionInfo {
  id: string;
  /** The terminal whose agent opened this session (per-terminal gateway token). */
  terminal?: string;
  /** The agent a minted per-agent token names (agent-tokens.ts); policy `agents:` matches it. */
  agent?: string;
  transport: 'streamable-http' | 'sse' | 'stdio' | 'console';
  startedAt: number;
  client?: Implementation;
  protocolVersion?: string;
}

interface SessionState extends RoutedSession {
  info: AgentSessionInfo;
  subscriptions: Set<string>;
  lastActive: number;
  /** Set by logging/setLevel; unset = whatever the servers send. */
  logLevel?: LoggingLevel;
  /** Run when the session ends (new-era listen streams on this session). */
  closers: Array<() => void>;
  /**
   * The client sent notifications/initialized. Before that nothing is broadcast to it: a
   * JSON-RPC client must not get list_changed or a server's log line before its initialize is
   * answered (lifecycle, MCP 2025-11-25 "Initialization": only pings and logging after the
   * answer, and only once the client said initialized for anything else).
   */
  initialized: boolean;
  /** The client's name and version as records and exchanges carry them (agent-label.ts). */
  label: AgentLabel;
}

const LOG_SEVERITY = new Map<string, number>(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** Downstream methods the gateway answers itself, by the capability that offers them. */
const FORWARDED: Record<string, keyof ServerCapabilities> = {
  'tools/call': 'tools',
  'prompts/get': 'prompts',
  'resources/read': 'resources',
  'completion/complete': 'completions',
};

export interface SessionDeps {
  session: string;
  profile: ResolvedProfile;
  table: ExchangeTable;
  pipeline: CallPipeline;
  catalog: Catalog;
  broker: ApprovalBroker;
  /** Capabilities, the start-up barrier, lifecycle requests (subscriptions) to the servers (Upstreams). */
  servers: ServerDirectory;
  /** Where sessions opening, being named and ending are told (the Gateway). */
  events: Pick<GatewayEvents, 'sessionEvent'>;
  /** How long a new-era call held for input waits for the agent's retry (input-bridge.ts). */
  inputHoldMs?: number;
  /** What every message toward the agent passes (main/data/outbound-screen.ts); without it, the redactor only. */
  screen?: OutboundScreen;
}

export interface OpenSessionOptions {
  tap: TrafficTap;
  redactor?: Redactor;
  /** The transport is a framed stream reporting through `channel.observer` (stdio). */
  observed?: boolean;
}

export interface OpenedSession {
  agentSession: string;
  server: Server;
  channel: ExchangeChannel;
  /** Puts the channel on its transport and connects the SDK Server to it. */
  connect(inner: Transport): Promise<void>;
}

export class Sessions implements SessionRegistry, ForwardRunner {
  private readonly sessions = new Map<string, SessionState>();
  /** Stateless MCP 2026-07-28 requests, on any session's channel and on HTTP without one. */
  readonly newEra: NewEraHandler;
  /** The window's own prompts and resources requests, and its resource subscriptions next to the sessions'. */
  readonly console: ConsoleRequests;

  constructor(private readonly deps: SessionDeps) {
    this.newEra = new NewEraHandler({
      session: deps.session,
      profileName: deps.profile.name,
      table: deps.table,
      catalog: deps.catalog,
      servers: deps.servers,
      forward: this,
      events: deps.events,
      holdMs: deps.inputHoldMs,
      redactor: deps.profile.redactor,
    });
    this.console = new ConsoleRequests({ session: deps.session, table: deps.table, catalog: deps.catalog, sessions: this, redactor: deps.profile.redactor, servers: deps.servers });
  }

  list(): AgentSessionInfo[] {
    return [...this.sessions.values()].map((s) => s.info);
  }

  all(): Iterable<{ server: Server }> {
    return this.sessions.values();
  }

  /** The sessions a broadcast may reach: initialized ones only. */
  private *ready(): Iterable<SessionState> {
    for (const s of this.sessions.values()) if (s.initialized) yield s;
  }

  /** A new downstream session: its SDK Server and channel, not yet on a transport. */
  open(info: Omit<AgentSessionInfo, 'startedAt'> & { startedAt?: number }, opts: OpenSessionOptions): OpenedSession {
    const agentSession = info.id;
    const capabilities = this.deps.servers.capabilities();
    const server = new Server(
      { name: GATEWAY_NAME, version: GATEWAY_VERSION, title: `Gatehouse · ${this.deps.profile.name}` },
      {
        capabilities,
        instructions: `Gatehouse gateway for workspace profile '${this.deps.profile.name}'. Call ${toAdvertised(CAPABILITIES_TOOL)} to see which tools are callable, need approval, or are unavailable.`,
      },
    );
    const channel: ExchangeChannel = new ExchangeChannel({
      tap: labelledTap(opts.tap, () => state.label, this.deps.profile.redactor, () => state.info.agent),
      meta: { session: this.deps.session, agentSession, inbound: 'agent_to_gateway', outbound: 'gateway_to_agent' },
      redactor: opts.redactor,
      // Every message this session's agent gets passes the profile's redactor (docs/security.md, "Secrets").
      redactOutbound: this.deps.profile.redactor,
      // ... and the data screen: credentials masked in errors, notifications, requests and lists too (docs/data.md).
      ...(this.deps.screen ? { screenOutbound: this.deps.screen } : {}),
      observed: opts.observed,
      routes: this.routes(agentSession, capabilities, () => channel, () => state),
    });
    const state: SessionState = {
      id: agentSession,
      info: { ...info, startedAt: info.startedAt ?? Date.now() },
      server,
      channel,
      subscriptions: new Set(),
      lastActive: Date.now(),
      closers: [],
      initialized: false,
      label: agentNaming(info, this.deps.profile.redactor),
    };
    this.sessions.set(agentSession, state);
    server.oninitialized = () => {
      state.initialized = true;
      state.info.client = server.getClientVersion() ?? state.info.client;
      state.label = agentNaming(state.info, this.deps.profile.redactor);
      this.deps.events.sessionEvent(state.info);
    };
    server.onclose = () => {
      this.sessions.delete(agentSession);
      for (const fn of state.closers.splice(0)) fn();
      this.deps.broker.clearSession(agentSession);
      // Calls still in flight for a session that is gone are cancelled (upstream is told).
      for (const ex of this.deps.table.openExchanges()) if (ex.agentSession === agentSession && ex.kind === 'call') this.deps.table.cancel(ex, 'the agent session closed');
      this.deps.events.sessionEvent({ ...state.info, ended: Date.now() });
    };
    this.lifecycleHandlers(state, capabilities);
    return {
      agentSession,
      server,
      channel,
      connect: async (inner) => {
        channel.attach(inner);
        await server.connect(channel);
      },
    };
  }

  /** What the session's channel takes off the wire: forwarded requests and cancellations of them. */
  private routes(agentSession: string, capabilities: ServerCapabilities, channel: () => ExchangeChannel, state: () => SessionState): ChannelRoutes {
    const { table } = this.deps;
    return {
      ledger: table,
      request: (msg) => {
        // Per request, as MCP 2026-07-28 says: one carrying its version in _meta is new-era (stdio, or an HTTP session's stream).
        if (isNewEraRequest(msg)) {
          return this.newEra.route(msg, channel(), { caller: agentSession, agentSession, ...(state().info.agent !== undefined ? { agent: state().info.agent } : {}), onClosed: (fn) => state().closers.push(fn) });
        }
        if (msg.method === 'initialize') {
          // The version the SDK Server will answer with (it keeps it to itself): the requested one when supported, else its latest.
          const asked = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
          state().info.protocolVersion = typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
          // Known from here on, before the SDK answers: the initialize's own answer is labelled too.
          const client = (msg.params as { clientInfo?: Implementation } | undefined)?.clientInfo;
          if (client) state().label = agentNaming({ agent: state().info.agent, client }, this.deps.profile.redactor);
          return undefined;
        }
        const capability = FORWARDED[msg.method];
        if (!capability || !capabilities[capability]) return undefined;
        const era = state().info.protocolVersion;
        const ex = table.openExchange({ kind: 'call', session: this.deps.session, agentSession, downstreamId: msg.id, method: msg.method, ...(era ? { agentEra: era } : {}), ...state().label });
        return { stamp: ex, handle: (m) => void this.serve(agentSession, ex, m) };
      },
      notification: (msg) => {
        if (msg.method !== 'notifications/cancelled') return undefined;
        const params = msg.params as { requestId?: string | number; reason?: string } | undefined;
        if (params?.requestId === undefined) return undefined;
        const ex = table.byDownstream(agentSession, params.requestId);
        if (!ex) return undefined;
        return { stamp: ex, consume: true, handle: () => table.cancel(ex, params.reason ?? 'cancelled by the client') };
      },
    };
  }

  /** Runs one forwarded request and sends its one answer (none when the agent cancelled it). */
  private async serve(agentSession: string, ex: Exchange, msg: JSONRPCRequest): Promise<void> {
    const state = this.sessions.get(agentSession);
    if (!state) return;
    state.lastActive = Date.now();
    const params = (msg.params ?? {}) as Record<string, unknown>;
    try {
      const result = await this.runForwarded(ex, msg.method, params, (token) => ({
        token,
        send: (p) => state.channel.notify('notifications/progress', p, { stamp: ex, relatedRequestId: msg.id }),
      }));
      await state.channel.respond(msg.id, { result }).catch(() => {});
    } catch (err) {
      if (err instanceof CancelledError) {
        this.deps.table.close(ex, 'cancelled');
        return;
      }
      const error = toRpcError(err);
      this.deps.table.close(ex, 'error', { error: error.message });
      await state.channel.respond(msg.id, { error }).catch(() => {});
    }
  }

  /** One forwarded request through the call pipeline, for either era; `progress` says where its progress goes. */
  runForwarded(ex: Exchange, method: string, params: Record<string, unknown>, progress: (token: string | number) => ProgressSink): Promise<Record<string, unknown>> {
    return this.run(ex, method, params, progress);
  }

  private async run(ex: Exchange, method: string, params: Record<string, unknown>, progress: (token: string | number) => ProgressSink): Promise<Record<string, unknown>> {
    const { pipeline, catalog } = this.deps;
    switch (method) {
      case 'tools/call':
        return (await pipeline.toolsCall(ex, params, progress)) as Record<string, unknown>;
      case 'prompts/get': {
        const owner = await catalog.promptOwner(String(params.name));
        this.deps.table.update(ex, { tool: `${owner.server}.${owner.name}` });
        return pipeline.forward(ex, owner.server, method, { ...params, name: owner.name });
      }
      case 'resources/read': {
        const owner = await catalog.resourceOwner(String(params.uri));
        if (ex.tool === undefined) this.deps.table.update(ex, { tool: String(params.uri) });
        return pipeline.forward(ex, owner, method, params);
      }
      case 'completion/complete': {
        const ref = (params.ref ?? {}) as { type?: string; name?: string; uri?: string };
        if (ref.type === 'ref/prompt') {
          const owner = await catalog.promptOwner(String(ref.name));
          return pipeline.forward(ex, owner.server, method, { ...params, ref: { ...ref, name: owner.name } });
        }
        const owner = await catalog.resourceOwner(String(ref.uri));
        return pipeline.forward(ex, owner, method, params);
      }
    }
    throw new Error(`not a forwarded method: ${method}`);
  }

  private lifecycleHandlers(state: SessionState, caps: ServerCapabilities): void {
    const { server } = state;
    const { catalog } = this.deps;
    const touch = () => (state.lastActive = Date.now());
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      touch();
      await this.deps.servers.firstStarts();
      return { tools: advertisedTools(catalog.currentSurface()) };
    });
    // The SDK refuses handlers for capabilities we did not declare; declare what the servers have.
    const started = () => this.deps.servers.firstStarts();
    if (caps.prompts) server.setRequestHandler(ListPromptsRequestSchema, async () => (await started(), { prompts: await catalog.listPrompts() }));
    if (caps.resources) {
      server.setRequestHandler(ListResourcesRequestSchema, async () => (await started(), { resources: await catalog.listResources() }));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => (await started(), { resourceTemplates: await catalog.listTemplates() }));
    }
    if (caps.resources?.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
        const owner = await catalog.resourceOwner(req.params.uri);
        await this.deps.servers.lifecycleRequest(owner, 'resources/subscribe', req.params, extra.signal);
        state.subscriptions.add(req.params.uri);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (req, extra) => {
        state.subscriptions.delete(req.params.uri);
        const stillWanted = this.subscribedBySession(req.params.uri) || this.console.wants(req.params.uri);
        if (!stillWanted) {
          const owner = await catalog.resourceOwner(req.params.uri);
          await this.deps.servers.lifecycleRequest(owner, 'resources/unsubscribe', req.params, extra.signal);
        }
        return {};
      });
    }
    server.setRequestHandler(SetLevelRequestSchema, async (req) => {
      // MCP server/utilities/logging: after logging/setLevel a server SHOULD send logs at that
      // level and above, per session. One upstream level serves every session, so upstream gets
      // the lowest level any session asked for, and each session is filtered to its own.
      state.logLevel = req.params.level;
      await Promise.all(catalog.readyServers().map((s) => this.applyLogLevel(s)));
      return {};
    });
  }

  /** Sets an upstream server's log level to the lowest any session asked for (none asked: nothing to set). */
  async applyLogLevel(server: ManagedServer): Promise<void> {
    const client = server.upstreamClient;
    if (!client?.getServerCapabilities()?.logging && !client?.setLogLevel) return;
    let lowest: LoggingLevel | undefined;
    for (const s of this.sessions.values()) {
      if (s.logLevel && (!lowest || (LOG_SEVERITY.get(s.logLevel) ?? 0) < (LOG_SEVERITY.get(lowest) ?? 0))) lowest = s.logLevel;
    }
    if (!lowest) return;
    // A new-era server has no logging/setLevel: the level goes in each call's `_meta`.
    if (client.setLogLevel) return client.setLogLevel(lowest);
    await client.request({ method: 'logging/setLevel', params: { level: lowest } }, LooseResult, { timeout: server.spec.requestTimeoutMs }).catch(() => undefined);
  }

  // ---- SessionRegistry: what servers send towards the sessions -----------------------------------

  routeFor(parent: Exchange | undefined, capability: keyof ClientCapabilities): RoutedSession | undefined {
    // A call from a new-era agent: its server's questions go to the input bridge, never to another session.
    if (parent && isNewEraVersion(parent.agentEra)) return this.newEra.routeFor(parent, capability);
    if (parent?.agentSession) {
      const s = this.sessions.get(parent.agentSession);
      if (s) return s.server.getClientCapabilities()?.[capability] ? s : undefined;
    }
    const recent = [...this.sessions.values()].sort((a, b) => b.lastActive - a.lastActive);
    return recent.find((s) => s.server.getClientCapabilities()?.[capability]);
  }

  log(serverId: string, p: Record<string, unknown> & { level: string; logger?: string }): void {
    const params = { ...p, logger: p.logger ? `${serverId}/${p.logger}` : serverId };
    this.newEra.log(serverId, params);
    const severity = LOG_SEVERITY.get(p.level) ?? 0;
    for (const s of this.ready()) {
      if (s.logLevel && severity < (LOG_SEVERITY.get(s.logLevel) ?? 0)) continue;
      void s.server.sendLoggingMessage(params as never).catch(() => {});
    }
  }

  /** Whether any agent session is subscribed to `uri`. */
  subscribedBySession(uri: string): boolean {
    return [...this.sessions.values()].some((s) => s.subscriptions.has(uri));
  }

  resourceUpdated(params: { uri: string }): void {
    this.console.updated(params.uri);
    for (const s of this.ready()) {
      if (s.subscriptions.has(params.uri)) void s.server.sendResourceUpdated(params).catch(() => {});
    }
    this.newEra.notify('resource', params.uri);
  }

  resourceListChanged(serverId: string): void {
    void this.deps.catalog.refreshCatalogs(serverId);
    for (const s of this.ready()) void s.server.sendResourceListChanged().catch(() => {});
    this.newEra.notify('resources');
  }

  promptListChanged(): void {
    for (const s of this.ready()) void s.server.sendPromptListChanged().catch(() => {});
    this.newEra.notify('prompts');
  }

  toolListChanged(): void {
    for (const s of this.ready()) void s.server.sendToolListChanged().catch(() => {});
    this.newEra.notify('tools');
  }

  async closeAll(): Promise<void> {
    for (const id of this.newEra.agents()) this.deps.events.sessionEvent({ id, transport: 'streamable-http', startedAt: 0, ended: Date.now() });
    this.newEra.close();
    await Promise.all([...this.sessions.values()].map((s) => s.server.close().catch(() => {})));
    this.sessions.clear();
  }
}
