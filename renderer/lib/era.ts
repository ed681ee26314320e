// The protocol eras as the window shows them: the new era is MCP 2026-07-28 and later
// (stateless, `server/discover`, input_required); the old one 2025-11-25 and before (sessions).
// renderer/ cannot import main/: the gateway's own rule is in main/gateway/era.ts.

export const NEW_ERA_FIRST = '2026-07-28';

/** True for a protocol version of the new era (ISO dates compare as strings). */
export function isNewEra(version: string | undefined): boolean {
  return typeof version === 'string' && version >= NEW_ERA_FIRST;
}

/** Which side of an exchange spoke the new era: the agent's request, the server, both, or neither. */
export function newEraSides(info: { agentEra?: string; upstreamEra?: string }): 'agent' | 'server' | 'both' | undefined {
  const agent = isNewEra(info.agentEra);
  const server = isNewEra(info.upstreamEra);
  return agent && server ? 'both' : agent ? 'agent' : server ? 'server' : undefined;
}
