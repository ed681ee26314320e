// The protocol eras as the window shows them: the new era is MCP 2026-07-28 (stateless,
// `server/discover`, input_required); the old one 2025-11-25 and before (sessions). Which
// versions are new is the gateway's own rule, common/protocol-era.ts.
import { isNewEraVersion } from '../../common/protocol-era';

export { isNewEraVersion } from '../../common/protocol-era';

/** Which side of an exchange spoke the new era: the agent's request, the server, both, or neither. */
export function newEraSides(info: { agentEra?: string; upstreamEra?: string }): 'agent' | 'server' | 'both' | undefined {
  const agent = isNewEraVersion(info.agentEra);
  const server = isNewEraVersion(info.upstreamEra);
  return agent && server ? 'both' : agent ? 'agent' : server ? 'server' : undefined;
}
