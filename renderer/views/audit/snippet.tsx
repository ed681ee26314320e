// The part of an audit row that matched the search (host: main/audit/snippet.ts), the match marked.
type Obj = Record<string, unknown>;

interface SnippetShape {
  field: string;
  text: string;
  start: number;
  end: number;
}

export function snippetOf(row: Obj): SnippetShape | undefined {
  const s = row.snippet as Partial<SnippetShape> | undefined;
  if (!s || typeof s.text !== 'string' || typeof s.start !== 'number' || typeof s.end !== 'number') return undefined;
  return { field: String(s.field ?? ''), text: s.text, start: s.start, end: s.end };
}

export function SnippetText({ snippet }: { snippet: SnippetShape }) {
  const { text, start, end } = snippet;
  return (
    <span className="audit-snippet mono" aria-label={`Match in ${snippet.field}`}>
      <span className="audit-snippet-field">{snippet.field}</span> {text.slice(0, start)}
      <mark>{text.slice(start, end)}</mark>
      {text.slice(end)}
    </span>
  );
}
