// `gatehouse tools spec`: MCP_TOOL_SPECIFICATION.md for the tools a launched profile's servers
// advertise, with the invocation names the gateway really uses (friendly and canonical).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { generateToolSpecMarkdown } from '../tools/spec-doc';
import { BUILTIN_TOOL_ERROR_TYPES, BUILTIN_TOOL_SECURITY_NOTES } from '../tools/workspace-tools';
import type { ServerSpec } from '../profiles/types';
import type { ServerStatus } from '../supervisor/types';
import type { Surface } from './tool-surface';
import { toAdvertised } from '../protocol/tool-names';

/** What the spec needs of a launch (the host's Launch has these; the core never imports the host). */
export interface ToolSpecSource {
  gateway: { currentSurface(): Surface };
  profile: { servers: readonly ServerSpec[] };
  supervisor: { get(id: string): { tools(): Tool[]; status(): ServerStatus } | undefined };
}

export function generateProfileToolSpec(launch: ToolSpecSource, onlyServer?: string): string {
  const surface = launch.gateway.currentSurface();
  const parts: string[] = [];
  for (const spec of launch.profile.servers) {
    if (onlyServer && spec.id !== onlyServer) continue;
    const server = launch.supervisor.get(spec.id);
    const tools = server?.tools() ?? [];
    const byUpstream = new Map(surface.tools.filter((t) => t.server === spec.id).map((t) => [t.upstreamName, t]));
    const status = server?.status();
    parts.push(
      generateToolSpecMarkdown({
        serverId: spec.id,
        serverName: status?.serverInfo?.name ?? spec.id,
        tools,
        canonicalName: (tool: Tool) => byUpstream.get(tool.name)?.canonical ?? `${spec.id}.${tool.name}`,
        friendlyName: (tool: Tool) => {
          const t = byUpstream.get(tool.name);
          const canonicalAdv = toAdvertised(t?.canonical ?? `${spec.id}.${tool.name}`);
          return t?.advertised.find((n) => n !== canonicalAdv) ?? canonicalAdv;
        },
        // The built-ins document their confinement rules; upstream tools only what annotations say.
        securityNotes: spec.kind === 'builtin' ? BUILTIN_TOOL_SECURITY_NOTES : undefined,
        errorTypes: spec.kind === 'builtin' ? BUILTIN_TOOL_ERROR_TYPES : undefined,
      }),
    );
  }
  return parts.join('\n\n');
}
