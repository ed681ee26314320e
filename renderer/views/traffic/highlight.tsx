import type { ReactNode } from 'react';
import { findMatches } from '../../lib/traffic-store';

/** `text` with the occurrences of `query` wrapped in <mark>. */
export function Highlight({ text, query }: { text: string; query: string }): ReactNode {
  if (!query) return text;
  const ranges = findMatches(text, query);
  if (ranges.length === 0) return text;
  const out: ReactNode[] = [];
  let last = 0;
  ranges.forEach(([s, e], i) => {
    if (s > last) out.push(text.slice(last, s));
    out.push(<mark key={i}>{text.slice(s, e)}</mark>);
    last = e;
  });
  if (last < text.length) out.push(text.slice(last));
  return out;
}
