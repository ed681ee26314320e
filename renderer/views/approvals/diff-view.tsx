import { useMemo } from 'react';
import { classifyDiff, diffStats } from './diff';

/** A unified diff with +/- colouring and old/new line numbers. */
export function DiffView({ patch, label = 'Patch', maxHeight }: { patch: string; label?: string; maxHeight?: number }) {
  const lines = useMemo(() => classifyDiff(patch), [patch]);
  const stats = useMemo(() => diffStats(lines), [lines]);
  return (
    <figure className="diff" aria-label={label}>
      <figcaption className="diff-caption">
        <span>{label}</span>
        <span className="diff-stat-add">+{stats.added}</span>
        <span className="diff-stat-del">−{stats.removed}</span>
        {stats.files > 0 ? <span className="muted">{stats.files} file{stats.files === 1 ? '' : 's'}</span> : null}
      </figcaption>
      <div className="diff-body" style={maxHeight ? { maxHeight } : undefined} tabIndex={0}>
        <table className="diff-table">
          <tbody>
            {lines.map((l, i) => (
              <tr key={i} className={`diff-${l.kind}`}>
                <td className="diff-no" aria-hidden="true">{l.oldNo ?? ''}</td>
                <td className="diff-no" aria-hidden="true">{l.newNo ?? ''}</td>
                <td className="diff-text">{l.text || ' '}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
