// Edit-then-replay (docs/ui-layout.md "Replay"): the original tools/call's arguments in an
// editor, checked as a JSON object before anything is sent; the replay goes through the gateway
// like the plain one (policy and approvals apply), and the pane shows how the arguments changed.
import { useEffect, useState } from 'react';
import { isObject } from '../../../common/is-object';
import { lineDiff, type TrafficRow, type TrafficStore } from '../../lib/traffic-store';
import { useBody } from './use-body';

/** The edited text as a tools/call's arguments, or why it cannot be. */
export function parseArguments(text: string): { args: Record<string, unknown> } | { error: string } {
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    return { error: `Not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isObject(parsed) || Array.isArray(parsed)) return { error: `Expected a JSON object of arguments, found ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}` };
  return { args: parsed };
}

export function argumentsOf(message: unknown): Record<string, unknown> {
  return isObject(message) && isObject(message.params) && isObject(message.params.arguments) ? message.params.arguments : {};
}

export function ReplayEditor({ row, store, onReplay, onCancel }: { row: TrafficRow; store: TrafficStore; onReplay: (args: Record<string, unknown>) => void; onCancel: () => void }) {
  const body = useBody(store.bodies, row);
  const original = body?.state === 'held' ? JSON.stringify(argumentsOf(body.message), null, 2) : undefined;
  const [text, setText] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (text === undefined && original !== undefined) setText(original);
  }, [original, text]);
  const parsed = text === undefined ? undefined : parseArguments(text);
  const error = parsed && 'error' in parsed ? parsed.error : undefined;
  const changed = original !== undefined && parsed && 'args' in parsed ? lineDiff(original, JSON.stringify(parsed.args, null, 2)) : [];
  const edits = changed.filter((d) => d.op !== ' ').length;
  return (
    <section className="traffic-replay traffic-replay-edit" aria-label="Edit and replay">
      <h3>Edit the arguments, then replay</h3>
      {text === undefined ? (
        <p className="traffic-note">{body?.state === 'gone' ? 'The original request is no longer held: nothing to edit.' : 'Loading the original arguments…'}</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (parsed && 'args' in parsed) onReplay(parsed.args);
          }}
        >
          <textarea
            className="tb-input traffic-replay-json"
            aria-label="Arguments to replay (JSON)"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'replay-json-error' : undefined}
            spellCheck={false}
            rows={Math.min(16, Math.max(4, text.split('\n').length + 1))}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          {error ? (
            <p id="replay-json-error" className="traffic-fault-text" role="alert">
              {error}
            </p>
          ) : edits > 0 ? (
            <pre className="traffic-diff" aria-label="Changes to the arguments">
              {changed.map((d, k) => (
                <div key={k} className={d.op === '+' ? 'is-add' : d.op === '-' ? 'is-del' : ''}>
                  {d.op} {d.text}
                </div>
              ))}
            </pre>
          ) : (
            <p className="traffic-note">Same arguments as the original.</p>
          )}
          <span className="traffic-detail-actions">
            <button type="submit" className="tb-btn tb-btn-primary" disabled={!!error}>
              Replay edited
            </button>
            <button type="button" className="tb-btn" onClick={onCancel}>
              Cancel
            </button>
          </span>
        </form>
      )}
    </section>
  );
}
