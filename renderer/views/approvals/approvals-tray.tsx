// The persistent approvals tray: a right-hand drawer beside the current view (never over it),
// so the traffic that led to a request stays visible while a person answers it.
// Keys while focus is in the tray: A allow once, S allow for session, D deny, T allow the tool
// for the session; they apply to the focused card, else to the oldest. J / K move between cards,
// E opens the card's exchange, Esc goes back where focus was (use-approval-focus.ts).
import { useRef } from 'react';
import { Bell, BellOff, PanelRightClose, ShieldCheck } from 'lucide-react';
import { Button, IconButton } from '../../components/button';
import { Kbd } from '../../components/kbd';
import { shortcutLabel } from '../../components/shortcuts';
import { useAppState } from '../../state/app-context';
import { navigate } from '../../state/nav-store';
import { useStore } from '../../state/store';
import { ApprovalCard } from './approval-card';
import { useAnswerApproval, useApprovalKeys } from './use-answer';
import { useApprovalFocus } from './use-approval-focus';
import type { NotifyPermission } from './notify';

export function ApprovalsTray({ onClose, onLeave, permission, onEnableNotifications }: { onClose: () => void; /** Esc, or the last card answered: focus back where it was. */ onLeave?: () => void; permission: NotifyPermission; onEnableNotifications: () => void }) {
  const { approvals } = useAppState();
  const { pending, answering } = useStore(approvals);
  const answer = useAnswerApproval();
  const ref = useRef<HTMLElement>(null);

  useApprovalKeys(ref, pending, answer);
  useApprovalFocus(ref, pending, { onEmpty: onLeave, onLeave });

  return (
    <aside className="tray" aria-label="Approvals tray" ref={ref} tabIndex={-1}>
      <header className="tray-head">
        <ShieldCheck size={16} aria-hidden="true" />
        <h2 className="tray-title">Approvals</h2>
        <span className="tray-count" aria-live="polite">{pending.length ? `${pending.length} pending` : 'none pending'}</span>
        <span className="spacer" />
        {permission === 'default' ? (
          <IconButton label="Enable desktop notifications" icon={<Bell size={15} />} onClick={onEnableNotifications} />
        ) : permission === 'denied' ? (
          <span title="Desktop notifications are blocked for this app" className="muted"><BellOff size={15} aria-label="Desktop notifications blocked" /></span>
        ) : null}
        <IconButton label="Hide approvals tray" icon={<PanelRightClose size={15} />} onClick={onClose} />
      </header>
      {pending.length > 0 ? (
        <p className="tray-hint">
          <span><Kbd>A</Kbd> once</span>
          {pending.some((p) => !p.perCall) ? <span><Kbd>S</Kbd> session</span> : null}
          <span><Kbd>D</Kbd> deny</span>
          <span><Kbd>J</Kbd>/<Kbd>K</Kbd> next/prev</span>
          <span className="spacer" />
          <span title="Move the focus into the tray">focus <Kbd>{shortcutLabel('alt+a')}</Kbd></span>
        </p>
      ) : null}
      <div className="tray-list">
        {pending.length === 0 ? (
          <div className="tray-empty">
            <ShieldCheck size={28} aria-hidden="true" />
            <p>Nothing waits for you.</p>
            <p className="muted">Calls that need a person appear here at once, oldest first.</p>
          </div>
        ) : (
          pending.map((r, i) => (
            <ApprovalCard
              key={r.id}
              request={r}
              position={i + 1}
              total={pending.length}
              answering={answering.has(r.id)}
              onAnswer={(choice, content, narrow) => void answer(r, choice, content, narrow)}
              onOpenExchange={(exchange) => navigate('traffic', { exchange })}
              compact
            />
          ))
        )}
      </div>
      {pending.length > 0 ? (
        <footer className="tray-foot">
          <Button size="sm" variant="ghost" onClick={() => navigate('approvals')}>
            Open Approvals view
          </Button>
        </footer>
      ) : null}
    </aside>
  );
}
