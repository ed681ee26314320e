// The Approvals view: the pending queue with room to read long arguments, and what was
// decided recently (answers, timeouts and policy decisions), newest first.
import { useMemo, useRef, useState } from 'react';
import { Bell, ShieldCheck } from 'lucide-react';
import { Badge, toneFor } from '../../components/badge';
import { Button } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { Timestamp } from '../../components/timestamp';
import { useAppState } from '../../state/app-context';
import { InboxNotices } from './inbox-notices';
import { navigate } from '../../state/nav-store';
import { useStore } from '../../state/store';
import { ApprovalCard } from './approval-card';
import { SessionGrantsPanel } from './session-grants-panel';
import { useAnswerApproval, useApprovalKeys } from './use-answer';
import { useApprovalFocus } from './use-approval-focus';
import type { NotifyPermission } from './notify';
import { Visible } from './argument-list';

export function ApprovalsView({ permission, onEnableNotifications }: { permission: NotifyPermission; onEnableNotifications: () => void }) {
  const { approvals, decisions } = useAppState();
  const { pending, answering, history } = useStore(approvals);
  const recentDecisions = useStore(decisions);
  const answer = useAnswerApproval();
  const pendingRef = useRef<HTMLElement>(null);
  useApprovalKeys(pendingRef, pending, answer);
  useApprovalFocus(pendingRef, pending);
  const [tab, setTab] = useState<'answers' | 'decisions'>('answers');
  const decisionRows = useMemo(() => recentDecisions.slice(0, 200), [recentDecisions]);

  return (
    <div className="view view-approvals">
      <PageHeader
        title="Approvals"
        subtitle={pending.length ? `${pending.length} waiting, oldest first. Unanswered requests are denied at their deadline.` : 'Calls that need a person appear here and in the tray.'}
        actions={
          permission === 'default' ? (
            <Button icon={<Bell size={14} />} onClick={onEnableNotifications}>
              Notify me when the window is in the background
            </Button>
          ) : permission === 'granted' ? (
            <Badge tone="ok">desktop notifications on</Badge>
          ) : permission === 'denied' ? (
            <Badge tone="warn" title="Allow notifications for this app in your system or browser settings">desktop notifications blocked</Badge>
          ) : null
        }
      />
      <div className="view-body scroll">
        <InboxNotices />
        <section aria-label="Pending approvals" className="approvals-pending" ref={pendingRef} tabIndex={-1}>
          {pending.length === 0 ? (
            <EmptyState icon={<ShieldCheck size={28} />} title="Nothing waits for you">
              Tool calls that the profile's policy marks <b>approval</b> show up here the moment an agent makes them.
            </EmptyState>
          ) : (
            <div className="approvals-grid">
              {pending.map((r, i) => (
                <ApprovalCard key={r.id} request={r} position={i + 1} total={pending.length} answering={answering.has(r.id)} onAnswer={(c, content, narrow) => void answer(r, c, content, narrow)} onOpenExchange={(exchange) => navigate('traffic', { exchange })} />
              ))}
            </div>
          )}
        </section>

        <SessionGrantsPanel refreshKey={history.length} />

        <section aria-label="Recent decisions" className="approvals-history">
          <div className="section-head">
            <h2 className="section-title">Recent</h2>
            <div className="segmented" role="radiogroup" aria-label="Show">
              <button type="button" role="radio" aria-checked={tab === 'answers'} className={tab === 'answers' ? 'is-on' : ''} onClick={() => setTab('answers')}>
                Answers ({history.length})
              </button>
              <button type="button" role="radio" aria-checked={tab === 'decisions'} className={tab === 'decisions' ? 'is-on' : ''} onClick={() => setTab('decisions')}>
                Policy decisions ({decisionRows.length})
              </button>
            </div>
          </div>
          {tab === 'answers' ? (
            history.length === 0 ? (
              <p className="muted pad">No answers in this window yet.</p>
            ) : (
              <table className="table">
                <thead>
                  <tr><th>Time</th><th>Tool</th><th>Server</th><th>Outcome</th><th>How</th><th>Reason</th></tr>
                </thead>
                <tbody>
                  {history.map((h) => (
                    <tr key={h.request.id}>
                      <td><Timestamp ts={h.at} /></td>
                      <td className="mono"><Visible text={h.request.tool} oneLine /></td>
                      <td>{h.request.server}</td>
                      <td><Badge tone={h.outcome.approved ? 'ok' : 'danger'}>{h.request.question !== undefined ? (h.outcome.approved ? 'answered' : 'declined') : h.outcome.approved ? 'allowed' : 'denied'}</Badge></td>
                      <td>{h.outcome.how}{h.outcome.by ? <span className="muted"> {answeredBy(h.outcome.by)}</span> : null}</td>
                      <td className="cell-wrap">{h.outcome.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          ) : decisionRows.length === 0 ? (
            <p className="muted pad">No policy decisions in this window yet.</p>
          ) : (
            <table className="table">
              <thead>
                <tr><th>Time</th><th>Tool</th><th>Server</th><th>Decision</th><th>Outcome</th><th>Reason</th><th>Exchange</th></tr>
              </thead>
              <tbody>
                {decisionRows.map((d) => (
                  <tr key={`${d.exchange}-${d.ts}`}>
                    <td><Timestamp ts={d.ts} /></td>
                    <td className="mono"><Visible text={d.tool} oneLine />{d.advertisedName && d.advertisedName !== d.tool ? <span className="muted"> (<Visible text={d.advertisedName} oneLine />)</span> : null}</td>
                    <td>{d.server}</td>
                    <td><Badge tone={toneFor(d.decision)}>{d.decision}</Badge></td>
                    <td>{d.outcome}</td>
                    <td className="cell-wrap">{d.reason}</td>
                    <td>
                      <button type="button" className="link mono" onClick={() => navigate('traffic', { exchange: d.exchange })} aria-label={`Show exchange ${d.exchange} in Traffic`}>
                        {d.exchange}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </div>
  );
}

/** The host names its answerers by channel ('ui', 'tty'); a person reads where the answer came from. */
const ANSWERER: Record<string, string> = { ui: 'in the window', tty: 'in the terminal prompt' };
function answeredBy(by: string): string {
  return ANSWERER[by] ?? `by ${by}`;
}
