// The options a ManagedServer is built with, and what a run reports when it starts.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ServerSpec } from '../profiles/types';
import type { Redactor } from '../secrets/redactor';
import type { UpstreamOAuth } from '../auth/upstream-oauth';
import type { StderrBus, TrafficTap } from '../protocol/traffic-tap';
import type { ChannelRoutes } from '../protocol/exchange-channel';
import type { UpstreamEras } from './upstream-era';

export interface ManagedServerOptions {
  spec: ServerSpec;
  /** Launch session id, stamped on traffic and stderr. */
  session: string;
  workspace: string;
  redactor: Redactor;
  tap: TrafficTap;
  stderrBus: StderrBus;
  /** The PATH commands are searched on and servers get (see main/sandbox/shell-path.ts). */
  searchPath: string;
  hostEnv?: NodeJS.ProcessEnv;
  /** Entry of the built-in workspace tools server (out/tools-server.mjs). */
  toolsServerEntry?: string;
  /** Gatehouse's data directory: hidden from the server's sandbox. */
  dataDir?: string;
  /**
   * Builds the SDK client for each run. The gateway passes one that declares sampling,
   * elicitation and roots and routes those requests downstream. The supervisor owns the
   * `notifications/tools/list_changed` handler (it refreshes `tools()`); do not set it.
   */
  clientFactory?: (serverId: string) => Client;
  /** `auth: oauth` servers: the OAuth client the transport signs in with (main/auth/). */
  oauth?: UpstreamOAuth;
  /**
   * How the run's channel routes what arrives beneath the SDK client (the gateway's: a
   * server→client request opens an exchange; progress for a gateway token goes to its call).
   */
  channelRoutes?: (serverId: string, era?: 'old' | 'new') => ChannelRoutes;
  /** Shutdown grace periods: after stdin closes, then after SIGTERM. */
  stdinGraceMs?: number;
  termGraceMs?: number;
  /** Each server's protocol era, remembered across starts (upstream-era.ts); without it every HTTP server is old-era. */
  eras?: UpstreamEras;
  /** Paths the server's sandbox may never write (main/trust/protected-paths.ts). */
  protectedRead?: string[];
  /** Launch consent (main/trust/): a reason means "do not start", shown as the stopped reason. */
  startGate?: (spec: ServerSpec) => string | undefined;
}

export interface RunInfo {
  run: number;
  pid?: number;
  command: string;
  cwd?: string;
  startedAt: number;
  /** How the run's limits are enforced, one line ("cgroup v1 · 256 processes · 2 GiB"). */
  limits?: string;
}
