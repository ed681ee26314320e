// What the FIAM export knows about a launched workspace, gathered in one plain object so the
// builder (build-fiam.ts) is a pure function: the profile, each server as it answered
// `initialize` and `tools/list`, the gateway's own surface and endpoints, the agent sessions.
// Secrets never get here in clear: commands, URLs and arguments pass the profile's redactor.
import type { ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile } from '../profiles/types';
import type { Gateway } from '../gateway/gateway';
import type { Supervisor } from '../supervisor/supervisor';
import type { Observations } from './observations';

export interface ModelServer {
  id: string;
  kind: 'stdio' | 'http' | 'builtin';
  description?: string;
  /** stdio/builtin: the command line (redacted); http: the URL (redacted). */
  address: string;
  /** http only: how it is spoken to (`auto` tries Streamable HTTP, then legacy SSE). */
  httpTransport?: 'auto' | 'streamable-http' | 'sse';
  state: string;
  serverInfo?: { name: string; version: string; title?: string };
  protocolVersion?: string;
  capabilities?: ServerCapabilities;
  tools: Tool[];
  /** Canonical name → names the gateway advertises it under. */
  advertised: Record<string, string[]>;
}

export interface ModelAgentSession {
  id: string;
  transport: string;
  client?: { name: string; version?: string };
  terminal?: string;
}

export interface ModelInput {
  profile: { name: string; file: string; workspace: string; description?: string };
  toolSurface: string;
  /** The gateway's Streamable HTTP URL when this launch serves one (127.0.0.1 only). */
  gatewayUrl?: string;
  /** True when agents reach the gateway over stdio (`gatehouse gateway`). */
  gatewayStdio: boolean;
  /** The MCP protocol revision the gateway answers `initialize` with. */
  gatewayProtocolVersion: string;
  servers: ModelServer[];
  agentSessions: ModelAgentSession[];
  observations?: Observations;
  /** When the model was made (ISO), for the instance block. */
  generatedAt: string;
}

/** What the export reads from a launch (host.ts's Launch has it; core never imports host.ts). */
export interface LaunchFacts {
  readonly profile: ResolvedProfile;
  readonly supervisor: Supervisor;
  readonly gateway: Gateway;
  readonly endpoint?: { readonly url: string } | undefined;
}

/** The declared facts of a running launch (what its servers answered, what its gateway serves). */
export function modelInputFromLaunch(
  launch: LaunchFacts,
  opts: { gatewayStdio?: boolean; protocolVersion: string; now?: Date },
): ModelInput {
  const profile: ResolvedProfile = launch.profile;
  const surface = launch.gateway.currentSurface();
  const statuses = new Map(launch.supervisor.statuses().map((s) => [s.id, s]));
  const servers: ModelServer[] = profile.servers
    .filter((spec) => !spec.disabled)
    .map((spec) => {
      const status = statuses.get(spec.id);
      const managed = launch.supervisor.get(spec.id);
      const advertised: Record<string, string[]> = {};
      for (const t of surface.tools) if (t.server === spec.id) advertised[t.canonical] = [...t.advertised];
      const server: ModelServer = {
        id: spec.id,
        kind: spec.kind,
        address: profile.redactor.redactString(spec.kind === 'http' ? spec.url : (status?.command ?? spec.id)),
        state: status?.state ?? 'stopped',
        // What the servers sent is redacted like their traffic: a configured secret in a tool
        // description or in serverInfo never reaches the exported file in clear.
        tools: profile.redactor.redactJson(managed?.tools() ?? []),
        advertised,
      };
      if (spec.description !== undefined) server.description = spec.description;
      if (spec.kind === 'http') server.httpTransport = spec.transport;
      if (status?.serverInfo) server.serverInfo = profile.redactor.redactJson({ name: status.serverInfo.name, version: status.serverInfo.version, ...(status.serverInfo.title ? { title: status.serverInfo.title } : {}) });
      if (status?.protocolVersion) server.protocolVersion = status.protocolVersion;
      if (status?.capabilities) server.capabilities = profile.redactor.redactJson(status.capabilities);
      return server;
    });
  const agentSessions = launch.gateway
    .agentSessions()
    .filter((a) => a.transport !== 'console')
    .map((a) => ({
      id: a.id,
      transport: a.transport,
      ...(a.client ? { client: { name: a.client.name, version: a.client.version } } : {}),
      ...(a.terminal ? { terminal: a.terminal } : {}),
    }));
  return {
    profile: { name: profile.name, file: profile.file, workspace: profile.workspace, ...(profile.description ? { description: profile.description } : {}) },
    toolSurface: profile.toolSurface,
    ...(launch.endpoint ? { gatewayUrl: launch.endpoint.url } : {}),
    gatewayStdio: opts.gatewayStdio ?? false,
    gatewayProtocolVersion: opts.protocolVersion,
    servers,
    agentSessions,
    generatedAt: (opts.now ?? new Date()).toISOString(),
  };
}
