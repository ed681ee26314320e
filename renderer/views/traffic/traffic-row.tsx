// One dense row of the timeline (≤ 24 px): cells read straight from the store's row object.
import { memo } from 'react';
import { formatBytes, formatTime } from '../../components/format-time';
import type { TrafficRow as Row, TrafficStore } from '../../lib/traffic-store';
import { Highlight } from './highlight';
import { EraTag } from './era-tag';
import type { SortColumn, TrafficSort } from './sorted-rows';
import './traffic-sort.css';

export const ROW_HEIGHT = 22;

/**
 * Characters of a summary the row lays out (its tooltip keeps the whole of it, at most 240): the
 * column shows ~65 at 1400 px and ~160 at ~2000 px. Laying out text no one can see was most of a
 * refresh while following a flood (bench:ui's trace: ~30 ms of layout per refresh).
 */
export const SUMMARY_SHOWN = 160;

/** The summary text a row lays out: whole while a search highlights in it, else clipped with "…". */
export function shownSummary(summary: string, query: string): string {
  return query || summary.length <= SUMMARY_SHOWN ? summary : `${summary.slice(0, SUMMARY_SHOWN)}…`;
}

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

/** Columns a header press sorts by (sorted-rows.ts), with what the button says. */
const SORTABLE: Partial<Record<(typeof COLUMNS)[number], [SortColumn, string]>> = {
  Latency: ['latency', 'latency'],
  Req: ['req', 'request size'],
  Res: ['res', 'response size'],
};

export function TrafficHeader({ sort, onSort }: { sort?: TrafficSort; onSort?: (column: SortColumn) => void }) {
  return (
    <>
      {COLUMNS.map((c) => {
        const sortable = SORTABLE[c];
        const dir = sortable && sort?.column === sortable[0] ? sort.dir : undefined;
        return (
          <div
            key={c}
            role="columnheader"
            className={`traffic-cell traffic-c-${c.toLowerCase()}`}
            aria-sort={sortable ? (dir === 'desc' ? 'descending' : dir === 'asc' ? 'ascending' : 'none') : undefined}
          >
            {c === 'Pin' ? (
              <span className="traffic-sr">Pinned</span>
            ) : sortable && onSort ? (
              <button
                type="button"
                className={`traffic-sort${dir ? ' is-sorted' : ''}`}
                title={dir === 'desc' ? `Sorted by ${sortable[1]}, largest first: press for smallest first` : dir === 'asc' ? `Sorted by ${sortable[1]}, smallest first: press for arrival order` : `Sort by ${sortable[1]}, largest first`}
                onClick={() => onSort(sortable[0])}
              >
                {c}
                <span aria-hidden="true">{dir === 'desc' ? ' ▼' : dir === 'asc' ? ' ▲' : ''}</span>
              </button>
            ) : (
              c
            )}
          </div>
        );
      })}
    </>
  );
}

/** The agent a row belongs to: its client's name (a call's upstream leg: its call's), else the id. */
export function agentOf(row: Row): { label: string; title: string | undefined } {
  const ev = row.ev.agentName !== undefined ? row.ev : row.root.ev.agentName !== undefined ? row.root.ev : row.ev;
  const id = row.ev.agentSession ?? row.root.ev.agentSession;
  if (ev.agentName === undefined) return { label: shortId(id), title: id };
  const version = ev.agentVersion ? ` ${ev.agentVersion}` : '';
  return { label: ev.agentName, title: `${ev.agentName}${version}${id ? ` · agent session ${id}` : ''}` };
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
  const agent = agentOf(row);
  const summary = store.summary(row);
  const decision = decisionBadge(row);
  const findings = findingsBadge(row);
  return (
    <>
      <div role="gridcell" className="traffic-cell traffic-c-time">
        {formatTime(ev.ts)}
      </div>
      <div role="gridcell" className={`traffic-cell traffic-c-dir traffic-dir-${ev.direction}`} title={dirLabel} aria-label={`${arrow}, ${dirLabel}`}>
        {arrow}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-agent" title={agent.title}>
        {agent.label}
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
        {/* In the method cell, not the narrow decision column: "2 credentials" is read whole. */}
        {findings ? (
          <span className="traffic-badge traffic-findings" title={findings.title}>
            {findings.text}
          </span>
        ) : null}
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-summary" title={summary.length > 40 ? summary : undefined}>
        {fraction !== undefined ? (
          <span className={`traffic-bar${row.status === 'pending' ? '' : ' is-done'}`} role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={p!.total} aria-valuenow={p!.done}>
            <span style={{ width: `${fraction * 100}%` }} />
          </span>
        ) : null}
        <Highlight text={shownSummary(summary, query)} query={query} />
      </div>
      <div role="gridcell" className="traffic-cell traffic-c-decision">
        {decision ? (
          <span className={`traffic-badge traffic-decision-${decision.tone}`} title={decision.title}>
            {decision.text}
          </span>
        ) : null}
        {row.shadow ? (
          <span className="traffic-badge traffic-shadow" title={`${row.shadow} (not enforced)`}>
            shadow
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

/**
 * The findings badge: how many and of what kind ("2 credentials"), the rules and where in its
 * tooltip. Never a value: a finding carries none (docs/data.md).
 */
export function findingsBadge(row: Pick<Row, 'findings'>): { text: string; title: string } | undefined {
  const list = row.findings;
  if (!list?.length) return undefined;
  const kinds = new Set(list.map((f) => f.kind));
  const noun = kinds.size === 1 ? (list[0]!.kind === 'secret' ? 'secret' : 'credential') : 'finding';
  const text = `${list.length} ${noun}${list.length === 1 ? '' : 's'}`;
  const title = list.map((f) => `${f.rule}${f.detail ? ` (${f.detail})` : ''} in the ${f.direction} at ${f.path}`).join('\n');
  return { text, title };
}

/**
 * One badge, the whole decision: an APPROVAL call shows how it ended (DENIED, TIMEOUT, NO
 * APPROVER, APPROVED) rather than "APPROVAL" beside a second badge, which the column cut to
 * "APPROVAL…" and hid the denial.
 */
export function decisionBadge(row: Row): { text: string; tone: 'allow' | 'approval' | 'deny'; title: string } | undefined {
  if (!row.decision) return row.outcome === 'denied' ? { text: deniedLabel(row.decidedBy), tone: 'deny', title: `denied by ${row.decidedBy ?? 'a person'}` } : undefined;
  if (row.decision === 'ALLOW') return { text: 'ALLOW', tone: 'allow', title: `allowed${row.decidedBy ? ` by ${row.decidedBy}` : ''}` };
  if (row.decision === 'DENY') return { text: 'DENY', tone: 'deny', title: `denied by ${row.decidedBy ?? 'the policy'}` };
  if (row.outcome === 'denied') return { text: deniedLabel(row.decidedBy), tone: 'deny', title: `needed approval; denied by ${row.decidedBy === 'timeout' ? 'the timeout' : row.decidedBy === 'no_approver' ? 'no approver being attached' : (row.decidedBy ?? 'a person')}` };
  const answered = row.outcome === 'ok' || row.outcome === 'error' || (row.outcome === undefined && row.status === 'ok');
  if (answered) return { text: 'APPROVED', tone: 'allow', title: `needed approval; approved${row.decidedBy ? ` by ${row.decidedBy}` : ''}` };
  return { text: 'APPROVAL', tone: 'approval', title: row.outcome && row.outcome !== 'pending' ? `needed approval; ${row.outcome}` : 'needs approval: waiting for a person' };
}

/** Who denied an APPROVAL call, in one word for the DECISION column. */
function deniedLabel(by: string | undefined): string {
  if (by === 'timeout') return 'TIMEOUT';
  if (by === 'no_approver') return 'NO APPROVER';
  return 'DENIED';
}
