import { useCallback, type RefObject } from 'react';
import { useShortcuts } from '../../components/shortcuts';
import { CHOICE_KEYS } from './approval-card';
import { cardTitleText } from './card-text';
import { questionKeyChoice } from './question';
import type { CommandInput } from '../../../common/host-api';

/** Checked by the host against the request's question (main/approvals/questions.ts). */
type AnswerContent = CommandInput<'approvals:answer'>['content'];
import { useHostApi } from '../../api/context';
import { useToast } from '../../components/toasts';
import { useAppState } from '../../state/app-context';
import type { ApprovalChoice, PendingApproval } from '../../state/types';

/** Sends an answer; the card leaves when the host reports `approval:resolved`. */
export function useAnswerApproval(): (req: PendingApproval, choice: ApprovalChoice, content?: Record<string, unknown>, narrow?: { arg: string; pattern: string }) => Promise<void> {
  const api = useHostApi();
  const { approvals } = useAppState();
  const toast = useToast();
  return useCallback(
    async (req, choice, content, narrow) => {
      if (approvals.get().answering.has(req.id)) return;
      approvals.setAnswering(req.id, true);
      try {
        const res = await api.call('approvals:answer', { id: req.id, choice, ...(content !== undefined ? { content: content as AnswerContent } : {}), ...(narrow !== undefined ? { narrow } : {}) });
        if (!res.ok) {
          toast.show({ tone: 'warn', title: 'That request is no longer pending', detail: 'It was answered elsewhere, timed out or was cancelled.' });
          approvals.setAnswering(req.id, false);
        }
      } catch (e) {
        approvals.setAnswering(req.id, false);
        toast.error(`Could not answer ${cardTitleText(req)}`, e);
      }
    },
    [api, approvals, toast],
  );
}

/**
 * A / S / D / T answer the focused card (or the oldest) while focus is inside `scope`: the
 * tray, or the pending list of the Approvals view. Never global, so a stray key elsewhere
 * cannot approve anything.
 */
export function useApprovalKeys(scope: RefObject<HTMLElement | null>, pending: PendingApproval[], answer: (req: PendingApproval, choice: ApprovalChoice) => Promise<void>): void {
  const target = (e: KeyboardEvent): PendingApproval | undefined => {
    const card = e.target instanceof HTMLElement ? e.target.closest<HTMLElement>('[data-approval-id]') : null;
    const id = card?.dataset.approvalId;
    return pending.find((p) => p.id === id) ?? pending[0];
  };
  useShortcuts(
    Object.fromEntries(
      Object.entries(CHOICE_KEYS).map(([key, choice]) => [
        key,
        (e: KeyboardEvent) => {
          const r = target(e);
          if (!r) return;
          // A sampling / elicitation question is answered from its card (content, Send, Accept);
          // of the letters only D applies to it, as Decline.
          if (r.question !== undefined && r.kind !== 'tool') {
            const q = questionKeyChoice(key);
            if (q) void answer(r, q);
            return;
          }
          // A card whose arguments have not all been on screen refuses Allow by key as by click
          // (approval-card.tsx, `data-allow-locked`); D still denies.
          if (choice !== 'deny' && allowLocked(scope.current, r.id)) return;
          // Asked for each call: no session grant can come of it, so S and T do nothing (the card says so).
          if (r.perCall && (choice === 'allow_session' || choice === 'allow_tool_session')) return;
          // "Allow the tool for the session" only means something for a tool call.
          if (!(r.kind && r.kind !== 'tool' && choice === 'allow_tool_session')) void answer(r, choice);
        },
      ]),
    ),
    { scope },
  );
}

function allowLocked(scope: HTMLElement | null, id: string): boolean {
  const card = [...(scope?.querySelectorAll<HTMLElement>('[data-approval-id]') ?? [])].find((c) => c.dataset.approvalId === id);
  // No card on screen for it: nothing has been shown, so nothing may be allowed by key.
  return !card || card.dataset.allowLocked === 'true';
}
