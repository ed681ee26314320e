// The "2026" tag on a Traffic row whose exchange spoke the new protocol era on one side or both:
// a new-era agent's request, a call to a new-era server, or both. Its title says which, and what
// that means for reading the row (no session; questions come as input_required rounds).
const TITLE: Record<'agent' | 'server' | 'both', string> = {
  agent: 'The agent spoke MCP 2026-07-28 (stateless); the server the old era',
  server: 'The server speaks MCP 2026-07-28 (stateless): its questions come back as input_required rounds',
  both: 'Agent and server both spoke MCP 2026-07-28 (stateless)',
};

export function EraTag({ sides }: { sides: 'agent' | 'server' | 'both' | undefined }) {
  if (!sides) return null;
  return (
    <span className="traffic-tag traffic-tag-era" title={TITLE[sides]} aria-label={`new era: ${TITLE[sides]}`}>
      2026{sides === 'both' ? '' : sides === 'agent' ? ' A' : ' S'}
    </span>
  );
}
