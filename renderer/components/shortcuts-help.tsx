// The `?` dialog: every key the window knows (components/shortcuts.ts `shortcutRows`).
import { useEffect, useRef } from 'react';
import { CircleHelp, X } from 'lucide-react';
import { IconButton } from './button';
import { Kbd } from './kbd';
import { shortcutRows, useShortcuts } from './shortcuts';

export function ShortcutsHelp({ views, onClose }: { views: ReadonlyArray<{ label: string }>; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const prev = document.activeElement as HTMLElement | null;
    ref.current?.focus();
    return () => prev?.focus?.();
  }, []);
  useShortcuts({ escape: onClose });
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" ref={ref} tabIndex={-1} onClick={(e) => e.stopPropagation()}>
        {/* A <div>, not a <header>: a header outside sectioning content is a second banner landmark. */}
        <div className="modal-head">
          <CircleHelp size={16} aria-hidden="true" />
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <span className="spacer" />
          <IconButton label="Close" icon={<X size={15} />} onClick={onClose} />
        </div>
        <table className="table shortcuts-table">
          <tbody>
            {shortcutRows(views).map((r) => (
              <tr key={r.does}>
                <td>
                  {r.keys.map((k, i) => (
                    <span key={k}>
                      {i ? ' ' : ''}
                      <Kbd>{k}</Kbd>
                    </span>
                  ))}
                </td>
                <td>{r.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
