// One dense row of the timeline (≤ 24 px): cells read straight from the store's row object.
import { memo } from 'react';
import { formatBytes, formatTime } from '../../components/format-time';
import type { TrafficRow as Row, TrafficStore } from '../../lib/traffic-store';
import { Highlight } from './highlight';
import { EraTag } from './era-tag';

export const ROW_HEIGHT = 22;

/** The pin key of a focused row, named once so the tooltip and the handler cannot disagree. */
export const PIN_SHORTCUT = 'p';

/** P with or without Shift (Caps Lock, a habit), never with Ctrl/Alt/Cmd (those belong to the app). */
export function isPinKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }): boolean {
  return e.key.toLowerCase() === PIN_SHORTCUT && !e.ctrlKey && !e.metaKey && !e.altKey;
}

export const COLUMNS = ['Time', 'Dir', 'Agent', 'Server', 'Id', 'Method', 'Summary', 'Decision', 'Status', 'Latency', 'Req', 'Res', 'Pin'] as const;

const DIR: Record<Row['ev']['direction'], [string, string]> = {
  agent_to_gateway: ['A→G', 'agent to gateway'],
  gateway_to_agent: ['G→A', 'gateway to agent'],
  gateway_to_server: ['G→S', 'gateway to server'],
  server_to_gateway: ['S→G', 'server to gateway'],
};

export function shortId(id: string | undefined): string {
  if (!id) return '';
  return id.length > 8 ? id.slice(0, 8) : id;
}

export function formatLatency(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function TrafficHeader() {
  return (
    <>
      {COLUMNS.map((c) => (
        <div key={c} role="columnheader" className={`traffic-cell traffic-c-${c.toLowerCase()}`}>
          {c === 'Pin' ? <span className="traffic-sr">Pinned</span> : c}
        </div>
      ))}
    </>
  );
}

export interface TrafficRowCellsProps {
  row: Row;
  store: TrafficStore;
  query: string;
  onToggle: (r: Row) => void;
  onPin: (r: Row) => void;
  /** What the row shows beyond its fields, so the memo below sees every change: */
  rev: number;
  kids: number;
  open: boolean;
  pinned: boolean;
  replayOf: number | undefined;
}

/**
 * Rows are memoised on the row and what may change in it (`rev` bumps on every status, pair,
 * progress or decision change): under load, a frame re-renders the rows that came in or changed,
 * not every row in view.
 */
export const TrafficRowCells = memo(function TrafficRowCells({ row, store, query, onToggle, onPin, kids, open, pinned }: TrafficRowCellsProps) {
  const { ev } = row;
  const isResponse = ev.kind === 'response' || ev.kind === 'error';
  const [arrow, dirLabel] = DIR[ev.direction];
  const p = row.progress;
  const fraction = p && p.total ? Math.max(0, Math.min(1, p.done / p.total)) : undefined;
  const status = row.status ?? '';
  return (
    <>
      <div role="gridcell" className="traffic-cell traffic-c-time">
        {formatTime(ev.ts)}
      </div>
      <div role="gridcell" className={`traffic-cell traffic-c-dir traffic-dir-${ev.direction}`} title={dirLabel} aria-label={`${arrow}, ${dirLabel}`}>
        {arrow}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-agent" title={ev.agentSession}>
        {shortId(ev.agentSession)}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-server" title={row.server}>
        {row.server ?? ''}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-id" title={ev.id !== undefined ? String(ev.id) : undefined}>
        {ev.id !== undefined ? String(ev.id) : ''}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-method" style={{ paddingLeft: 4 + row.depth * 14 }}>
        {kids > 0 ? (
          <button
            type="button"
            className="traffic-twisty"
            aria-expanded={open}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${kids} related message${kids === 1 ? '' : 's'}`}
            tabIndex={-1}
            onClick={(e) => {
              e.stopPropagation();
              onToggle(row);
            }}
          >
            {open ? '▾' : '▸'}
            <span className="traffic-kids">{kids}</span>
          </button>
        ) : row.depth > 0 ? (
          <span className="traffic-branch" aria-hidden="true">
            └
          </span>
        ) : null}
        <span className={`traffic-method${ev.kind === 'notification' ? ' is-note' : ''}`}>
          <Highlight text={ev.method ?? (ev.kind === 'fault' ? 'protocol fault' : isResponse ? 'response' : '')} query={query} />
        </span>
        {row.replayOf !== undefined ? <span className="traffic-tag">replay</span> : null}
        <EraTag sides={row.newEra} />
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-summary">
        {fraction !== undefined ? (
          <span className={`traffic-bar${row.status === 'pending' ? '' : ' is-done'}`} role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={p!.total} aria-valuenow={p!.done}>
            <span style={{ width: `${fraction * 100}%` }} />
          </span>
        ) : null}
        <Highlight text={store.summary(row)} query={query} />
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-decision">
        {row.decision ? <span className={`traffic-badge traffic-decision-${row.decision.toLowerCase()}`}>{row.decision}</span> : null}
        {row.outcome === 'denied' && row.decision !== 'DENY' ? (
          <span className="traffic-badge traffic-decision-deny" title={`denied by ${row.decidedBy ?? 'a person'}`}>
            {deciderLabel(row.decidedBy)}
          </span>
        ) : null}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-status">
        {status ? <span className={`traffic-status traffic-status-${status}`}>{status}</span> : null}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-latency">
        {formatLatency(row.latencyMs)}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-req">
        {isResponse ? '' : formatBytes(ev.bytes)}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-res">
        {isResponse ? formatBytes(ev.bytes) : row.pair ? formatBytes(row.pair.ev.bytes) : ''}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-pin">
        <button
          type="button"
          className={`traffic-pin${pinned ? ' is-pinned' : ''}`}
          aria-pressed={pinned}
          aria-label={pinned ? 'Unpin row' : 'Pin row'}
          title={pinned ? `Unpin (${PIN_SHORTCUT.toUpperCase()} or Space on the focused row)` : `Pin: stays in the timeline whatever the filters, and across reloads (${PIN_SHORTCUT.toUpperCase()} or Space on the focused row)`}
          tabIndex={-1}
          onClick={(e) => {
            e.stopPropagation();
            onPin(row);
          }}
        >
          {pinned ? '★' : '☆'}
        </button>
      </div>
    </>
  );
});

/** The props that decide whether a row re-renders. */
export function rowCellsProps(row: Row, store: TrafficStore): Pick<TrafficRowCellsProps, 'rev' | 'kids' | 'open' | 'pinned' | 'replayOf'> {
  const kids = row.root === row ? (row.children?.length ?? 0) : 0;
  return { rev: row._rev, kids, open: kids > 0 && store.isExpanded(row), pinned: store.isPinned(row), replayOf: row.replayOf };
}

/** Who denied an APPROVAL call, in one word for the DECISION column. */
function deciderLabel(by: string | undefined): string {
  if (by === 'timeout') return 'TIMEOUT';
  if (by === 'no_approver') return 'NO APPROVER';
  return 'DENIED';
}
