// Right after a launch, what to do with it: connect an agent (the configurations to paste) or
// try a tool by hand in the Tool console. Dismissible; it names the launch it is about, and stays
// (across views) until dismissed or that launch stops.
import { Plug, Wrench } from 'lucide-react';
import { IconButton } from '../../components/button';
import { navigate } from '../../state/nav-store';
import { Store } from '../../state/store';

/** The launch the panel is about, set when this window launched it. */
export const nextStepsStore = new Store<{ launchId: string; profile: string } | null>(null);

export function NextSteps({ profile, onDismiss }: { profile: string; onDismiss: () => void }) {
  return (
    <section className="card next-steps" aria-label="Next steps">
      <div className="next-steps-body">
        <h2 className="next-steps-title">{profile} is running. Next:</h2>
        <ul className="next-steps-list">
          <li>
            <button type="button" className="link" onClick={() => navigate('connect')}>
              <Plug size={14} aria-hidden="true" /> Connect an agent
            </button>
            <span className="muted"> — a ready-to-paste configuration for Claude Code, Cursor, VS Code and others, or a terminal with the agent wired in.</span>
          </li>
          <li>
            <button type="button" className="link" onClick={() => navigate('tools')}>
              <Wrench size={14} aria-hidden="true" /> Open the Tool console
            </button>
            <span className="muted"> — call a tool yourself and watch the policy and approvals work.</span>
          </li>
        </ul>
      </div>
      <IconButton label="Dismiss next steps" icon={<span aria-hidden="true">×</span>} onClick={onDismiss} />
    </section>
  );
}
