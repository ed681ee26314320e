// Host-API commands of the approval inbox: what waits for a person, and their answers (an
// approval word for a tool call, accept/decline with content for sampling and elicitation).
import type { PendingApproval } from '../approvals/broker';
import { acceptAnswer, questionChoice } from '../approvals/questions';
import { compileGrantPattern } from '../approvals/session-grants';
import type { ApiContext } from './api-context';
import { HostApiError, type Handlers } from './errors';
import { pendingApproval } from './shapes';

export function approvalHandlers(ctx: ApiContext) {
  const { host } = ctx;
  return {
    'approvals:list': () => host.broker.pending().map(pendingApproval),
    'approvals:answer': (input) => {
      checkAnswer(host.broker.get(input.id), input);
      if (input.narrow !== undefined && input.choice !== 'allow_tool_session') throw new HostApiError(`narrow goes only with allow_tool_session, got '${input.choice}'`);
      if (input.narrow !== undefined) {
        try {
          compileGrantPattern(input.narrow.pattern);
        } catch (err) {
          throw new HostApiError(`narrow.pattern is not a valid regular expression: ${(err as Error).message}`);
        }
      }
      return {
        ok: host.broker.answer(input.id, {
          choice: input.choice,
          by: 'ui',
          ...(input.note ? { note: input.note } : {}),
          ...(input.content !== undefined ? { content: input.content } : {}),
          ...(input.narrow !== undefined ? { narrow: input.narrow } : {}),
        }),
      };
    },
    'grants:list': () => host.broker.listGrants(),
    'grants:revoke': (input) => ({ revoked: host.broker.revokeGrant(input.id) !== undefined }),
  } satisfies Partial<Handlers>;
}

/**
 * An answer that cannot settle the request it names, refused with the reason (the broker would
 * only say no): a question answered with an approval word, content for a tool call, content
 * that does not fit the requested schema or the reply limits. Unknown ids pass (→ ok: false).
 */
function checkAnswer(p: PendingApproval | undefined, input: { choice: string; content?: unknown }): void {
  if (!p) return;
  if (p.question === undefined || (p.kind !== 'sampling' && p.kind !== 'elicitation')) {
    if (input.content !== undefined) throw new HostApiError(`content answers only sampling and elicitation requests; ${p.tool} is a ${p.kind} approval`);
    if (questionChoice(input.choice) && !['allow_once', 'deny'].includes(input.choice)) {
      throw new HostApiError(`'${input.choice}' answers sampling and elicitation requests; use allow_once, allow_session, allow_tool_session or deny`);
    }
    return;
  }
  const choice = questionChoice(input.choice);
  const words = p.kind === 'elicitation' ? 'accept, decline or cancel' : 'accept (with content {text}) or decline';
  if (!choice) throw new HostApiError(`'${input.choice}' does not answer a ${p.kind} request: use ${words}`);
  if (choice !== 'accept') {
    if (input.content !== undefined) throw new HostApiError(`content goes only with accept`);
    return;
  }
  const check = acceptAnswer(p.kind, p.question, input.content);
  if (!check.ok) throw new HostApiError(`cannot accept this ${p.kind} request: ${check.error}`);
}
