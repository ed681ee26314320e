// The servers of one launched profile. Starts them in parallel, forwards their events, and
// stops them all (in parallel, each following the MCP shutdown sequence) when asked.
import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile, ServerSpec } from '../profiles/types';
import type { UpstreamOAuth } from '../auth/upstream-oauth';
import type { StderrBus, TrafficTap } from '../protocol/traffic-tap';
import type { ChannelRoutes } from '../protocol/exchange-channel';
import { appRoot, toolsServerEntry } from '../paths';
import { ManagedServer, type RunInfo } from './managed-server';
import { resolveSearchPath } from '../sandbox/shell-path';
import type { ExitInfo, ServerStatus } from './types';
import { UpstreamEras } from './upstream-era';

export interface SupervisorOptions {
  session: string;
  tap: TrafficTap;
  stderrBus: StderrBus;
  hostEnv?: NodeJS.ProcessEnv;
  clientFactory?: (serverId: string) => Client;
  /** The OAuth client of an `auth: oauth` server (main/auth/auth-manager.ts). */
  oauthFor?: (spec: ServerSpec) => UpstreamOAuth | undefined;
  channelRoutes?: (serverId: string, era?: 'old' | 'new') => ChannelRoutes;
  stdinGraceMs?: number;
  termGraceMs?: number;
  /** Launch consent, asked before each start (main/trust/trust-guard.ts). */
  startGate?: (spec: ServerSpec) => string | undefined;
  /** Paths no server's sandbox may write (main/trust/protected-paths.ts), computed once per launch. */
  protectedRead?: string[];
  /** Where upstream eras are remembered (default: `<data dir>/upstream-eras.json`). */
  eras?: UpstreamEras;
}

type Events = {
  status: [ServerStatus];
  /** A server's tools and the `instructions` of the run that listed them (pinned together: main/trust/tool-definition.ts). */
  tools: [string, Tool[], string | undefined];
  'run-started': [string, RunInfo];
  'run-ended': [string, RunInfo, ExitInfo];
};

export class Supervisor extends EventEmitter<Events> {
  readonly servers = new Map<string, ManagedServer>();
  private searchPath: string | undefined;
  /** Each server's protocol era, remembered in the data dir across launches (upstream-era.ts). */
  private readonly eras: UpstreamEras;

  constructor(
    readonly profile: ResolvedProfile,
    private readonly opts: SupervisorOptions,
  ) {
    super();
    this.eras = opts.eras ?? new UpstreamEras(profile.dataDir);
  }

  /** Resolves the PATH, creates every server and starts them; resolves when all have settled. */
  async startAll(): Promise<void> {
    this.searchPath ??= await resolveSearchPath({
      env: this.opts.hostEnv,
      extraDirs: [path.join(appRoot(), 'node_modules', '.bin')],
    });
    for (const spec of this.profile.servers) {
      if (this.servers.has(spec.id)) continue;
      const server = new ManagedServer({
        spec,
        session: this.opts.session,
        workspace: this.profile.workspace,
        redactor: this.profile.redactor,
        tap: this.opts.tap,
        stderrBus: this.opts.stderrBus,
        searchPath: this.searchPath,
        hostEnv: this.opts.hostEnv,
        toolsServerEntry: toolsServerEntry(),
        dataDir: this.profile.dataDir,
        eras: this.eras,
        clientFactory: this.opts.clientFactory,
        oauth: this.opts.oauthFor?.(spec),
        channelRoutes: this.opts.channelRoutes,
        stdinGraceMs: this.opts.stdinGraceMs,
        termGraceMs: this.opts.termGraceMs,
        startGate: this.opts.startGate,
        protectedRead: this.opts.protectedRead,
      });
      server.on('status', (s) => this.emit('status', s));
      server.on('tools', (t, instructions) => this.emit('tools', spec.id, t, instructions));
      server.on('run-started', (r) => this.emit('run-started', spec.id, r));
      server.on('run-ended', (r, e) => this.emit('run-ended', spec.id, r, e));
      this.servers.set(spec.id, server);
    }
    await Promise.all([...this.servers.values()].map((s) => s.start()));
  }

  get(id: string): ManagedServer | undefined {
    return this.servers.get(id);
  }

  statuses(): ServerStatus[] {
    return [...this.servers.values()].map((s) => s.status());
  }

  async stopAll(reason = 'profile stopped'): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.stop(reason)));
  }
}
