// A new-era (MCP 2026-07-28) HTTP upstream: the SDK v2 client does the protocol work it is
// good at — the `server/discover` probe with its fallback verdict, adopting a remembered
// discover result (`connect({ prior })`, zero round trips), the per-request `_meta` envelope
// and the Mcp-Method / Mcp-Name headers on its own requests (tools/list, ping, the list
// subscription). The gateway still forwards calls beneath it, through the ExchangeChannel, with
// ids it assigns (so Traffic, progress mapping and cancellation work as for the old era):
// NewEraPort adds the same `_meta` envelope to those and hands the agent's `Mcp-Param-*`
// headers to the transport, which derives Mcp-Method / Mcp-Name from the body itself.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client as V2Client,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type McpSubscription,
  StreamableHTTPClientTransport as V2HttpTransport,
  type DiscoverResult,
  type Transport as V2Transport,
} from '@modelcontextprotocol/client';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ChannelRequestOptions, ExchangeChannel, RpcReply } from '../protocol/exchange-channel';
import type { HttpSpec } from './http-upstream';
import type { UpstreamClient } from './types';

import { GATEWAY_CLIENT_INFO, GATEWAY_UPSTREAM_CAPABILITIES } from './gateway-identity';

export { GATEWAY_CLIENT_INFO, GATEWAY_UPSTREAM_CAPABILITIES };

export type NewEraConnect =
  | { era: 'new'; client: UpstreamClient; port: NewEraPort; version: string; discover: Record<string, unknown>; onClosed(fn: () => void): void }
  | { era: 'old'; version?: string };

/**
 * Connects the SDK v2 client through `channel` (already attached to a v2 HTTP transport, see
 * `newEraTransport`). With `prior`, the remembered discover result is adopted; without, the
 * client probes (`versionNegotiation: auto`). An old-era verdict closes this connection: the
 * supervisor then connects the old-era client as today (once; the verdict is remembered).
 */
export async function connectNewEra(
  channel: ExchangeChannel,
  opts: { prior?: Record<string, unknown>; timeoutMs: number; onToolsChanged: () => void },
): Promise<NewEraConnect> {
  const client = new V2Client(GATEWAY_CLIENT_INFO, {
    capabilities: GATEWAY_UPSTREAM_CAPABILITIES,
    versionNegotiation: { mode: 'auto' },
    // The gateway is an intermediary: a server's input_required goes to the gateway's bridge
    // (main/gateway/upstream-input.ts), never to handlers of this client.
    inputRequired: { autoFulfill: false },
    // The list subscription (subscriptions/listen) the client opens asks for all three; tools
    // refresh the supervisor's list, prompts and resources reach the agents through the
    // channel's routes (ServerRequests.upstreamRoutes, new era).
    listChanged: {
      tools: { onChanged: () => opts.onToolsChanged(), autoRefresh: false },
      prompts: { onChanged: () => {}, autoRefresh: false },
      resources: { onChanged: () => {}, autoRefresh: false },
    } as never,
  });
  const transport = channel as unknown as V2Transport;
  await client.connect(transport, {
    timeout: opts.timeoutMs,
    ...(opts.prior ? { prior: { kind: 'modern' as const, discover: opts.prior as unknown as DiscoverResult } } : {}),
  });
  const version = client.getNegotiatedProtocolVersion();
  if (client.getProtocolEra() !== 'modern' || !version) {
    await client.close().catch(() => {});
    return { era: 'old', version };
  }
  const discover = (client.getDiscoverResult() ?? opts.prior ?? {}) as Record<string, unknown>;
  const port = new NewEraPort(channel, version);
  return {
    era: 'new',
    client: new V2ClientAdapter(client, port),
    port,
    version,
    discover,
    onClosed: (fn) => {
      client.onclose = fn;
    },
  };
}

/** The v2 Streamable HTTP transport for a new-era upstream (the channel is attached to it). */
export function newEraTransport(spec: HttpSpec): V2HttpTransport {
  return new V2HttpTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
}

/** The `_meta` envelope every new-era request carries (SEP: stateless requests). */
export function newEraEnvelope(version: string, logLevel?: string): Record<string, unknown> {
  return {
    [PROTOCOL_VERSION_META_KEY]: version,
    [CLIENT_CAPABILITIES_META_KEY]: GATEWAY_UPSTREAM_CAPABILITIES,
    [CLIENT_INFO_META_KEY]: GATEWAY_CLIENT_INFO,
    ...(logLevel ? { [LOG_LEVEL_META_KEY]: logLevel } : {}),
  };
}

/**
 * What the gateway forwards through to a new-era server: the channel's request, with the
 * envelope merged into `_meta` (the agent's own `_meta` keys, like a progress token, kept;
 * the envelope's reserved keys are the gateway's: it is the client upstream) and the agent's
 * `Mcp-Param-*` headers (the exchange's `forwardHeaders`) sent with the HTTP request.
 */
export class NewEraPort {
  /** The lowest level any agent session asked for (sent as `_meta` logLevel on each call). */
  logLevel: string | undefined;

  constructor(
    private readonly channel: ExchangeChannel,
    readonly version: string,
  ) {}

  request(method: string, params: Record<string, unknown> | undefined, options: ChannelRequestOptions, onId?: (id: RequestId) => void): Promise<RpcReply> {
    const meta = { ...((params?._meta as Record<string, unknown> | undefined) ?? {}), ...newEraEnvelope(this.version, this.logLevel) };
    // A new-era agent said what it can answer: the server is told no more than that (a question
    // the agent cannot answer is then the server's to refuse, with -32021, or not to ask). An
    // old-era agent's questions the gateway can always route (or a person answers): all of them.
    const agentCaps = (options.stamp as { agentCapabilities?: Record<string, unknown> }).agentCapabilities;
    if (agentCaps) meta[CLIENT_CAPABILITIES_META_KEY] = routableCapabilities(agentCaps);
    const forward = (options.stamp as { forwardHeaders?: Record<string, string> }).forwardHeaders;
    const headers = forward ? paramHeaders(forward) : undefined;
    return this.channel.request(method, { ...(params ?? {}), _meta: meta }, { ...options, ...(headers ? { headers } : {}) }, onId);
  }

  get inFlight(): number {
    return this.channel.inFlight;
  }
}

/** What of an agent's declared capabilities the gateway can route back to it. */
export function routableCapabilities(agent: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(GATEWAY_UPSTREAM_CAPABILITIES)) if (agent[key] !== undefined) out[key] = agent[key];
  return out;
}

/** Only `Mcp-Param-*` headers go upstream from an agent's request (never its auth or cookies). */
export function paramHeaders(headers: Record<string, string>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (/^mcp-param-/i.test(name)) out[name] = value;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The SDK v2 client seen through the subset of the client API the gateway uses. */
class V2ClientAdapter implements UpstreamClient {
  private readonly subscriptions = new Map<string, McpSubscription>();

  constructor(
    private readonly client: V2Client,
    private readonly port: NewEraPort,
  ) {}

  setLogLevel(level: string): void {
    this.port.logLevel = level;
  }

  /** One listen stream per subscribed resource; its updates come through the channel's routes. */
  async listenResource(uri: string): Promise<void> {
    if (this.subscriptions.has(uri)) return;
    this.subscriptions.set(uri, await this.client.listen({ resourceSubscriptions: [uri] }));
  }

  async unlistenResource(uri: string): Promise<void> {
    const sub = this.subscriptions.get(uri);
    this.subscriptions.delete(uri);
    await sub?.close();
  }

  request(req: { method: string; params?: Record<string, unknown> }, schema: unknown, options?: { timeout?: number; signal?: AbortSignal }): Promise<never> {
    return this.client.request(req as never, schema as never, options) as Promise<never>;
  }
  getServerCapabilities() {
    return this.client.getServerCapabilities() as ReturnType<UpstreamClient['getServerCapabilities']>;
  }
  getServerVersion() {
    return this.client.getServerVersion() as ReturnType<UpstreamClient['getServerVersion']>;
  }
  getInstructions() {
    return this.client.getInstructions();
  }
  /** The new era has no `ping`: liveness asks `server/discover`, which every new-era server must answer. */
  ping(options?: { timeout?: number }) {
    return this.client.discover(options);
  }
  close() {
    return this.client.close();
  }
}
