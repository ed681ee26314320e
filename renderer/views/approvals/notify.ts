// Desktop notifications for approval requests while the window is not focused. Permission is
// only ever asked from a click (browsers ignore or penalise asking on load).
import { showHidden } from '../../../common/visible-text';
import type { PendingApproval } from '../../state/types';
import { cardTitleText } from './card-text';

export type NotifyPermission = 'granted' | 'denied' | 'default' | 'unsupported';

export function notificationPermission(): NotifyPermission {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.permission;
}

/** Must be called from a user gesture. */
export async function requestNotificationPermission(): Promise<NotifyPermission> {
  if (typeof Notification === 'undefined') return 'unsupported';
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

export function notifyApproval(req: PendingApproval, onClick: () => void): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  if (typeof document !== 'undefined' && document.hasFocus()) return;
  const what = req.kind === 'sampling' ? 'Sampling request' : req.kind === 'elicitation' ? 'Elicitation request' : 'Approval needed';
  // The names come from the agent or a server: hidden characters and line breaks written out (card-text.ts).
  const n = new Notification(`${what}: ${cardTitleText(req)}`, {
    body: `${req.server} · ${showHidden(req.reason, { oneLine: true })}`,
    tag: `gatehouse-approval-${req.id}`,
    requireInteraction: true,
  });
  n.onclick = () => {
    globalThis.focus?.();
    onClick();
    n.close();
  };
}
