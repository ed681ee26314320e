// The Audit view's outcome filter, its "a search narrows this session" notice and its export
// (the same JSON Lines as `gatehouse audit export --jsonl`, per stream).
import { useState } from 'react';
import { Download } from 'lucide-react';
import type { CommandInput } from '../../../common/host-api';
import { useHostApi } from '../../api/context';
import { Banner } from '../../components/banner';
import { Button } from '../../components/button';
import { errorText } from '../../components/toasts';
import { downloadText } from '../../lib/download';
import type { AuditSession } from '../../state/types';

export type OutcomeGroup = NonNullable<CommandInput<'audit:query'>['group']>;
type Stream = NonNullable<CommandInput<'audit:export'>['stream']>;

/** Every denial is `denied`, whoever made it; the approval timeout's have a group of their own. */
export const OUTCOME_GROUPS: ReadonlyArray<{ id: OutcomeGroup; label: string }> = [
  { id: 'allowed', label: 'allowed by a rule' },
  { id: 'approved', label: 'approved by a person' },
  { id: 'denied', label: 'denied (any, incl. timeout)' },
  { id: 'timeout_denied', label: 'denied by the timeout' },
  { id: 'error', label: 'failed (error, unavailable, timeout)' },
  { id: 'ok', label: 'answered ok' },
  { id: 'pending', label: 'pending' },
  { id: 'cancelled', label: 'cancelled' },
];

/**
 * "Showing 0 of 62 messages: search 'x' is applied — Clear": opening a session keeps the search
 * terms, which would otherwise narrow it without a word.
 */
export function NarrowedNotice({ session, query, shown, onClear }: { session: AuditSession; query: CommandInput<'audit:query'>; shown: number | undefined; onClear: () => void }) {
  const terms = [query.text ? `search '${query.text}'` : '', query.server ? `server '${query.server}'` : '', query.method ? `method '${query.method}'` : ''].filter(Boolean);
  if (terms.length === 0 || shown === undefined) return null;
  return (
    <Banner
      tone="warn"
      actions={
        <Button size="sm" variant="secondary" onClick={onClear}>
          Clear
        </Button>
      }
    >
      <span aria-label="Search narrows this session">
        Showing {shown.toLocaleString()} of {session.messages.toLocaleString()} messages: {terms.join(', ')} {terms.length === 1 ? 'is' : 'are'} applied.
      </span>
    </Banner>
  );
}

export function AuditExport({ session, text }: { session?: string; text?: string }) {
  const api = useHostApi();
  const [stream, setStream] = useState<Stream>('messages');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | undefined>();
  const run = async () => {
    setBusy(true);
    setNote(undefined);
    try {
      const out = await api.call('audit:export', { stream, ...(session ? { session } : {}), ...(text ? { text } : {}) });
      downloadText(out.text, out.fileName);
      setNote(`${out.count.toLocaleString()} ${stream} exported`);
    } catch (e) {
      setNote(`Export failed: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="audit-export form-actions" role="group" aria-label="Export">
      <select className="input" aria-label="Export what" value={stream} onChange={(e) => setStream(e.target.value as Stream)}>
        <option value="messages">messages</option>
        <option value="calls">calls</option>
        <option value="decisions">decisions</option>
        <option value="stderr">stderr lines</option>
      </select>
      <Button size="sm" variant="secondary" icon={<Download size={13} />} busy={busy} onClick={() => void run()} title="The same JSON Lines as gatehouse audit export --jsonl">
        Export JSONL
      </Button>
      {note ? <span className="muted small" role="status">{note}</span> : null}
    </div>
  );
}
