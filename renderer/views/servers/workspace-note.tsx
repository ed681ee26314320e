// The launch's workspace in the Servers header, saying when it was defaulted (a profile without
// `workspace:` works in its own folder, or, for `--profile FILE`, in the current directory).
import type { LaunchSummary } from '../../state/types';

const DEFAULTED: Record<string, string> = {
  'profile-folder': "the profile's folder (no workspace: in the profile)",
  cwd: 'the current directory (no workspace: in the profile)',
};

export function WorkspaceNote({ launch }: { launch: Pick<LaunchSummary, 'workspace' | 'workspaceSource'> }) {
  const why = launch.workspaceSource ? DEFAULTED[launch.workspaceSource] : undefined;
  return (
    <span className="workspace-note" title={why ? `Defaulted to ${why}` : 'Set by the profile'}>
      workspace <code className="mono">{launch.workspace}</code>
      {why ? <span className="muted"> · defaulted to {why}</span> : null}
    </span>
  );
}
