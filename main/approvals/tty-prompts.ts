// What the terminal approver draws for a pending request: a tool call to allow or deny (its
// arguments whole, for the approver to page), or a server's question (elicitation, sampling),
// with every value from the agent or server escaped (terminal-text.ts).
import type { ApprovalOutcome, PendingApproval } from './broker';
import { isObject } from '../base/is-object';
import { isUrlElicitation } from './questions';
import { showHidden } from '../../common/visible-text';
import { argFlags, contentText, fullArgs, fullLines, sanitize } from './terminal-text';

/** One line from the agent, a server or the profile: controls and hidden characters escaped. */
const one = (text: string) => sanitize(showHidden(text), true);

/** Where the arguments start on a prompt line (`  args    `). */
const ARGS_INDENT = '          ';

/**
 * A tool call waiting for allow or deny, in three parts: the head (tool, server, why), the body
 * (every line of the arguments and what they hide, wrapped to `width`: the approver pages it)
 * and the answer line, drawn only after the last page.
 */
export function toolPrompt(p: PendingApproval, waitingBehind: number, width: number): { head: string; body: string[]; keys: string } {
  const tool = one(p.tool);
  const head = [
    '',
    `── Gatehouse: approval needed${waitingBehind > 0 ? ` (${waitingBehind} more waiting)` : ''} ──`,
    `  ${p.kind === 'tool' ? 'tool' : p.kind.padEnd(4)}    ${tool}${p.advertisedName && p.advertisedName !== p.tool ? ` (called as ${one(p.advertisedName)})` : ''}`,
    `  server  ${one(p.server)}`,
    `  why     ${one(p.reason)}${p.rule ? ` [${one(p.rule)}]` : ''}`,
  ].join('\n');
  const args = fullArgs(p.args, width - ARGS_INDENT.length).map((l, i) => `${i === 0 ? '  args    ' : ARGS_INDENT}${l}`);
  const flags = argFlags(p.args).flatMap((f) => fullLines(f, width - 4).map((l, i) => `  ${i === 0 ? '⚠ ' : '  '}${l}`));
  const keys = [
    `  denied automatically after ${Math.round((p.expiresAt - p.createdAt) / 1000)}s`,
    `  [a] allow once  [s] allow for this session  [t] allow ${tool} for this session  [d/Enter] deny › `,
  ].join('\n');
  return { head, body: [...args, ...flags], keys };
}

export function describe(o: ApprovalOutcome): string {
  return sanitize(o.reason, true);
}

/**
 * A server's elicitation or sampling request: who asks, why, and what (a form's fields, a URL, a
 * conversation), whole and wrapped to `width`, as lines for the approver to page.
 */
export function renderQuestion(p: PendingApproval, q: Record<string, unknown>, waitingBehind: number, width: number): string[] {
  const whole = (text: string, pad: string) => fullLines(text, width - pad.length).join(`\n${pad}`);
  const sampling = p.kind === 'sampling';
  const lines = [
    '',
    `── Gatehouse: ${sampling ? 'a server asks for an LLM reply' : 'a server asks you a question'}${waitingBehind > 0 ? ` (${waitingBehind} more waiting)` : ''} ──`,
    `  server  ${one(p.server)}${p.triggerTool ? ` (during ${one(p.triggerTool)})` : ''}`,
    `  why     ${one(p.reason)}`,
  ];
  if (sampling) {
    const convo: string[] = [];
    if (typeof q.systemPrompt === 'string' && q.systemPrompt) convo.push(`[system] ${q.systemPrompt}`);
    for (const m of Array.isArray(q.messages) ? q.messages : []) {
      if (!isObject(m)) continue;
      convo.push(`[${typeof m.role === 'string' ? m.role.replace(/\s+/g, ' ') : '?'}] ${contentText(m.content)}`);
    }
    lines.push(`  conversation\n    ${whole(convo.join('\n') || '(no messages)', '    ')}`);
    if (typeof q.maxTokens === 'number') lines.push(`  max tokens ${q.maxTokens}`);
  } else {
    const message = typeof q.message === 'string' ? q.message : '';
    lines.push(`  message ${whole(message, ARGS_INDENT)}`);
    if (isUrlElicitation(q)) lines.push(`  open    ${whole(q.url, ARGS_INDENT)}`, '  (open it yourself: the answer only tells the server whether you agree)');
    else {
      const schema = isObject(q.requestedSchema) ? q.requestedSchema : {};
      const props = isObject(schema.properties) ? Object.keys(schema.properties) : [];
      lines.push(`  fields  ${props.length ? whole(props.join(', '), ARGS_INDENT) : '(none)'}`);
    }
  }
  lines.push(`  declined automatically after ${Math.round((p.expiresAt - p.createdAt) / 1000)}s`);
  return lines.join('\n').split('\n');
}
