// A server's protocol era and version next to its id in the Servers view: the new era
// (2026-07-28, stateless) stands out, the old one (2025-11-25, sessions) is a quiet version
// number. The title says how the era was known: remembered from an earlier start (no probe),
// probed now (once), or learnt from this run's own handshake (a stdio server is never probed).
import { Badge } from '../../components/badge';
import { isNewEraVersion } from '../../lib/era';
import type { ServerStatus } from '../../state/types';

const HOW: Record<NonNullable<ServerStatus['era']>['how'], string> = {
  remembered: 'remembered from an earlier start: no probe this time',
  probed: 'found by one probe on this start, remembered for the next',
  handshake: "learnt from this run's own initialize answer",
};

export function EraBadge({ status }: { status: ServerStatus }) {
  const version = status.protocolVersion;
  if (!version) return null;
  const how = status.era ? `; ${HOW[status.era.how]}` : '';
  if (isNewEraVersion(version)) {
    return (
      <Badge tone="info" mono title={`MCP ${version}, the new era: stateless, no session${how}`}>
        {version} · new era
      </Badge>
    );
  }
  return (
    <Badge tone="neutral" mono title={`MCP ${version}, the old era: one session per connection${how}`}>
      {version}
    </Badge>
  );
}
