// The OS sandbox of one server, next to its id in the Servers view: nothing when it is confined as
// usual (strict, no network), a quiet note for network access, and a warning for `sandbox: off`,
// which runs the process with everything the user can reach (docs/sandbox.md). A reduced kind
// (landlock where bubblewrap cannot create namespaces, seatbelt on macOS) is never silent: its
// badge carries what that kind could not enforce for this server, one line each.
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
  const reduced = sandbox.kind === 'landlock' || sandbox.kind === 'seatbelt' ? <ReducedBadge kind={sandbox.kind} unenforced={sandbox.unenforced ?? []} /> : null;
  if (sandbox.network === 'none') return reduced;
  return (
    <>
      {reduced}
      {reduced ? ' ' : null}
      <Badge tone="neutral" title={`Sandbox: ${sandbox.summary}`}>
        net: {sandbox.network}
      </Badge>
    </>
  );
}

function ReducedBadge({ kind, unenforced }: { kind: string; unenforced: string[] }) {
  return (
    <Badge tone="info" title={[`Sandbox: ${kind} (reduced). Not enforced:`, ...unenforced.map((l) => `• ${l}`)].join('\n')}>
      {kind}: reduced
    </Badge>
  );
}

/** The server's sandbox in its details: the kind that ran it and, for a reduced kind, what it could not enforce. */
export function SandboxDetails({ id, sandbox }: { id: string; sandbox: ServerStatus['sandbox'] }) {
  if (!sandbox) return null;
  const unenforced = sandbox.mode === 'off' ? [] : (sandbox.unenforced ?? []);
  return (
    <div className="detail-block">
      <div className="section-label">Sandbox</div>
      <p>
        {sandbox.kind ? <span className="mono">{sandbox.kind}</span> : null}
        {sandbox.kind ? ' · ' : null}
        {sandbox.summary}
        {sandbox.limits ? <span className="muted"> · limits {sandbox.limits}</span> : null}
      </p>
      {unenforced.length ? (
        <ul aria-label={`Not enforced for ${id}`}>
          {unenforced.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
