// The words an approval card is headed with (approval-card.tsx): "Read resource <uri>", "Get
// prompt <name>", a tool's name. The name comes from the agent or the server, so it is shown as
// it is (common/visible-text.ts, one line: a bidi override, a zero-width character or a newline
// is drawn as `\u202E`, `\u200B`, `\n`) and flagged like an argument (mixed scripts too).
import { showHidden, textFlags, type TextFlag } from '../../../common/visible-text';
import type { PendingApproval } from '../../state/types';

/** What a resource / prompt approval names: its `tool` is `resource:<uri>` or `prompt:<server>.<prompt>` (main/policy/subjects.ts). */
export function subjectOf(r: Pick<PendingApproval, 'kind' | 'tool' | 'server'>): string {
  if (r.kind === 'resource' && r.tool.startsWith('resource:')) return r.tool.slice('resource:'.length);
  if (r.kind === 'prompt' && r.tool.startsWith(`prompt:${r.server}.`)) return r.tool.slice(`prompt:${r.server}.`.length);
  return r.tool;
}

export interface CardTitle {
  /** Fixed words before the name ("Read resource "), empty for a tool call. */
  lead: string;
  /** The name as received: the card draws it through `<Visible oneLine>`. */
  name: string;
  /** What a reader of the name would miss. */
  flags: TextFlag[];
}

export function cardTitle(r: Pick<PendingApproval, 'kind' | 'tool' | 'server' | 'advertisedName'>): CardTitle {
  const kind = r.kind ?? 'tool';
  const [lead, name] =
    kind === 'sampling'
      ? ['Sampling request from ', r.server]
      : kind === 'elicitation'
        ? ['Elicitation request from ', r.server]
        : kind === 'resource'
          ? ['Read resource ', subjectOf(r)]
          : kind === 'prompt'
            ? ['Get prompt ', subjectOf(r)]
            : ['', r.advertisedName ?? r.tool];
  return { lead, name, flags: textFlags(name, { oneLine: true }) };
}

/** The title as plain text (a desktop notification, a toast): hidden characters and line breaks written out. */
export function cardTitleText(r: Pick<PendingApproval, 'kind' | 'tool' | 'server' | 'advertisedName'>): string {
  const t = cardTitle(r);
  return `${t.lead}${showHidden(t.name, { oneLine: true })}`;
}
