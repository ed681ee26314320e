// The roles the gateway's parts see each other in (docs/gateway.md "Every call is an exchange").
// A part takes the role it needs as an interface with methods, never a bag of lambdas; to find
// who plays a role, look for `implements <Role>`:
//   ServerDirectory    Upstreams (upstreams.ts): the launch's servers, their start-up, their lifecycle requests
//   ToolDirectory      Catalog (catalog.ts): what is advertised, what tool pinning holds back
//   SessionRegistry    Sessions (session-setup.ts): the downstream sessions, as servers' requests reach them
//   ForwardRunner      Sessions: one forwarded request through the call pipeline
//   GatewayEvents      Gateway (gateway.ts): what the window and the audit store are told
//   CapabilitiesSource Gateway: the report of gatehouse.capabilities
// Plain data (the launch's session id, the exchange table, the policy, the broker, the redactor)
// stays a field of each part's options.
import type { ClientCapabilities, RequestId, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ChannelRequestOptions, ExchangeChannel, RpcReply } from '../protocol/exchange-channel';
import type { CapabilitiesReport } from '../policy/capabilities';
import type { DecisionEvent } from './decision-event';
import type { Exchange } from './exchanges';
import type { SearchHit } from './lazy-surface';
import type { AgentSessionInfo } from './session-setup';
import type { Surface } from './tool-surface';

/** What the pipeline needs of a server: send one request, get its reply (an ExchangeChannel). */
export interface UpstreamPort {
  request(method: string, params: Record<string, unknown> | undefined, options: ChannelRequestOptions, onId?: (id: RequestId) => void): Promise<RpcReply>;
}

/** `era`: the protocol version the server speaks (the exchange's `upstreamEra`). */
export type UpstreamLookup = { port: UpstreamPort; timeoutMs: number; era?: string } | { unavailable: string };

/** The servers of this launch, as the parts reach them (implemented by Upstreams, upstreams.ts). */
export interface ServerDirectory {
  /** The channel a call to `serverId` is forwarded on, or why there is none. */
  upstream(serverId: string): UpstreamLookup;
  /** One line on a server's state, for "went away during the call". */
  describeServer(serverId: string): string;
  /** Resolves once servers on their first start are up (bounded by the start grace): a name not listed yet may be theirs. */
  firstStarts(): Promise<void>;
  /** Servers on their first start; 0 = settled (new-era list results are cacheable then). */
  startingServers(): number;
  /** What a new downstream session declares: the union of the servers' capabilities and the gateway's own. */
  capabilities(): ServerCapabilities;
  /** A lifecycle request to a server through its SDK client (subscriptions): not an exchange. */
  lifecycleRequest(serverId: string, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
}

/** A name tool pinning (main/trust/) knows but does not let through, with the reason. */
export type HeldName = { canonical: string; server: string; reason: string };

/** What is advertised and what is held back (implemented by Catalog, catalog.ts). */
export interface ToolDirectory {
  currentSurface(): Surface;
  /** A tool held back by tool pinning: known, not callable, with the reason. */
  heldFor(name: string): HeldName | undefined;
  /** A server the launch gate keeps stopped: a call to its tools is told why. */
  heldServerFor(name: string): HeldName | undefined;
  /** The lazy surface's ranked search over the tools of the current surface (lazy-surface.ts). */
  searchTools(query: string, limit?: number): SearchHit[];
}

/** A downstream session as server→client routing sees it. */
export interface RoutedSession {
  id: string;
  server: Server;
  channel: ExchangeChannel;
}

/** What server→client routing needs of the downstream sessions (implemented by Sessions). */
export interface SessionRegistry {
  /**
   * Which session a server→client request belongs to. stdio carries no link between a
   * server's request and the call that caused it, so: the session of the newest call in flight
   * to that server; else the session that most recently used the gateway. Documented in
   * docs/gateway.md.
   */
  routeFor(parent: Exchange | undefined, capability: keyof ClientCapabilities): RoutedSession | undefined;
  log(serverId: string, params: Record<string, unknown> & { level: string }): void;
  resourceUpdated(params: { uri: string }): void;
  resourceListChanged(serverId: string): void;
  promptListChanged(): void;
}

/** Where a call's progress goes: the calling session's channel (downstream token put back by the caller). */
export type ProgressSink = { token: string | number; send: (params: Record<string, unknown>) => Promise<void> };

/** One forwarded request (tools/call, prompts/get, resources/read, completion/complete) through the call pipeline (implemented by Sessions). */
export interface ForwardRunner {
  runForwarded(ex: Exchange, method: string, params: Record<string, unknown>, progress: (token: string | number) => ProgressSink): Promise<Record<string, unknown>>;
}

/** What the gateway tells the window and the audit store (implemented by Gateway: its events). */
export interface GatewayEvents {
  /** A policy decision (its reason is redacted on the way out). */
  decided(d: DecisionEvent): void;
  /** A downstream agent session opened, was named, or ended. */
  sessionEvent(info: AgentSessionInfo & { ended?: number }): void;
}

/** The report gatehouse.capabilities answers with (implemented by Gateway). */
export interface CapabilitiesSource {
  capabilitiesReport(): CapabilitiesReport;
}
