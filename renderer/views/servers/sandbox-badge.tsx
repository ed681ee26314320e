// The OS sandbox of one server, next to its id in the Servers view: nothing when it is confined as
// usual (strict, no network), a quiet note for network access, and a warning for `sandbox: off`,
// which runs the process with everything the user can reach (docs/sandbox.md).
import { Badge } from '../../components/badge';
import type { ServerStatus } from '../../state/types';

export function SandboxBadge({ sandbox }: { sandbox: ServerStatus['sandbox'] }) {
  if (!sandbox) return null;
  if (sandbox.mode === 'off') {
    return (
      <Badge tone="warn" title={`Not sandboxed: ${sandbox.summary}`}>
        unsandboxed
      </Badge>
    );
  }
  if (sandbox.network === 'none') return null;
  return (
    <Badge tone="neutral" title={`Sandbox: ${sandbox.summary}`}>
      net: {sandbox.network}
    </Badge>
  );
}
