// Stopping (or relaunching) a launch closes its terminals, and an agent running in one loses
// its work: the window asks first, naming each terminal that still runs. A modal <dialog>:
// focus moves into it (on Cancel, the safe answer), Tab stays inside, Escape cancels.
import { useEffect, useRef } from 'react';
import { Button } from '../../components/button';

export interface StopQuestion {
  profile: string;
  /** What the person asked for: Stop, or Relaunch (stop, then launch again). */
  verb: 'Stop' | 'Relaunch';
  terminals: Array<{ id: string; title: string; command: string }>;
}

export function StopConfirm({ question: q, onCancel, onConfirm }: { question: StopQuestion; onCancel: () => void; onConfirm: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    // showModal() focuses the autofocus button: Cancel.
    if (!d.open) d.showModal();
    return () => d.close();
  }, []);
  const n = q.terminals.length;
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="stop-confirm-title"
      aria-describedby="stop-confirm-body"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="stop-confirm-title" className="confirm-title">
        {q.verb} {q.profile}?
      </h2>
      <div id="stop-confirm-body">
        <p>
          {q.verb === 'Stop' ? 'Stopping' : 'Relaunching'} closes {n === 1 ? 'this terminal' : `these ${n} terminals`}; whatever runs in {n === 1 ? 'it' : 'them'} is ended:
        </p>
        <ul className="plain-list" aria-label="Terminals that will close">
          {q.terminals.map((t) => (
            <li key={t.id}>
              <b>{t.title}</b> <code className="mono muted">{t.command}</code>
            </li>
          ))}
        </ul>
      </div>
      <div className="confirm-actions">
        <Button autoFocus variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
        <Button variant="danger" onClick={onConfirm}>
          {q.verb} and close {n === 1 ? 'the terminal' : `${n} terminals`}
        </Button>
      </div>
    </dialog>
  );
}
