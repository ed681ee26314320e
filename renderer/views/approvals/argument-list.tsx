// The arguments a person approves, exactly as they are: hidden characters drawn as marked
// `\uXXXX` (a bidi override cannot turn `deploy‮txt.sh` into "deployhs.txt"), each value's
// flags as badges beside it (bidi control, invisible character, mixed scripts), one row per
// value. `onUnseen` reports how many rows have not been on screen yet: the card keeps Allow
// disabled until that is 0 (docs/ui-layout.md, "What a person approves").
import { useEffect, useMemo, useRef } from 'react';
import { splitHidden } from '../../../common/visible-text';
import { Badge } from '../../components/badge';
import { argumentRows } from './argument-rows';
import { useUnseenRows } from './seen-coverage';

/** `oneLine`: a name or a title, whose tab / newline is drawn as `\t` / `\n` too (common/visible-text.ts). */
export function Visible({ text, oneLine }: { text: string; oneLine?: boolean }) {
  const parts = useMemo(() => splitHidden(text, { oneLine }), [text, oneLine]);
  return (
    <>
      {parts.map((p, i) =>
        'text' in p ? (
          p.text
        ) : (
          <mark key={i} className={`hidden-char${p.bidi ? ' is-bidi' : ''}`} title={`${p.code}: ${p.bidi ? 'bidirectional control' : p.hidden === '\n' || p.hidden === '\r' || p.hidden === '\t' ? 'line break or tab' : 'invisible character'}`}>
            {p.shown}
          </mark>
        ),
      )}
    </>
  );
}

export function ArgumentList({ value, maxHeight, label, resetKey, onUnseen }: { value: unknown; maxHeight: number; label: string; resetKey: string; onUnseen: (unseen: number, total: number) => void }) {
  const { rows, rest } = useMemo(() => argumentRows(value), [value]);
  const box = useRef<HTMLDivElement>(null);
  const seen = useUnseenRows(box, '.arg-row', resetKey);
  useEffect(() => {
    if (seen) onUnseen(seen.unseen, seen.total);
  }, [onUnseen, seen]);
  return (
    <div className="arg-list" ref={box} style={{ maxHeight }} role="list" aria-label={label} tabIndex={0}>
      {rows.map((r, i) => (
        <div className={`arg-row${r.flags.length ? ' is-flagged' : ''}`} role="listitem" key={i} data-arg-path={r.path}>
          {r.path ? (
            <span className="arg-key mono">
              <Visible text={r.path} />
            </span>
          ) : null}
          <span className="arg-value mono">
            <Visible text={r.value} />
          </span>
          {r.flags.length ? (
            <span className="arg-flags" aria-label={`Flags of ${r.path || 'the value'}`}>
              {r.flags.map((f, k) => (
                <Badge key={k} tone="danger" title={f.kind}>
                  {f.message}
                </Badge>
              ))}
            </span>
          ) : null}
        </div>
      ))}
      {rest !== undefined ? (
        <div className="arg-row arg-rest mono" role="listitem">
          <Visible text={rest} />
        </div>
      ) : null}
    </div>
  );
}
