// The governed gateway (docs/gateway.md; ARCHITECTURE.md "Data that flows"). One Gateway per launched
// profile aggregates the supervised servers behind one MCP surface. It is assembled from one
// part per concern:
//   exchanges.ts        the exchange table: one record per forwarded call and server→client request
//   session-setup.ts    downstream sessions (an SDK Server each, on an exchange channel)
//   call-pipeline.ts    decide → ask → forward → record, behind small ports
//   catalog.ts          what is advertised and which server owns a name or URI
//   server-requests.ts  sampling / elicitation / roots from the servers, and each server's SDK client
// Calls are forwarded beneath the SDK peers, at the transport level (exchange-channel.ts): the
// SDK Client of a server keeps the lifecycle; the gateway sends calls with ids it assigns.
import { EventEmitter } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, type CallToolResult, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile, ToolSurface } from '../profiles/types';
import type { Supervisor } from '../supervisor/supervisor';
import type { ManagedServer } from '../supervisor/managed-server';
import type { Policy } from '../policy/engine';
import type { ApprovalBroker } from '../approvals/broker';
import { buildCapabilities, type CapabilityInputTool, type ToolHold } from '../policy/capabilities';
import type { ChannelRoutes } from '../protocol/exchange-channel';
import { CallPipeline, type DecisionEvent, type UpstreamLookup } from './call-pipeline';
import { Catalog, LooseResult } from './catalog';
import { GatewayError, passThroughError } from './errors';
import { ExchangeTable, type Exchange } from './exchanges';
import { UpstreamInput } from './upstream-input';
import { ConsoleRequests } from './console-requests';
import { ServerRequests } from './server-requests';
import { Sessions, type AgentSessionInfo, type OpenSessionOptions, type OpenedSession } from './session-setup';
import type { Surface } from './tool-surface';
import type { NewEraHandler } from './new-era-handler';
import type { TrustGuard } from '../trust/trust-guard';
import { DataGuard } from '../data/data-guard';
import { DataOutboundScreen } from '../data/outbound-screen';
import { recordConsoleLeg, type ConsoleLegOptions } from './console-leg';

export { GATEWAY_NAME, GATEWAY_VERSION } from './server-requests';
export type { DecisionEvent } from './call-pipeline';
export type { AgentSessionInfo } from './session-setup';

type Events = {
  decision: [DecisionEvent];
  'agent-session': [AgentSessionInfo & { ended?: number }];
  surface: [Surface];
};

export interface GatewayOptions {
  session: string;
  profile: ResolvedProfile;
  policy: Policy;
  broker: ApprovalBroker;
  toolSurface?: ToolSurface;
  /**
   * How long tools/list (and a call to a name not listed yet) may wait for servers still on
   * their first start. initialize never waits; a server that takes longer is announced with
   * notifications/tools/list_changed when it is ready. Default 5 s (GATEHOUSE_START_GRACE_MS).
   */
  startGraceMs?: number;
  /** Tool pinning (main/trust/): filters the catalog, explains held tools. */
  trust?: TrustGuard;
  /** How long a new-era call held for input waits for the agent's retry (default 120 s, GATEHOUSE_INPUT_HOLD_MS; input-bridge.ts). */
  inputHoldMs?: number;
}

const DEFAULT_START_GRACE_MS = 5_000;

/** A call that did not come in as a downstream JSON-RPC request (the Tool console, a legacy envelope). */
export interface CallContext {
  agentSession: string;
  /** Names the exchange (`<agentSession>#<requestId>`), so a caller knows it before the call returns. */
  requestId?: string | number;
  /** Record the caller's own leg on this tap (the Tool console: no channel taps it, console-leg.ts). */
  leg?: ConsoleLegOptions;
}

/**
 * After a server is ready, how long a first tools/list still waits for the others (see
 * firstStarts). GATEHOUSE_START_STRAGGLER_MS overrides it: the test suite runs on a loaded
 * 2-core machine where a second server can take seconds longer than the first.
 */
const DEFAULT_STRAGGLER_MS = 1000;

function envMs(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = Number(raw);
  return raw && Number.isFinite(n) && n >= 0 ? n : fallback;
}
export class Gateway extends EventEmitter<Events> {
  readonly session: string;
  readonly profile: ResolvedProfile;
  readonly surfaceKind: ToolSurface;
  /** Every call and server→client request, from arrival to answer. */
  readonly exchanges: ExchangeTable;
  private supervisor: Supervisor | undefined;
  private readonly policy: Policy;
  private readonly broker: ApprovalBroker;
  private readonly catalog: Catalog;
  private readonly pipeline: CallPipeline;
  private readonly sessions: Sessions;
  /** The window's own prompts and resources requests and subscriptions. */
  readonly console: ConsoleRequests;
  private readonly serverRequests: ServerRequests;
  private readonly startGraceMs: number;
  private readonly stragglerMs: number;
  private readonly trust: TrustGuard | undefined;
  /** The data scanning step and the trifecta guard (main/data/). */
  readonly data: DataGuard;
  /** The downstream channels' screen (main/data/outbound-screen.ts). */
  readonly outboundScreen: DataOutboundScreen;
  private startWaiters = new Set<() => void>();

  constructor(opts: GatewayOptions) {
    super();
    this.startGraceMs = opts.startGraceMs ?? envMs('GATEHOUSE_START_GRACE_MS', DEFAULT_START_GRACE_MS);
    this.stragglerMs = envMs('GATEHOUSE_START_STRAGGLER_MS', DEFAULT_STRAGGLER_MS);
    this.session = opts.session;
    this.profile = opts.profile;
    this.exchanges = new ExchangeTable((text) => opts.profile.redactor.redactString(text));
    this.policy = opts.policy;
    this.broker = opts.broker;
    this.surfaceKind = opts.toolSurface ?? opts.profile.toolSurface;
    this.catalog = new Catalog(opts.profile, this.surfaceKind, () => this.supervisor, opts.trust);
    this.catalog.refreshSurface();
    this.trust = opts.trust;
    this.trust?.on('changed', () => this.refreshSurface());
    // Decisions are stored and shown: their reason may quote a server's words (an unavailable
    // server's state), so they pass the redactor like everything else that leaves (args already did).
    const { policy: spec } = opts.profile;
    this.data = new DataGuard({ redactor: opts.profile.redactor, data: spec.data, flow: spec.flow, marks: spec.marks, servers: opts.profile.servers });
    // Every message toward an agent, whatever its kind, passes the same redaction and masking (docs/data.md).
    this.outboundScreen = new DataOutboundScreen(opts.profile.redactor, this.data, (stamp, message, findings, agentSession) =>
      this.exchanges.found(stamp, findings, { session: this.session, method: (message as { method?: string }).method ?? 'message', ...(agentSession !== undefined ? { agentSession } : {}) }),
    );
    const decided = (d: DecisionEvent) => this.emit('decision', { ...d, reason: opts.profile.redactor.redactString(d.reason) });
    this.pipeline = new CallPipeline({
      session: this.session,
      table: this.exchanges,
      surface: () => this.catalog.currentSurface(),
      held: (name) => this.catalog.heldFor(name),
      heldServer: (name) => this.trust?.heldServerFor(name),
      searchTools: (query, limit) => this.catalog.searchTools(query, limit),
      policy: opts.policy,
      broker: opts.broker,
      redact: (v) => this.profile.redactor.redactJson(v),
      approvalTimeoutMs: () => this.profile.policy.approvalTimeoutS * 1000,
      upstream: (id) => this.upstream(id),
      describeServer: (id) => {
        const s = this.supervisor?.get(id)?.status();
        return s ? `${s.state} (${s.reason})` : 'not part of this launch';
      },
      capabilitiesReport: () => this.capabilitiesReport() as unknown as Record<string, unknown>,
      decided,
      data: this.data,
      firstStarts: () => this.firstStarts(),
      // A new-era server's questions take the one governed path of server→client requests.
      inputRounds: new UpstreamInput(
        (serverId, method, params, parent, signal, inputKey) => this.serverRequests.handle(serverId, method, params, parent, signal, undefined, inputKey),
        (ex, serverId, id) => this.exchanges.resent(ex, serverId, id),
      ),
    });
    this.sessions = new Sessions({
      session: this.session,
      profile: this.profile,
      table: this.exchanges,
      pipeline: this.pipeline,
      catalog: this.catalog,
      broker: opts.broker,
      capabilities: () => this.capabilities(),
      firstStarts: () => this.firstStarts(),
      upstreamRequest: (id, method, params, signal) => this.lifecycleRequest(id, method, params, signal),
      sessionEvent: (info) => this.emit('agent-session', info),
      settled: () => this.startingServers() === 0,
      ...(opts.inputHoldMs !== undefined ? { inputHoldMs: opts.inputHoldMs } : {}),
      screen: this.outboundScreen,
      consoleWants: (uri) => this.console.wants(uri),
      consoleUpdated: (uri) => this.console.updated(uri),
    });
    this.console = new ConsoleRequests({
      session: this.session,
      table: this.exchanges,
      catalog: this.catalog,
      sessions: this.sessions,
      redactor: this.profile.redactor,
      firstStarts: () => this.firstStarts(),
      upstreamRequest: (id, method, params) => this.lifecycleRequest(id, method, params),
    });
    this.serverRequests = new ServerRequests({
      session: this.session,
      profile: this.profile,
      policy: opts.policy,
      broker: opts.broker,
      table: this.exchanges,
      sessions: this.sessions,
      decided,
      maskCredentials: (v) => this.data.masked(v),
    });
  }

  /** Wire the supervisor (created with `clientFactory` / `channelRoutes` from this gateway). */
  attach(supervisor: Supervisor): void {
    this.supervisor = supervisor;
    supervisor.on('tools', (serverId, tools, instructions) => {
      if (tools.length === 0 && supervisor.get(serverId)?.status().state !== 'ready') return;
      this.catalog.setTools(serverId, tools, instructions);
      this.refreshSurface();
    });
    supervisor.on('status', (s) => {
      if (s.state !== 'starting') this.wakeStartWaiters();
      if (s.state !== 'ready') return;
      void this.catalog.refreshCatalogs(s.id);
      // A restarted server starts at its default level: give it the sessions' level again.
      const server = supervisor.get(s.id);
      if (server) void this.sessions.applyLogLevel(server);
    });
    for (const [id, server] of supervisor.servers) {
      const tools = server.tools();
      if (tools.length > 0) this.catalog.setTools(id, tools, server.status().instructions);
      if (server.status().state === 'ready') void this.catalog.refreshCatalogs(id);
    }
    this.refreshSurface();
  }

  currentSurface(): Surface {
    return this.catalog.currentSurface();
  }

  /** Servers on their first start (never ready yet, not yet failed once). */
  private startingServers(): number {
    if (!this.supervisor) return 0;
    let n = 0;
    for (const spec of this.profile.servers) {
      if (spec.disabled) continue;
      // Not created yet: the supervisor is still finding the PATH it starts servers on.
      const server = this.supervisor.get(spec.id);
      const s = server?.status();
      if (!s || (s.state === 'starting' && s.restarts === 0 && s.readyAt === undefined)) n++;
    }
    return n;
  }

  /**
   * Resolves once no server is on its first start, or after the start grace: what a tools/list
   * waits for, so a client that lists right after initialize sees the servers that come up in
   * time, and one silent server delays nobody for longer than the grace.
   */
  firstStarts(): Promise<void> {
    if (this.startingServers() === 0 || this.startGraceMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let straggler: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        clearTimeout(straggler);
        this.startWaiters.delete(check);
        resolve();
      };
      const check = () => {
        if (this.startingServers() === 0) return done();
        // A server just came up (or failed) while others are still starting: those get
        // stragglerMs more, not the whole grace, so one deaf server delays the others' first
        // list by at most that beyond their own readiness; its tools follow with list_changed.
        clearTimeout(straggler);
        straggler = setTimeout(done, Math.min(this.stragglerMs, this.startGraceMs));
        straggler.unref?.();
      };
      const timer = setTimeout(done, this.startGraceMs);
      timer.unref?.();
      this.startWaiters.add(check);
    });
  }

  private wakeStartWaiters(): void {
    for (const w of [...this.startWaiters]) w();
  }

  agentSessions(): AgentSessionInfo[] {
    return this.sessions.list();
  }

  private refreshSurface(): void {
    const { surface, changed, first } = this.catalog.refreshSurface();
    if (!changed) return;
    this.emit('surface', surface);
    if (!first) this.sessions.toolListChanged();
  }

  /**
   * Union of what the servers can do, plus what the gateway itself always offers. A session
   * opened while a server is still on its first start cannot know yet whether it will offer
   * prompts or resources, and the SDK cannot add capabilities to a session later: it gets them
   * declared (their lists are empty until such a server is ready, then list_changed follows).
   */
  capabilities(): ServerCapabilities {
    const caps: ServerCapabilities = { tools: { listChanged: true }, logging: {} };
    if (this.startingServers() > 0) {
      caps.prompts = { listChanged: true };
      caps.resources = { listChanged: true, subscribe: true };
      caps.completions = {};
    }
    for (const server of this.supervisor?.servers.values() ?? []) {
      const c = server.status().capabilities;
      if (!c) continue;
      if (c.prompts) caps.prompts = { listChanged: true };
      if (c.resources) caps.resources = { listChanged: true, subscribe: caps.resources?.subscribe || !!c.resources.subscribe };
      if (c.completions) caps.completions = {};
    }
    return caps;
  }

  /** Stateless MCP 2026-07-28 requests (new-era-handler.ts): HTTP hands them here when they come without a session. */
  newEra(): NewEraHandler {
    return this.sessions.newEra;
  }

  /** A new downstream session: its SDK Server on an exchange channel, to be connected to a transport. */
  openSession(info: Omit<AgentSessionInfo, 'startedAt'> & { startedAt?: number }, opts: OpenSessionOptions): OpenedSession {
    return this.sessions.open(info, opts);
  }

  /**
   * A tool call that did not arrive as a downstream request: the Tool console and the legacy
   * envelope. It opens its exchange here and runs the same pipeline as tools/call.
   */
  async callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
    const ex = this.exchanges.openExchange({
      kind: 'call',
      session: this.session,
      agentSession: ctx.agentSession,
      method: 'tools/call',
      ...(ctx.requestId !== undefined ? { id: `${ctx.agentSession}#${String(ctx.requestId)}` } : {}),
      ...(ctx.leg?.label ?? {}),
    });
    // These callers (the Tool console, a legacy envelope on stdio) show or send the result
    // without a downstream channel: it is redacted here instead (docs/security.md, "Secrets").
    const redactor = this.profile.redactor;
    const answered = ctx.leg ? recordConsoleLeg(ctx.leg, redactor, ex, ctx.requestId ?? ex.id, name, args) : undefined;
    try {
      const result = redactor.redactJson(await this.pipeline.callTool(ex, name, args));
      answered?.({ result });
      return result;
    } catch (err) {
      const out = err instanceof GatewayError ? new GatewayError(err.code, redactor.redactString(err.message), redactor.redactJson(err.data)) : err;
      if (!(err instanceof GatewayError) && err instanceof Error) err.message = redactor.redactString(err.message);
      answered?.({ error: { code: out instanceof GatewayError ? out.code : ErrorCode.InternalError, message: out instanceof Error ? out.message : String(out) } });
      throw out;
    }
  }

  /** An exchange by id (open, or among the recently closed). */
  exchange(id: string): Exchange | undefined {
    return this.exchanges.get(id);
  }

  private upstream(serverId: string): UpstreamLookup {
    const upstream = this.supervisor?.get(serverId);
    const port = upstream?.port;
    if (!upstream || !port) return { unavailable: this.unavailableReason(serverId, upstream) };
    return { port, timeoutMs: upstream.spec.requestTimeoutMs, era: upstream.negotiatedVersion };
  }

  private unavailableReason(serverId: string, upstream: ManagedServer | undefined): string {
    if (!upstream) return `server '${serverId}' is not part of this launch`;
    const s = upstream.status();
    return `server '${serverId}' is unavailable: ${s.state} (${s.reason})`;
  }

  /** A lifecycle request to a server through its SDK client (subscriptions): not an exchange. */
  private async lifecycleRequest(serverId: string, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const upstream = this.supervisor?.get(serverId);
    const client = upstream?.upstreamClient;
    if (!upstream || !client) throw new GatewayError(ErrorCode.InternalError, this.unavailableReason(serverId, upstream));
    try {
      // A new-era server has no resources/subscribe: a subscription is a listen stream of its own.
      const uri = typeof params.uri === 'string' ? params.uri : undefined;
      if (uri && method === 'resources/subscribe' && client.listenResource) return await client.listenResource(uri).then(() => ({}));
      if (uri && method === 'resources/unsubscribe' && client.unlistenResource) return await client.unlistenResource(uri).then(() => ({}));
      return await client.request({ method, params }, LooseResult, { signal, timeout: upstream.spec.requestTimeoutMs });
    } catch (err) {
      throw passThroughError(err);
    }
  }

  capabilitiesReport() {
    const tools: CapabilityInputTool[] = this.catalog
      .currentSurface()
      .tools.filter((t) => !t.canonical.startsWith('gatehouse.'))
      .map((t) => {
        const upstream = this.supervisor?.get(t.server);
        const holds: ToolHold[] = [];
        if (!upstream?.upstreamClient) holds.push({ code: 'server_unavailable', reason: this.unavailableReason(t.server, upstream) });
        const marks = Object.keys(this.data.flow.marks({ tool: t.canonical, server: t.server, annotations: t.tool.annotations }));
        return { canonical: t.canonical, advertised: t.advertised, server: t.server, title: t.tool.title, annotations: t.tool.annotations, holds, flowMarks: marks };
      });
    tools.push(...(this.trust?.heldCapabilities() ?? []), ...(this.trust?.heldServerCapabilities() ?? []));
    const holds: ToolHold[] = [];
    const noApprover = this.broker.approvalUnavailable();
    if (noApprover !== undefined) holds.push({ code: 'no_approver', reason: noApprover });
    return buildCapabilities({ tools, policy: this.policy, policySpec: this.profile.policy, holds });
  }

  /** The SDK client for one upstream server run (lifecycle, and the server's own requests). */
  createUpstreamClient(serverId: string): Client {
    return this.serverRequests.createUpstreamClient(serverId);
  }

  /** How a server's channel routes what arrives beneath its client. */
  upstreamRoutes(serverId: string, era?: 'old' | 'new'): ChannelRoutes {
    return this.serverRequests.upstreamRoutes(serverId, era);
  }

  /** Ends every downstream session (their transports close). */
  async close(): Promise<void> {
    await this.sessions.closeAll();
  }
}
