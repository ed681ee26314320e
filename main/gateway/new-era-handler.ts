// The gateway's new-era face (MCP 2026-07-28): stateless requests, each carrying its protocol
// version and client capabilities in `_meta`, answered beside the old-era sessions on the same
// HTTP endpoint and the same stdio stream (era.ts chooses per request).
//
// Hand-written rather than on the SDK v2 server: the gateway answers beneath any SDK (its
// channels record and route each message, its lean HTTP transport writes the bytes), and a new
// era request is one message in, one answer out, which this module maps onto the same pieces
// the old era uses: the catalog for lists, and for tools/call, prompts/get, resources/read and
// completion/complete an exchange run through the call pipeline (decide → ask → forward →
// record) with the input bridge in front (input-bridge.ts).
//
// Everything the handler answers goes out on the channel the request came in on: a per-request
// channel over HTTP (new-era-http.ts), the session's channel over stdio.
import { LoggingLevelSchema, type ClientCapabilities, type JSONRPCRequest, type RequestId, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ExchangeChannel, InboundRequestRoute } from '../protocol/exchange-channel';
import type { ExchangeLedger } from '../protocol/types';
import type { Catalog } from './catalog';
import { GatewayError, toRpcError, type RpcError } from './errors';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  SUPPORTED_VERSIONS,
  checkParamHeaders,
  isEraFault,
  nameOf,
  readEra,
  statusForError,
  type RequestEra,
} from './era';
import { CancelledError, type Exchange, type ExchangeTable } from './exchanges';
import { InputBridge, type BridgeOutcome } from './input-bridge';
import { RequestStateError, RequestStateSealer } from './request-state';
import type { ForwardRunner, GatewayEvents, RoutedSession, ServerDirectory } from './ports';
import { GATEWAY_NAME, GATEWAY_VERSION } from './server-requests';
import { CAPABILITIES_TOOL, advertisedTools } from './tool-surface';
import { toAdvertised } from '../protocol/tool-names';
import type { Redactor } from '../secrets/redactor';
import { agentNaming } from './agent-label';
import { carryScreened } from '../data/data-guard';

/** Lists the gateway aggregates are fresh this long while no server is starting (it announces changes on listen streams). */
export const LIST_TTL_MS = 30_000;

/** Requests forwarded to a server, by the capability that offers them (as for old-era sessions). */
const FORWARDED: Record<string, keyof ServerCapabilities> = { 'tools/call': 'tools', 'prompts/get': 'prompts', 'resources/read': 'resources', 'completion/complete': 'completions' };
const LISTS: Record<string, keyof ServerCapabilities> = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resources' };

export interface NewEraDeps {
  session: string;
  profileName: string;
  table: ExchangeTable;
  catalog: Catalog;
  /** Capabilities, the start-up barrier, whether lists may still change, subscriptions (Upstreams). */
  servers: Pick<ServerDirectory, 'capabilities' | 'firstStarts' | 'startingServers' | 'lifecycleRequest'>;
  /** Runs one forwarded request through the call pipeline (Sessions.runForwarded). */
  forward: ForwardRunner;
  /** A stateless agent (HTTP, one per token) seen for the first time: announced like a session. */
  events?: Pick<GatewayEvents, 'sessionEvent'>;
  holdMs?: number;
  /** Redacts what the agent says of itself (its clientInfo) before an exchange carries it. */
  redactor?: Redactor;
}

/** Where a new-era request came from. */
export interface NewEraContext {
  /** Who may resume its held calls: the token label over HTTP, the agent session over stdio. */
  caller: string;
  /** The agentSession its exchanges and traffic are recorded under. */
  agentSession: string;
  /** MCP-Protocol-Version as sent (HTTP only). */
  headerVersion?: string;
  forwardHeaders?: Record<string, string>;
  /** The terminal whose token it presented (HTTP), to name the stateless agent by its terminal. */
  terminal?: string;
  /** The minted per-agent token's name it presented (agent-tokens.ts): names it over any `_meta` clientInfo. */
  agent?: string;
  /** The HTTP status the answer goes out with (HTTP only). */
  status?(id: RequestId, status: number): void;
  /** Called once the request's stream ends (HTTP: the response closed; stdio: the session ended). */
  onClosed(fn: () => void): void;
  /** HTTP: the stream is this one request's, so its closing before the answer cancels the call (stdio sessions cancel theirs on close). */
  perRequest?: boolean;
}

interface Listener {
  id: RequestId;
  channel: ExchangeChannel;
  tools: boolean;
  prompts: boolean;
  resources: boolean;
  uris: Set<string>;
}

let exchangeCounter = 0;
const SEVERITY = new Map<string, number>(LoggingLevelSchema.options.map((level, i) => [level, i]));

export class NewEraHandler {
  readonly bridge: InputBridge;
  private readonly sealer = new RequestStateSealer();
  private readonly listeners = new Set<Listener>();
  private readonly seen = new Set<string>();
  /** Where each held call's progress goes now (the request of the current round). */
  private readonly progressTo = new Map<string, (params: Record<string, unknown>) => Promise<void>>();
  /** Calls whose request set `_meta` logLevel: their server's log messages go on the request's stream. */
  private readonly logTo = new Map<string, { ex: Exchange; level: number; send: (params: Record<string, unknown>) => Promise<void> }>();

  constructor(private readonly deps: NewEraDeps) {
    this.bridge = new InputBridge({ table: deps.table, sealer: this.sealer, holdMs: deps.holdMs });
  }

  /** Where a stateless request's channel finds each leg's exchange. */
  get ledger(): ExchangeLedger {
    return this.deps.table;
  }

  /** For routeFor: the bridge session of a call that came from a new-era agent. */
  routeFor(parent: Exchange, capability: keyof ClientCapabilities): RoutedSession | undefined {
    return this.bridge.routedSession(parent, capability);
  }

  /**
   * How a channel takes one new-era request: the exchange it belongs to (a forwarded request,
   * or the held call a retry resumes) and the handler that answers it on `channel`.
   */
  route(msg: JSONRPCRequest, channel: ExchangeChannel, ctx: NewEraContext): InboundRequestRoute {
    const era = readEra(msg, ctx.headerVersion);
    const answer = (reply: { result: Record<string, unknown> } | { error: RpcError } | undefined) => {
      if (!reply) return; // cancelled: no answer
      if ('error' in reply) ctx.status?.(msg.id, isEraFault(era) ? era.status : statusForError(reply.error.code));
      return channel.respond(msg.id, reply).catch(() => {});
    };
    if (isEraFault(era)) {
      const { status: _s, ...error } = era;
      return { handle: () => void answer({ error }) };
    }
    if (ctx.perRequest && !this.seen.has(ctx.agentSession)) {
      this.seen.add(ctx.agentSession);
      const client = era.clientInfo && typeof era.clientInfo.name === 'string' ? { name: era.clientInfo.name, version: String(era.clientInfo.version ?? '') } : undefined;
      this.deps.events?.sessionEvent({ id: ctx.agentSession, transport: 'streamable-http', startedAt: Date.now(), protocolVersion: era.protocolVersion, ...(ctx.terminal ? { terminal: ctx.terminal } : {}), ...(ctx.agent ? { agent: ctx.agent } : {}), ...(client ? { client } : {}) });
    }
    const offeredBy = FORWARDED[msg.method];
    if (!offeredBy) return { handle: () => void this.serveOwn(msg, era, channel, ctx).then(answer) };
    if (!this.deps.servers.capabilities()[offeredBy]) return { handle: () => void answer({ error: { code: -32601, message: `Method not found: ${msg.method} (no server of this launch offers ${offeredBy})` } }) };
    const params = (msg.params ?? {}) as Record<string, unknown>;
    if (params.requestState !== undefined) {
      // A retry belongs to the held call its state names; a state that does not open is refused when the handler runs.
      let held: Exchange | undefined;
      try {
        held = this.deps.table.get(this.sealer.open(params.requestState).exchange);
      } catch {
        held = undefined;
      }
      return { ...(held ? { stamp: held } : {}), handle: () => void this.serveForwarded(msg, held, era, channel, ctx).then(answer) };
    }
    if (ctx.perRequest && msg.method === 'tools/call') {
      const tool = this.deps.catalog.currentSurface().lookup.get(String(params.name))?.tool;
      const args = params.arguments && typeof params.arguments === 'object' ? (params.arguments as Record<string, unknown>) : {};
      const fault = tool ? checkParamHeaders(tool.inputSchema, args, ctx.forwardHeaders ?? {}) : undefined;
      if (fault) return { handle: () => void answer({ error: { code: fault.code, message: fault.message } }) };
    }
    const ex = this.deps.table.openExchange({
      // Over HTTP every request is on its own and ids repeat across them; on a stdio stream they are unique (and notifications/cancelled finds them).
      ...(ctx.perRequest ? { id: `${ctx.agentSession}#${String(msg.id)}~${++exchangeCounter}` } : {}),
      kind: 'call',
      session: this.deps.session,
      agentSession: ctx.agentSession,
      // Per request: stateless clients behind one token share an agentSession, each says who it is
      // (unless the token names the agent: agent-label.ts agentNaming, the rule old-era sessions follow).
      ...agentNaming({ agent: ctx.agent, client: era.clientInfo }, this.deps.redactor),
      downstreamId: msg.id,
      method: msg.method,
      agentEra: era.protocolVersion,
      ...(ctx.forwardHeaders && Object.keys(ctx.forwardHeaders).length ? { forwardHeaders: ctx.forwardHeaders } : {}),
    });
    return { stamp: ex, handle: () => void this.serveForwarded(msg, ex, era, channel, ctx).then(answer) };
  }

  /** Tells the listen streams that asked for it; `uri` for a resource update. */
  notify(kind: 'tools' | 'prompts' | 'resources' | 'resource', uri?: string): void {
    const method = { tools: 'notifications/tools/list_changed', prompts: 'notifications/prompts/list_changed', resources: 'notifications/resources/list_changed', resource: 'notifications/resources/updated' }[kind];
    for (const l of this.listeners) {
      if (kind === 'resource' ? !l.uris.has(uri!) : !l[kind]) continue;
      void l.channel.notify(method, { ...(uri ? { uri } : {}), _meta: { [META_SUBSCRIPTION_ID]: l.id } }, { relatedRequestId: l.id }).catch(() => {});
    }
  }

  /**
   * A server's log message: MCP 2026-07-28 has no logging/setLevel; a request that set
   * `_meta["io.modelcontextprotocol/logLevel"]` gets its server's messages at that level and
   * above on its own stream while it runs (a request that set none gets none).
   */
  log(serverId: string, params: Record<string, unknown> & { level: string }): void {
    const severity = SEVERITY.get(params.level) ?? 0;
    for (const l of this.logTo.values()) {
      if (l.ex.server === serverId && l.ex.outcome === undefined && severity >= l.level) void l.send(params).catch(() => {});
    }
  }

  /** subscriptions/listen streams open now. */
  listenerCount(): number {
    return this.listeners.size;
  }

  /** The stateless agents announced so far (their agentSession ids). */
  agents(): string[] {
    return [...this.seen];
  }

  close(): void {
    this.bridge.closeAll();
    this.listeners.clear();
  }

  // ---- requests the gateway answers itself --------------------------------------------------

  private serverMeta(result: Record<string, unknown>): Record<string, unknown> {
    const meta = (result._meta as Record<string, unknown> | undefined) ?? {};
    return { ...meta, [META_SERVER_INFO]: { name: GATEWAY_NAME, version: GATEWAY_VERSION } };
  }

  private complete(result: Record<string, unknown>, cache?: { ttlMs: number; cacheScope: 'public' | 'private' }): Record<string, unknown> {
    // A result the pipeline screened stays screened in its wrapper (main/data/outbound-screen.ts).
    return carryScreened(result, { ...result, ...(cache ?? {}), resultType: 'complete', _meta: this.serverMeta(result) });
  }

  /** Lists change while a server is on its first start (or restarting): fresh for LIST_TTL_MS only once they are settled. */
  private listCache(): { ttlMs: number; cacheScope: 'private' } {
    // private: what a list holds depends on the token's launch (trust, policy), never shared across agents.
    return { ttlMs: this.deps.servers.startingServers() === 0 ? LIST_TTL_MS : 0, cacheScope: 'private' };
  }

  private async serveOwn(msg: JSONRPCRequest, era: RequestEra, channel: ExchangeChannel, ctx: NewEraContext): Promise<{ result: Record<string, unknown> } | { error: RpcError }> {
    const caps = this.deps.servers.capabilities();
    const { catalog } = this.deps;
    try {
      if (msg.method === 'server/discover') {
        return {
          result: this.complete({
            supportedVersions: SUPPORTED_VERSIONS,
            capabilities: this.discoverCapabilities(caps),
            serverInfo: { name: GATEWAY_NAME, version: GATEWAY_VERSION, title: `Gatehouse · ${this.deps.profileName}` },
            instructions: `Gatehouse gateway for workspace profile '${this.deps.profileName}'. Call ${toAdvertised(CAPABILITIES_TOOL)} to see which tools are callable, need approval, or are unavailable.`,
          }),
        };
      }
      if (msg.method === 'subscriptions/listen') return await this.listen(msg, caps, channel, ctx);
      const cap = LISTS[msg.method];
      if (!cap || !caps[cap]) return { error: { code: -32601, message: `Method not found: ${msg.method}${msg.method === 'initialize' ? ` (a ${era.protocolVersion} request needs no initialize; old-era clients send initialize without MCP-Protocol-Version ${era.protocolVersion})` : ''}` } };
      await this.deps.servers.firstStarts();
      const cache = this.listCache();
      if (msg.method === 'tools/list') return { result: this.complete({ tools: advertisedTools(catalog.currentSurface()) }, cache) };
      if (msg.method === 'prompts/list') return { result: this.complete({ prompts: await catalog.listPrompts() }, cache) };
      if (msg.method === 'resources/list') return { result: this.complete({ resources: await catalog.listResources() }, cache) };
      return { result: this.complete({ resourceTemplates: await catalog.listTemplates() }, cache) };
    } catch (err) {
      return { error: toRpcError(err) };
    }
  }

  /** The 2026-07-28 capabilities: no logging/setLevel or resources/subscribe RPCs (listen replaces them). */
  private discoverCapabilities(caps: ServerCapabilities): ServerCapabilities {
    const { logging: _l, ...rest } = caps;
    return rest;
  }

  /**
   * subscriptions/listen: acknowledged first (with the subscription id), then the notifications
   * the agent opted in to, each tagged with that id, until the stream closes.
   */
  private async listen(msg: JSONRPCRequest, caps: ServerCapabilities, channel: ExchangeChannel, ctx: NewEraContext): Promise<never> {
    const want = ((msg.params as { notifications?: Record<string, unknown> } | undefined)?.notifications ?? {}) as Record<string, unknown>;
    const uris = Array.isArray(want.resourceSubscriptions) ? want.resourceSubscriptions.filter((u): u is string => typeof u === 'string') : [];
    const listener: Listener = {
      id: msg.id,
      channel,
      tools: want.toolsListChanged === true && !!caps.tools,
      prompts: want.promptsListChanged === true && !!caps.prompts,
      resources: want.resourcesListChanged === true && !!caps.resources,
      uris: new Set(caps.resources?.subscribe ? uris : []),
    };
    const agreed: Record<string, unknown> = {
      ...(listener.tools ? { toolsListChanged: true } : {}),
      ...(listener.prompts ? { promptsListChanged: true } : {}),
      ...(listener.resources ? { resourcesListChanged: true } : {}),
      ...(listener.uris.size ? { resourceSubscriptions: [...listener.uris] } : {}),
    };
    for (const uri of listener.uris) {
      // The upstream owner is subscribed as for an old-era resources/subscribe.
      void this.deps.catalog
        .resourceOwner(uri)
        .then((owner) => this.deps.servers.lifecycleRequest(owner, 'resources/subscribe', { uri }))
        .catch(() => listener.uris.delete(uri));
    }
    await channel.notify('notifications/subscriptions/acknowledged', { notifications: agreed, _meta: { [META_SUBSCRIPTION_ID]: msg.id } }, { relatedRequestId: msg.id });
    this.listeners.add(listener);
    // The stream's answer comes only when it ends gracefully; an abrupt close carries none.
    return new Promise<never>(() => ctx.onClosed(() => this.listeners.delete(listener)));
  }

  // ---- requests forwarded to a server -------------------------------------------------------

  /** A forwarded request (`ex` is its new exchange), or a retry of a held one (`ex` is the held exchange, if its state opened). */
  private async serveForwarded(
    msg: JSONRPCRequest,
    ex: Exchange | undefined,
    era: RequestEra,
    channel: ExchangeChannel,
    ctx: NewEraContext,
  ): Promise<{ result: Record<string, unknown> } | { error: RpcError } | undefined> {
    const params = (msg.params ?? {}) as Record<string, unknown>;
    const target = `${msg.method}:${nameOf(msg.method, params) ?? ''}`;
    const progress = (p: Record<string, unknown>) => channel.notify('notifications/progress', p, { ...(ex ? { stamp: ex } : {}), relatedRequestId: msg.id });
    if (ex && era.logLevel !== undefined && SEVERITY.has(era.logLevel)) {
      this.logTo.set(ex.id, { ex, level: SEVERITY.get(era.logLevel)!, send: (p) => channel.notify('notifications/message', p, { stamp: ex, relatedRequestId: msg.id }) });
    }
    const hold = { caller: ctx.caller, target, capabilities: era.clientCapabilities };
    let outcome: BridgeOutcome;
    let answered = false;
    // The agent gave up on its request (HTTP: closed the response) before the answer: the call is cancelled, upstream told.
    if (ctx.perRequest) ctx.onClosed(() => {
      if (!answered && ex && ex.outcome === undefined) this.deps.table.cancel(ex, 'the agent closed its request before the answer');
    });
    try {
      if (params.requestState !== undefined) {
        const resumed = this.bridge.resume(params.requestState, params.inputResponses, hold);
        if (ex) this.progressTo.set(ex.id, progress);
        outcome = await resumed;
      } else {
        this.progressTo.set(ex!.id, progress);
        // What the agent can answer, for a new-era server behind (NewEraPort tells it no more).
        ex!.agentCapabilities = era.clientCapabilities as Record<string, unknown>;
        outcome = await this.bridge.start(ex!, hold, () => this.run(ex!, msg.method, upstreamParams(params)));
      }
    } catch (err) {
      answered = true;
      if (ex) this.logTo.delete(ex.id);
      if (err instanceof RequestStateError || err instanceof GatewayError) return { error: toRpcError(err) };
      throw err;
    }
    answered = true;
    if (ex) this.logTo.delete(ex.id);
    if ('result' in outcome && outcome.result.resultType === 'input_required') return { result: { ...outcome.result, _meta: this.serverMeta(outcome.result) } };
    if (ex) this.progressTo.delete(ex.id);
    if ('cancelled' in outcome) return undefined;
    if ('error' in outcome) {
      // SEP-2164 (2026-07-28): a resource that does not exist is -32602 with data.uri; old-era servers say -32002.
      if (msg.method === 'resources/read' && outcome.error.code === -32002) return { error: { ...outcome.error, code: -32602, data: { uri: params.uri, ...(outcome.error.data as object | undefined) } } };
      return outcome;
    }
    return { result: this.complete(outcome.result, msg.method === 'resources/read' ? { ttlMs: 0, cacheScope: 'private' } : undefined) };
  }

  /** The pipeline run of a new-era call; its progress goes to whichever request of the call is waiting now. */
  private async run(ex: Exchange, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return await this.deps.forward.runForwarded(ex, method, params, (token) => ({
        token,
        send: (p) => this.progressTo.get(ex.id)?.(p) ?? Promise.resolve(),
      }));
    } catch (err) {
      if (!(err instanceof CancelledError)) this.deps.table.close(ex, 'error', { error: toRpcError(err).message });
      throw err;
    }
  }
}

/** What goes upstream to an old-era server: the request without the new era's fields. */
function upstreamParams(params: Record<string, unknown>): Record<string, unknown> {
  const { inputResponses: _i, requestState: _r, _meta, ...rest } = params;
  const meta = { ...((_meta as Record<string, unknown> | undefined) ?? {}) };
  for (const k of [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL]) delete meta[k];
  return Object.keys(meta).length ? { ...rest, _meta: meta } : rest;
}
