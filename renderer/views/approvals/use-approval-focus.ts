// Focus in a list of approval cards (the tray, the Approvals view's pending list), for people who
// answer by keyboard: when the focused card leaves (answered here or elsewhere, timed out), focus
// moves to the card that took its place, or, when none is left, to `onEmpty` (back where it was
// before the tray was entered); never to <body>, where the next request would wait unseen.
// J / K move between cards, E opens the card's exchange in Traffic, Esc leaves (`onLeave`).
import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import { useShortcuts } from '../../components/shortcuts';
import { navigate } from '../../state/nav-store';
import type { PendingApproval } from '../../state/types';

const CARD = '[data-approval-id]';

function cards(scope: HTMLElement | null): HTMLElement[] {
  return [...(scope?.querySelectorAll<HTMLElement>(CARD) ?? [])];
}

export function useApprovalFocus(scope: RefObject<HTMLElement | null>, pending: readonly PendingApproval[], opts: { onEmpty?: () => void; onLeave?: () => void } = {}): void {
  // Whether focus was last inside the list, and on which card: a removed element takes focus
  // with it without any focusout the list could see, so this is kept from focusin.
  const inside = useRef(false);
  const lastIndex = useRef(0);
  const onEmpty = useRef(opts.onEmpty);
  onEmpty.current = opts.onEmpty;

  useEffect(() => {
    const onFocusIn = (e: FocusEvent): void => {
      const el = scope.current;
      inside.current = Boolean(el && e.target instanceof Node && el.contains(e.target));
      if (!inside.current || !(e.target instanceof HTMLElement)) return;
      const card = e.target.closest<HTMLElement>(CARD);
      if (card) lastIndex.current = Math.max(0, cards(el).indexOf(card));
    };
    document.addEventListener('focusin', onFocusIn);
    return () => document.removeEventListener('focusin', onFocusIn);
  }, [scope]);

  useLayoutEffect(() => {
    const el = scope.current;
    if (!inside.current || !el) return;
    const active = document.activeElement;
    if (active && active !== document.body && el.contains(active)) return;
    const list = cards(el);
    const next = list[Math.min(lastIndex.current, list.length - 1)];
    if (next) next.focus();
    else if (onEmpty.current) onEmpty.current();
    else el.focus();
  }, [scope, pending]);

  const move = (e: KeyboardEvent, step: 1 | -1): void => {
    const list = cards(scope.current);
    const at = e.target instanceof HTMLElement ? list.indexOf(e.target.closest<HTMLElement>(CARD) as HTMLElement) : -1;
    const next = list[at < 0 ? 0 : Math.min(list.length - 1, Math.max(0, at + step))];
    next?.focus();
    next?.scrollIntoView({ block: 'nearest' });
  };
  useShortcuts(
    {
      j: (e) => move(e, 1),
      k: (e) => move(e, -1),
      e: (e) => {
        const id = e.target instanceof HTMLElement ? e.target.closest<HTMLElement>(CARD)?.dataset.approvalId : undefined;
        const exchange = pending.find((p) => p.id === id)?.exchange;
        if (exchange) navigate('traffic', { exchange });
      },
      ...(opts.onLeave ? { escape: opts.onLeave } : {}),
    },
    { scope },
  );
}
