import type { ReactNode } from 'react';
import { parseAnsi, spanCss } from '../lib/ansi/ansi';
import '../lib/ansi/ansi.css';

export type Range = [number, number];

/**
 * A log line with its ANSI colours, and search matches marked. `ranges` are offsets in the
 * text without escapes (what search runs over); `current` is the hit the search is on.
 */
export function AnsiLine({ text, ranges, current }: { text: string; ranges: readonly Range[]; current?: Range }): ReactNode {
  const spans = parseAnsi(text);
  const out: ReactNode[] = [];
  let pos = 0;
  let k = 0;
  for (const sp of spans) {
    const style = spanCss(sp.style);
    const end = pos + sp.text.length;
    let at = pos;
    for (const [s, e] of ranges) {
      if (e <= at || s >= end) continue;
      const from = Math.max(s, at);
      const to = Math.min(e, end);
      if (from > at) out.push(<span key={k++} style={style}>{sp.text.slice(at - pos, from - pos)}</span>);
      const isCur = current !== undefined && current[0] === s && current[1] === e;
      out.push(
        <mark key={k++} className={isCur ? 'logs-hit is-current' : 'logs-hit'} style={style}>
          {sp.text.slice(from - pos, to - pos)}
        </mark>,
      );
      at = to;
    }
    if (at < end) out.push(Object.keys(style).length ? <span key={k++} style={style}>{sp.text.slice(at - pos)}</span> : sp.text.slice(at - pos));
    pos = end;
  }
  return out;
}
