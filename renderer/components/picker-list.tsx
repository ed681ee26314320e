// The list column of the Tool console, Resources and Prompts (docs/ui-layout.md "Resources and
// Prompts"): a filter box, the listing's error or loading line, the items, and what to say when
// none is left. Each view keeps its own items and what an item shows.
import type { ReactNode } from 'react';
import { Search } from 'lucide-react';
import { Banner } from './banner';
import { errorText } from './toasts';

export interface PickerListProps {
  /** The list's accessible name ("Tools", "Resources and templates"). */
  label: string;
  /** Plural noun for the filter box and the status lines: "Filter tools", "Could not list tools". */
  noun: string;
  query: string;
  onQuery: (query: string) => void;
  /** The listing command's error, if any. */
  error: unknown;
  /** True while the first listing is loading (nothing to show yet). */
  loading: boolean;
  /** Said below the items, e.g. when the filter left none; null says nothing. */
  empty: ReactNode;
  children: ReactNode;
}

export function PickerList({ label, noun, query, onQuery, error, loading, empty, children }: PickerListProps) {
  return (
    <nav className="tool-list" aria-label={label}>
      <div className="search-box">
        <Search size={14} aria-hidden="true" />
        <input className="input input-bare" type="search" placeholder={`Filter ${noun}`} aria-label={`Filter ${noun}`} value={query} onChange={(e) => onQuery(e.target.value)} />
      </div>
      {error ? <Banner tone="danger" title={`Could not list ${noun}`}>{errorText(error)}</Banner> : null}
      {loading ? <p className="muted pad">Loading {noun}…</p> : null}
      <div className="tool-groups scroll">
        {children}
        {empty ? <p className="muted pad">{empty}</p> : null}
      </div>
    </nav>
  );
}

/** A titled group of picker items with its count. */
export function PickerGroup({ title, count, children }: { title: ReactNode; count: number; children: ReactNode }) {
  return (
    <div className="tool-group">
      <div className="tool-group-head">
        {title} <span className="muted">{count}</span>
      </div>
      <ul>{children}</ul>
    </div>
  );
}

/** One pickable row; the active one is marked for the eye and for screen readers (aria-current). */
export function PickerItem({ active, onPick, children }: { active: boolean; onPick: () => void; children: ReactNode }) {
  return (
    <li>
      <button type="button" className={`tool-item${active ? ' is-active' : ''}`} aria-current={active ? 'true' : undefined} onClick={onPick}>
        {children}
      </button>
    </li>
  );
}
