// A line diff for comparing a replay's result (and its edited arguments) with the original's:
// the `diff` package's diffLines (Myers), as STYLE.md asks, flattened to one entry per line.
import { diffLines } from 'diff';

export interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const change of diffLines(before, after)) {
    const op: DiffLine['op'] = change.added ? '+' : change.removed ? '-' : ' ';
    // diffLines keeps each line's newline; the last line of a part may have none.
    const lines = change.value.endsWith('\n') ? change.value.slice(0, -1).split('\n') : change.value.split('\n');
    for (const text of lines) out.push({ op, text });
  }
  return out;
}
