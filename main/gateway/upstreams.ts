// The launch's servers as the gateway's parts reach them (ServerDirectory, ports.ts): the channel a
// call is forwarded on, what a server's state says when it is not there, the start-up barrier a
// first tools/list waits behind, the capabilities a new session declares, and the lifecycle
// requests (subscriptions) sent through each server's SDK client. The supervisor is attached
// once it exists (Gateway.attach); before that no server is part of the launch yet.
import { ErrorCode, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile } from '../profiles/types';
import type { ManagedServer } from '../supervisor/managed-server';
import type { Supervisor } from '../supervisor/supervisor';
import { LooseResult } from './catalog';
import { GatewayError, passThroughError } from './errors';
import type { ServerDirectory, UpstreamLookup } from './ports';

export class Upstreams implements ServerDirectory {
  private current: Supervisor | undefined;
  private startWaiters = new Set<() => void>();

  /**
   * `startGraceMs`: how long a first tools/list may wait for servers on their first start;
   * `stragglerMs`: once one is ready, how long it still waits for the others (firstStarts).
   */
  constructor(
    private readonly profile: ResolvedProfile,
    private readonly startGraceMs: number,
    private readonly stragglerMs: number,
  ) {}

  get supervisor(): Supervisor | undefined {
    return this.current;
  }

  attach(supervisor: Supervisor): void {
    this.current = supervisor;
    supervisor.on('status', (s) => {
      if (s.state !== 'starting') for (const w of [...this.startWaiters]) w();
    });
  }

  /** Servers on their first start (never ready yet, not yet failed once). */
  startingServers(): number {
    if (!this.current) return 0;
    let n = 0;
    for (const spec of this.profile.servers) {
      if (spec.disabled) continue;
      // Not created yet: the supervisor is still finding the PATH it starts servers on.
      const server = this.current.get(spec.id);
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
    for (const server of this.current?.servers.values() ?? []) {
      const c = server.status().capabilities;
      if (!c) continue;
      if (c.prompts) caps.prompts = { listChanged: true };
      if (c.resources) caps.resources = { listChanged: true, subscribe: caps.resources?.subscribe || !!c.resources.subscribe };
      if (c.completions) caps.completions = {};
    }
    return caps;
  }

  upstream(serverId: string): UpstreamLookup {
    const upstream = this.current?.get(serverId);
    const port = upstream?.port;
    if (!upstream || !port) return { unavailable: this.unavailableReason(serverId, upstream) };
    return { port, timeoutMs: upstream.spec.requestTimeoutMs, era: upstream.negotiatedVersion };
  }

  describeServer(serverId: string): string {
    const s = this.current?.get(serverId)?.status();
    return s ? `${s.state} (${s.reason})` : 'not part of this launch';
  }

  /** Why `serverId` has no SDK client to send to (the capabilities report's `server_unavailable`); undefined when it has one. */
  clientUnavailable(serverId: string): string | undefined {
    const upstream = this.current?.get(serverId);
    return upstream?.upstreamClient ? undefined : this.unavailableReason(serverId, upstream);
  }

  async lifecycleRequest(serverId: string, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const upstream = this.current?.get(serverId);
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

  private unavailableReason(serverId: string, upstream: ManagedServer | undefined): string {
    if (!upstream) return `server '${serverId}' is not part of this launch`;
    const s = upstream.status();
    return `server '${serverId}' is unavailable: ${s.state} (${s.reason})`;
  }
}
