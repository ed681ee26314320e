// Trust decisions from the audit store (docs/trust.md): who approved or kept stopped a launch
// command, which tool definitions were pinned, held, accepted or rejected, with the hashes.
import { RefreshCw } from 'lucide-react';
import { Badge } from '../../components/badge';
import { IconButton } from '../../components/button';
import { Timestamp } from '../../components/timestamp';
import { useCommand } from '../../components/use-command';

const TONE: Record<string, 'ok' | 'warn' | 'danger' | 'neutral' | 'info'> = {
  approved: 'ok',
  accepted: 'ok',
  pinned: 'info',
  held: 'warn',
  kept_stopped: 'danger',
  rejected: 'danger',
  quarantined: 'warn',
};

const short = (h: string | undefined) => (h ? h.slice(0, 10) : '—');

export function TrustDecisions() {
  const state = useCommand('audit:trust', { limit: 500 });
  const rows = [...(state.data ?? [])].reverse();
  return (
    <section className="audit-result scroll" aria-label="Trust decisions">
      <div className="section-head">
        <h2 className="section-title">Trust decisions</h2>
        <span className="spacer" />
        <IconButton label="Reload trust decisions" icon={<RefreshCw size={14} />} variant="ghost" onClick={state.reload} />
      </div>
      {rows.length === 0 ? (
        <p className="muted">{state.loading ? 'Loading…' : 'No trust decisions recorded yet.'}</p>
      ) : (
        <table className="table" aria-label="Trust decisions">
          <thead>
            <tr>
              <th>When</th>
              <th>Profile</th>
              <th>Server / tool</th>
              <th>Decision</th>
              <th>By</th>
              <th>Hash</th>
              <th>What changed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.seq}>
                <td><Timestamp ts={d.ts} /></td>
                <td>{d.profile}</td>
                <td className="mono">{d.tool ? `${d.server ?? ''}.${d.tool}` : (d.server ?? '—')}</td>
                <td><Badge tone={TONE[d.action] ?? 'neutral'}>{d.action.replace('_', ' ')}</Badge> <span className="muted small">{d.kind}</span></td>
                <td>{d.by}</td>
                <td className="mono small" title={`${d.oldHash ?? '—'} → ${d.newHash ?? '—'}`}>{d.oldHash ? `${short(d.oldHash)} → ` : ''}{short(d.newHash)}</td>
                <td className="small">{[d.changed, ...(d.flags ?? []).map((f) => f.kind)].filter(Boolean).join(' · ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
