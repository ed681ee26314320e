// Pretty-printed JSON with folding: objects and arrays fold (deep or large ones start folded),
// long strings wrap and can be cut short, text matches are highlighted.
import { useState, type ReactNode } from 'react';
import { Highlight } from './highlight';

const LONG_STRING = 2000;

export function JsonTree({ value, query = '', label }: { value: unknown; query?: string; label: string }) {
  return (
    <div className="traffic-json" role="tree" aria-label={label}>
      <JsonNode value={value} depth={0} query={query} last />
    </div>
  );
}

function JsonNode({ name, value, depth, query, last }: { name?: string; value: unknown; depth: number; query: string; last: boolean }) {
  const isArr = Array.isArray(value);
  const isObj = typeof value === 'object' && value !== null;
  const entries = isObj ? (isArr ? (value as unknown[]).map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>)) : [];
  const [open, setOpen] = useState(depth < 4 && entries.length <= 60);
  const comma = last ? '' : ',';
  const key = name !== undefined ? (
    <span className="traffic-json-key">
      <Highlight text={JSON.stringify(name)} query={query} />:{' '}
    </span>
  ) : null;
  if (!isObj) {
    return (
      <div className="traffic-json-line" role="treeitem" style={{ paddingLeft: depth * 14 }}>
        {key}
        <Scalar value={value} query={query} />
        {comma}
      </div>
    );
  }
  const [o, c] = isArr ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div className="traffic-json-line" role="treeitem" style={{ paddingLeft: depth * 14 }}>
        {key}
        {o}
        {c}
        {comma}
      </div>
    );
  }
  return (
    <div role="treeitem" aria-expanded={open}>
      <div className="traffic-json-line" style={{ paddingLeft: depth * 14 }}>
        <button type="button" className="traffic-json-fold" aria-label={`${open ? 'Fold' : 'Unfold'} ${name ?? 'value'}`} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'}
        </button>
        {key}
        {o}
        {!open ? (
          <button type="button" className="traffic-json-more" onClick={() => setOpen(true)}>
            {isArr ? `${entries.length} items` : `${entries.length} keys`}
          </button>
        ) : null}
        {!open ? `${c}${comma}` : null}
      </div>
      {open ? (
        <div role="group">
          {entries.map(([k, v], i) => (
            <JsonNode key={k} name={isArr ? undefined : k} value={v} depth={depth + 1} query={query} last={i === entries.length - 1} />
          ))}
          <div className="traffic-json-line" style={{ paddingLeft: depth * 14 }}>
            {c}
            {comma}
          </div>
        </div>
      ) : null}
    </div>
  );
}

function Scalar({ value, query }: { value: unknown; query: string }): ReactNode {
  const [full, setFull] = useState(false);
  if (typeof value === 'string') {
    const cut = !full && value.length > LONG_STRING;
    const text = JSON.stringify(cut ? value.slice(0, LONG_STRING) : value);
    return (
      <span className="traffic-json-string">
        <Highlight text={cut ? `${text.slice(0, -1)}…` : text} query={query} />
        {cut ? (
          <button type="button" className="traffic-json-more" onClick={() => setFull(true)}>
            show all {value.length.toLocaleString()} chars
          </button>
        ) : null}
      </span>
    );
  }
  const cls = typeof value === 'number' ? 'traffic-json-number' : typeof value === 'boolean' ? 'traffic-json-bool' : 'traffic-json-null';
  return (
    <span className={cls}>
      <Highlight text={String(value)} query={query} />
    </span>
  );
}
