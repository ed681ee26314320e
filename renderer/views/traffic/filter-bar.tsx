// The filter bar: everything the timeline can be narrowed by, in one row of controls.
import { useEffect, useId, useRef, useState } from 'react';
import { formatQuery, parseQuery, type Direction, type StatusFilter, type TrafficFilter } from '../../lib/traffic-store';

const STATUS_TOGGLES: [StatusFilter, string][] = [
  ['error', 'Errors'],
  ['denied', 'Denials'],
  ['pending', 'Pending'],
  ['aborted', 'Aborted'],
  ['unmatched', 'Unmatched'],
  ['fault', 'Faults'],
  // Calls the data scanner found a secret or credential in (docs/data.md): the facet is in the filter index too.
  ['findings', 'Findings'],
];

const DIRECTIONS: [string, string, Direction[]][] = [
  ['', 'All directions', []],
  ['agent', 'Agent side (A↔G)', ['agent_to_gateway', 'gateway_to_agent']],
  ['server', 'Server side (G↔S)', ['gateway_to_server', 'server_to_gateway']],
  ['agent_to_gateway', 'A→G agent to gateway', ['agent_to_gateway']],
  ['gateway_to_agent', 'G→A gateway to agent', ['gateway_to_agent']],
  ['gateway_to_server', 'G→S gateway to server', ['gateway_to_server']],
  ['server_to_gateway', 'S→G server to gateway', ['server_to_gateway']],
];

const QUICK_HIDE = ['notifications/message', 'notifications/progress', 'ping'];

export interface FilterBarProps {
  filter: TrafficFilter;
  onChange: (next: TrafficFilter) => void;
  methods: string[];
  servers: string[];
  launches: { id: string; label: string }[];
}

export function FilterBar({ filter, onChange, methods, servers, launches }: FilterBarProps) {
  const listId = useId();
  // The search box says what is applied: its text and a `latency>N ms` term (filter.ts parseQuery).
  const [text, setText] = useState(() => formatQuery(filter));
  const [method, setMethod] = useState('');
  const applied = parseQuery(text);
  const inSync = (applied.text === (filter.text ?? '') || (!applied.text && !filter.text)) && applied.minLatencyMs === filter.minLatencyMs;

  // A filter changed from elsewhere (Clear filters, a chip's ×): the box shows it.
  const shownFor = useRef(filter);
  useEffect(() => {
    if (shownFor.current === filter) return;
    shownFor.current = filter;
    if (!inSync) setText(formatQuery(filter));
    // Only a change of the applied filter rewrites the box, never a keystroke.
  }, [filter]);

  // Typing is debounced: one filter pass over the held rows per pause, not per keystroke.
  useEffect(() => {
    if (inSync) return;
    const t = setTimeout(() => {
      const { text: q, minLatencyMs } = parseQuery(text);
      const next: TrafficFilter = { ...filter, text: q };
      if (minLatencyMs !== undefined) next.minLatencyMs = minLatencyMs;
      else delete next.minLatencyMs;
      shownFor.current = next;
      onChange(next);
    }, 150);
    return () => clearTimeout(t);
  }, [text, filter, onChange, inSync]);

  const include = filter.includeMethods ?? [];
  const exclude = filter.excludeMethods ?? [];
  const statuses = filter.statuses ?? [];
  const dirValue = DIRECTIONS.find(([, , d]) => sameSet(d, filter.directions ?? []))?.[0] ?? '';

  const addMethod = (kind: 'include' | 'exclude') => {
    const m = method.trim();
    if (!m) return;
    if (kind === 'include') onChange({ ...filter, includeMethods: uniq([...include, m]), excludeMethods: exclude.filter((x) => x !== m) });
    else onChange({ ...filter, excludeMethods: uniq([...exclude, m]), includeMethods: include.filter((x) => x !== m) });
    setMethod('');
  };
  const active = include.length + exclude.length + statuses.length + (filter.servers?.length ?? 0) + (filter.directions?.length ?? 0) + (filter.sessions?.length ?? 0) > 0 || !!filter.text || filter.minLatencyMs !== undefined || !!text || !!method;

  return (
    <div className="traffic-filters" role="search" aria-label="Traffic filters">
      <input
        className="tb-input traffic-search"
        type="search"
        placeholder="Search method, summary, JSON… or latency>500ms"
        aria-label="Search traffic"
        title="Free text, and latency>N ms (or latency>2s) for calls slower than that"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setText('');
        }}
      />
      <span className="traffic-method-add">
        <input
          className="tb-input"
          list={listId}
          placeholder="method, or prefix/*"
          aria-label="Method to include or exclude"
          value={method}
          onChange={(e) => setMethod(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') addMethod(e.shiftKey ? 'include' : 'exclude');
          }}
        />
        <datalist id={listId}>
          {methods.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <button type="button" className="tb-btn" onClick={() => addMethod('include')} aria-label="Show only this method">
          Only
        </button>
        <button type="button" className="tb-btn" onClick={() => addMethod('exclude')} aria-label="Hide this method">
          Hide
        </button>
      </span>
      {QUICK_HIDE.filter((m) => !exclude.includes(m)).slice(0, 1).map((m) => (
        <button key={m} type="button" className="tb-btn tb-btn-quiet" onClick={() => onChange({ ...filter, excludeMethods: uniq([...exclude, m]) })}>
          Hide {m.replace('notifications/', '')}
        </button>
      ))}
      <select className="tb-input" aria-label="Server" value={filter.servers?.[0] ?? ''} onChange={(e) => onChange({ ...filter, servers: e.target.value ? [e.target.value] : [] })}>
        <option value="">All servers</option>
        {servers.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <select className="tb-input" aria-label="Direction" value={dirValue} onChange={(e) => onChange({ ...filter, directions: DIRECTIONS.find(([v]) => v === e.target.value)?.[2] ?? [] })}>
        {DIRECTIONS.map(([v, label]) => (
          <option key={v} value={v}>
            {label}
          </option>
        ))}
      </select>
      {launches.length > 1 ? (
        <select className="tb-input" aria-label="Launch" value={filter.sessions?.[0] ?? ''} onChange={(e) => onChange({ ...filter, sessions: e.target.value ? [e.target.value] : [] })}>
          <option value="">All launches</option>
          {launches.map((l) => (
            <option key={l.id} value={l.id}>
              {l.label}
            </option>
          ))}
        </select>
      ) : null}
      <span className="traffic-toggles" role="group" aria-label="Status">
        {STATUS_TOGGLES.map(([s, label]) => {
          const on = statuses.includes(s);
          return (
            <button
              key={s}
              type="button"
              className={`tb-btn traffic-toggle traffic-toggle-${s}${on ? ' is-on' : ''}`}
              aria-pressed={on}
              onClick={() => onChange({ ...filter, statuses: on ? statuses.filter((x) => x !== s) : [...statuses, s] })}
            >
              {label}
            </button>
          );
        })}
      </span>
      {include.length + exclude.length > 0 || filter.minLatencyMs !== undefined ? (
        <span className="traffic-chips" role="list" aria-label="Method filters">
          {filter.minLatencyMs !== undefined ? (
            <span role="listitem" className="traffic-chip is-include">
              latency &gt; {filter.minLatencyMs} ms
              <button type="button" aria-label={`Remove filter: latency > ${filter.minLatencyMs} ms`} onClick={() => onChange({ ...filter, minLatencyMs: undefined })}>
                ×
              </button>
            </span>
          ) : null}
          {include.map((m) => (
            <span key={`i${m}`} role="listitem" className="traffic-chip is-include">
              only {m}
              <button type="button" aria-label={`Remove filter: only ${m}`} onClick={() => onChange({ ...filter, includeMethods: include.filter((x) => x !== m) })}>
                ×
              </button>
            </span>
          ))}
          {exclude.map((m) => (
            <span key={`e${m}`} role="listitem" className="traffic-chip is-exclude">
              hide {m}
              <button type="button" aria-label={`Remove filter: hide ${m}`} onClick={() => onChange({ ...filter, excludeMethods: exclude.filter((x) => x !== m) })}>
                ×
              </button>
            </span>
          ))}
        </span>
      ) : null}
      {active ? (
        <button
          type="button"
          className="tb-btn tb-btn-quiet"
          onClick={() => {
            // Every input says what is applied afterwards: nothing (the method box too).
            setText('');
            setMethod('');
            shownFor.current = {};
            onChange({});
          }}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function sameSet<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
