// Opening an HTTP upstream's transport: Streamable HTTP, legacy SSE, or `auto` (the
// backwards-compatibility procedure of the MCP transports spec), signed in through the
// server's OAuth client when it has one. Kept apart from managed-server.ts, which supervises.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from '../profiles/types';
import type { UpstreamOAuth } from '../auth/upstream-oauth';
import type { UpstreamClient } from './types';

/** How often a ready HTTP upstream is pinged, and how long the ping may take. */
export const HTTP_HEARTBEAT_MS = 15_000;
export const HTTP_PING_TIMEOUT_MS = 5_000;

export type HttpSpec = Extract<ServerSpec, { kind: 'http' }>;

/** The transport for one run of an HTTP upstream (auto probes, then picks Streamable HTTP or SSE). */
export async function openHttpTransport(spec: HttpSpec, oauth: UpstreamOAuth | undefined): Promise<Transport> {
  const url = new URL(spec.url);
  const requestInit: RequestInit = { headers: spec.headers };
  // The signed-in token goes only upstream, from the provider; nothing of an agent's request does.
  const auth = oauth ? { authProvider: oauth, fetch: oauth.fetch } : {};
  if (spec.transport === 'sse') return new SSEClientTransport(url, { requestInit, ...auth });
  if (spec.transport === 'streamable-http') return new StreamableHTTPClientTransport(url, { requestInit, ...auth });
  // auto: the backwards-compatibility procedure of the MCP transports spec: POST an
  // InitializeRequest; a 4xx means a legacy SSE server. It must be `initialize`: a Streamable
  // HTTP server answers anything else without a session with 400, which is not "legacy".
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...spec.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'gatehouse-probe',
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'gatehouse-probe', version: '0.1.0' } },
      }),
      signal: AbortSignal.timeout(Math.min(spec.startupTimeoutMs, 10_000)),
    });
    await res.body?.cancel().catch(() => {});
    const probeSession = res.headers.get('mcp-session-id');
    if (probeSession) {
      // The probe opened a session of its own: end it (MCP transports › session management).
      await fetch(url, { method: 'DELETE', headers: { ...spec.headers, 'mcp-session-id': probeSession }, signal: AbortSignal.timeout(5_000) })
        .then((r) => r.body?.cancel())
        .catch(() => {});
    }
    if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403) {
      return new SSEClientTransport(url, { requestInit, ...auth });
    }
  } catch (err) {
    throw new Error(`cannot reach ${spec.url}: ${(err as Error).message}`);
  }
  return new StreamableHTTPClientTransport(url, { requestInit, ...auth });
}

/**
 * Liveness of an HTTP upstream: it has no process whose exit we would see, and the SDK's
 * transport never closes on its own, so a dead server only shows up as transport errors or
 * failed requests. `check` pings (one at a time); a ping that fails calls `lost`.
 */
export class HttpLiveness {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    private readonly ping: () => Promise<unknown>,
    private readonly lost: (why: string) => void,
  ) {}

  /**
   * Watches one run's client: an HTTP upstream has no process whose exit we would see, so a dead
   * server only shows up as transport errors (the SSE stream drops) or failed requests. A
   * transport error while `ready()` checks at once; `startHeartbeat` adds the slow ping.
   */
  static watch(client: UpstreamClient, transport: { onerror?: (error: Error) => void }, ready: () => boolean, lost: (why: string) => void): HttpLiveness {
    const liveness = new HttpLiveness(pingClient(client), lost);
    const onerror = transport.onerror;
    transport.onerror = (error) => {
      onerror?.(error);
      if (ready()) void liveness.check();
    };
    return liveness;
  }

  /** The slow heartbeat, from the moment the run is ready. */
  startHeartbeat(): void {
    this.timer = setInterval(() => void this.check(), HTTP_HEARTBEAT_MS);
    this.timer.unref();
  }

  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await this.ping();
    } catch (err) {
      this.lost(`connection lost: ${(err as Error).message}`);
    } finally {
      this.checking = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The ping an HttpLiveness uses for an SDK client. */
export function pingClient(client: UpstreamClient): () => Promise<unknown> {
  return () => client.ping({ timeout: HTTP_PING_TIMEOUT_MS });
}
