import { useEffect, useMemo, useRef } from 'react';
import { classifyDiff, diffStats } from './diff';
import { Visible } from './argument-list';
import { useUnseenRows } from './seen-coverage';

/**
 * A unified diff with +/- colouring and old/new line numbers; hidden characters marked as on
 * the approval card. With `onUnseen` it reports lines not yet on screen (a patch being approved
 * is an argument too: Allow waits for its last line, approval-card.tsx).
 */
export function DiffView({ patch, label = 'Patch', maxHeight, onUnseen, resetKey = '' }: { patch: string; label?: string; maxHeight?: number; onUnseen?: (unseen: number, total: number) => void; resetKey?: string }) {
  const lines = useMemo(() => classifyDiff(patch), [patch]);
  const stats = useMemo(() => diffStats(lines), [lines]);
  const body = useRef<HTMLDivElement>(null);
  const seen = useUnseenRows(body, 'tr', resetKey);
  useEffect(() => {
    if (seen) onUnseen?.(seen.unseen, seen.total);
  }, [onUnseen, seen]);
  return (
    <figure className="diff" aria-label={label}>
      <figcaption className="diff-caption">
        <span>{label}</span>
        <span className="diff-stat-add">+{stats.added}</span>
        <span className="diff-stat-del">−{stats.removed}</span>
        {stats.files > 0 ? <span className="muted">{stats.files} file{stats.files === 1 ? '' : 's'}</span> : null}
      </figcaption>
      <div className="diff-body" ref={body} style={maxHeight ? { maxHeight } : undefined} tabIndex={0}>
        <table className="diff-table">
          <tbody>
            {lines.map((l, i) => (
              <tr key={i} className={`diff-${l.kind}`}>
                <td className="diff-no" aria-hidden="true">{l.oldNo ?? ''}</td>
                <td className="diff-no" aria-hidden="true">{l.newNo ?? ''}</td>
                <td className="diff-text">{l.text ? <Visible text={l.text} /> : ' '}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
