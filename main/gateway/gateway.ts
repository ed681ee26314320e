// The governed gateway (docs/gateway.md; ARCHITECTURE.md "Data that flows"). One Gateway per launched
// profile aggregates the supervised servers behind one MCP surface. It is assembled from one
// part per concern:
//   exchanges.ts        the exchange table: one record per forwarded call and server→client request
//   upstreams.ts        the launch's servers: where a call goes, the start-up barrier, lifecycle requests
//   session-setup.ts    downstream sessions (an SDK Server each, on an exchange channel), and the
//                       window's own requests beside them (console-requests.ts)
//   call-pipeline.ts    decide → ask → forward → record, behind small ports
//   catalog.ts          what is advertised and which server owns a name or URI
//   server-requests.ts  sampling / elicitation / roots from the servers, and each server's SDK client
// The parts see each other through the roles in ports.ts (ServerDirectory, ToolDirectory,
// SessionRegistry, GatewayEvents, ...): the Gateway itself plays GatewayEvents and
// CapabilitiesSource; each other role is played by one part, found by `implements`.
// Calls are forwarded beneath the SDK peers, at the transport level (exchange-channel.ts): the
// SDK Client of a server keeps the lifecycle; the gateway sends calls with ids it assigns.
import { EventEmitter } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile, ToolSurface } from '../profiles/types';
import type { Supervisor } from '../supervisor/supervisor';
import type { Policy } from '../policy/engine';
import type { ApprovalBroker } from '../approvals/broker';
import { buildCapabilities, type CapabilitiesReport, type CapabilityInputTool, type ToolHold } from '../policy/capabilities';
import type { ChannelRoutes } from '../protocol/exchange-channel';
import { CallPipeline, type DecisionEvent } from './call-pipeline';
import { Catalog } from './catalog';
import { GatewayError } from './errors';
import { ExchangeTable, type Exchange } from './exchanges';
import { UpstreamInput } from './upstream-input';
import type { ConsoleRequests } from './console-requests';
import { ServerRequests } from './server-requests';
import { Sessions, type AgentSessionInfo, type OpenSessionOptions, type OpenedSession } from './session-setup';
import type { Surface } from './tool-surface';
import type { NewEraHandler } from './new-era-handler';
import type { TrustGuard } from '../trust/trust-guard';
import { DataGuard } from '../data/data-guard';
import { DataOutboundScreen } from '../data/outbound-screen';
import { recordConsoleLeg, type ConsoleLegOptions } from './console-leg';
import type { CapabilitiesSource, GatewayEvents } from './ports';
import { Upstreams } from './upstreams';

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
export class Gateway extends EventEmitter<Events> implements GatewayEvents, CapabilitiesSource {
  readonly session: string;
  readonly profile: ResolvedProfile;
  readonly surfaceKind: ToolSurface;
  /** Every call and server→client request, from arrival to answer. */
  readonly exchanges: ExchangeTable;
  private readonly upstreams: Upstreams;
  private readonly policy: Policy;
  private readonly broker: ApprovalBroker;
  private readonly catalog: Catalog;
  private readonly pipeline: CallPipeline;
  private readonly sessions: Sessions;
  /** The window's own prompts and resources requests and subscriptions. */
  readonly console: ConsoleRequests;
  private readonly serverRequests: ServerRequests;
  private readonly trust: TrustGuard | undefined;
  /** The data scanning step and the trifecta guard (main/data/). */
  readonly data: DataGuard;
  /** The downstream channels' screen (main/data/outbound-screen.ts). */
  readonly outboundScreen: DataOutboundScreen;

  constructor(opts: GatewayOptions) {
    super();
    this.session = opts.session;
    this.profile = opts.profile;
    this.upstreams = new Upstreams(
      opts.profile,
      opts.startGraceMs ?? envMs('GATEHOUSE_START_GRACE_MS', DEFAULT_START_GRACE_MS),
      envMs('GATEHOUSE_START_STRAGGLER_MS', DEFAULT_STRAGGLER_MS),
    );
    this.exchanges = new ExchangeTable((text) => opts.profile.redactor.redactString(text));
    this.policy = opts.policy;
    this.broker = opts.broker;
    this.surfaceKind = opts.toolSurface ?? opts.profile.toolSurface;
    this.catalog = new Catalog(opts.profile, this.surfaceKind, () => this.upstreams.supervisor, opts.trust);
    this.catalog.refreshSurface();
    this.trust = opts.trust;
    this.trust?.on('changed', () => this.refreshSurface());
    const { policy: spec } = opts.profile;
    this.data = new DataGuard({ redactor: opts.profile.redactor, data: spec.data, flow: spec.flow, marks: spec.marks, servers: opts.profile.servers });
    // Every message toward an agent, whatever its kind, passes the same redaction and masking (docs/data.md).
    this.outboundScreen = new DataOutboundScreen(opts.profile.redactor, this.data, (stamp, message, findings, agentSession) =>
      this.exchanges.found(stamp, findings, { session: this.session, method: (message as { method?: string }).method ?? 'message', ...(agentSession !== undefined ? { agentSession } : {}) }),
    );
    this.pipeline = new CallPipeline({
      session: this.session,
      table: this.exchanges,
      policy: opts.policy,
      broker: opts.broker,
      redactor: opts.profile.redactor,
      approvalTimeoutMs: () => this.profile.policy.approvalTimeoutS * 1000,
      tools: this.catalog,
      servers: this.upstreams,
      capabilities: this,
      events: this,
      data: this.data,
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
      servers: this.upstreams,
      events: this,
      ...(opts.inputHoldMs !== undefined ? { inputHoldMs: opts.inputHoldMs } : {}),
      screen: this.outboundScreen,
    });
    this.console = this.sessions.console;
    this.serverRequests = new ServerRequests({
      session: this.session,
      profile: this.profile,
      policy: opts.policy,
      broker: opts.broker,
      table: this.exchanges,
      sessions: this.sessions,
      events: this,
      data: this.data,
    });
  }

  // ---- GatewayEvents: what the parts tell the window and the audit store -------------------------

  /** A decision: stored and shown, so its reason (which may quote a server's words) passes the redactor (args already did). */
  decided(d: DecisionEvent): void {
    this.emit('decision', { ...d, reason: this.profile.redactor.redactString(d.reason) });
  }

  sessionEvent(info: AgentSessionInfo & { ended?: number }): void {
    this.emit('agent-session', info);
  }

  /** Wire the supervisor (created with `clientFactory` / `channelRoutes` from this gateway). */
  attach(supervisor: Supervisor): void {
    this.upstreams.attach(supervisor);
    supervisor.on('tools', (serverId, tools, instructions) => {
      if (tools.length === 0 && supervisor.get(serverId)?.status().state !== 'ready') return;
      this.catalog.setTools(serverId, tools, instructions);
      this.refreshSurface();
    });
    supervisor.on('status', (s) => {
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

  agentSessions(): AgentSessionInfo[] {
    return this.sessions.list();
  }

  private refreshSurface(): void {
    const { surface, changed, first } = this.catalog.refreshSurface();
    if (!changed) return;
    this.emit('surface', surface);
    if (!first) this.sessions.toolListChanged();
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

  /** What gatehouse.capabilities answers (main/policy/capabilities.ts): each tool's state, and why it is held. */
  capabilitiesReport(): CapabilitiesReport {
    const tools: CapabilityInputTool[] = this.catalog
      .currentSurface()
      .tools.filter((t) => !t.canonical.startsWith('gatehouse.'))
      .map((t) => {
        const holds: ToolHold[] = [];
        const unavailable = this.upstreams.clientUnavailable(t.server);
        if (unavailable !== undefined) holds.push({ code: 'server_unavailable', reason: unavailable });
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
