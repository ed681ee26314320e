// The detail pane: the selected message and its pair side by side, the hops of its exchange,
// copy/export, and replay of a tools/call with a diff of the two results.
import { isObject } from '../../../common/is-object';
import { useState } from 'react';
import { formatBytes, formatTime } from '../../components/format-time';
import { lineDiff, toJsonl, type TrafficBodies, type TrafficRow, type TrafficStore } from '../../lib/traffic-store';
import { copyText } from '../../components/clipboard';
import { downloadText } from '../../lib/download';
import { JsonTree } from './json-tree';
import { formatLatency } from './traffic-row';
import { useBody } from './use-body';
import { useHostApi } from '../../api/context';
import { ReplayEditor } from './replay-editor';

export interface ReplayState {
  at: number;
  busy: boolean;
  result?: unknown;
  error?: string;
  exchange?: string;
  /** Set when the arguments were edited before the replay. */
  edited?: boolean;
}

export interface DetailPaneProps {
  row: TrafficRow;
  store: TrafficStore;
  query: string;
  replays: readonly ReplayState[];
  /** `args`: edited arguments (edit-then-replay); without them, the original's. */
  onReplay?: (row: TrafficRow, args?: Record<string, unknown>) => void;
  onSelect: (row: TrafficRow) => void;
  onClose: () => void;
}


/** A tools/call request (its arguments are fetched from the host when it is replayed). */
export function canReplay(row: TrafficRow): boolean {
  return row.ev.kind === 'request' && row.ev.method === 'tools/call' && isObject(row.ev.message) && isObject(row.ev.message.params);
}

async function exportExchange(bodies: TrafficBodies, hops: TrafficRow[], name: string): Promise<void> {
  downloadText(toJsonl(hops, await bodies.collect(hops)), name);
}

export function DetailPane({ row, store, query, replays, onReplay, onSelect, onClose }: DetailPaneProps) {
  const { ev } = row;
  const isResponse = ev.kind === 'response' || ev.kind === 'error';
  const request = isResponse ? row.pair : row;
  const response = isResponse ? row : row.pair;
  const hops = store.exchangeRows(row);
  const replayOf = row.replayOf !== undefined ? store.get(row.replayOf) : undefined;
  const title = `${ev.method ?? (ev.kind === 'fault' ? 'protocol fault' : 'response')}${ev.id !== undefined ? ` #${String(ev.id)}` : ''}`;
  const [editing, setEditing] = useState(false);
  // An agent's request over HTTP can be sent again with curl; the window's own calls have no HTTP leg.
  const agentRequest = hops.find((h) => h.ev.direction === 'agent_to_gateway' && h.ev.kind === 'request');
  const curlable = ev.exchange !== undefined && agentRequest !== undefined && !(agentRequest.ev.agentSession ?? '').startsWith('ui-');
  return (
    <section className="traffic-detail" aria-label={`Details of ${title}`}>
      <header className="traffic-detail-head">
        <h2 className="traffic-detail-title">{title}</h2>
        <span className="traffic-detail-meta">
          {row.status ? <span className={`traffic-status traffic-status-${row.status}`}>{row.status}</span> : null}
          {row.decision ? <span className={`traffic-badge traffic-decision-${row.decision.toLowerCase()}`}>{row.decision}</span> : null}
          {row.decidedBy ? <span className="traffic-decided-by">decided by {row.decidedBy.replace('_', ' ')}</span> : null}
          {row.outcome && row.outcome !== 'pending' ? <span className="traffic-outcome">{row.outcome}</span> : null}
          {row.latencyMs !== undefined ? <span>{formatLatency(row.latencyMs)}</span> : null}
          {row.tool ? <code>{row.tool}</code> : null}
          {ev.fault ? <span className="traffic-fault-text">{ev.fault}</span> : null}
        </span>
        <span className="traffic-detail-actions">
          <button type="button" className="tb-btn" onClick={() => void exportExchange(store.bodies, hops, `exchange-${ev.exchange ?? ev.seq}.jsonl`)}>
            Export exchange
          </button>
          {curlable ? <CurlButton session={ev.session} exchange={ev.exchange!} /> : null}
          {canReplay(request ?? row) && onReplay ? (
            <>
              <button type="button" className="tb-btn tb-btn-primary" onClick={() => onReplay(request ?? row)} title="Re-send this tools/call through the gateway (same launch, tool and arguments)">
                Replay
              </button>
              <button type="button" className="tb-btn" aria-pressed={editing} onClick={() => setEditing(!editing)} title="Edit the arguments, then re-send this tools/call through the gateway">
                Edit &amp; replay
              </button>
            </>
          ) : null}
          <button type="button" className="tb-btn" aria-label="Close details" onClick={onClose}>
            ✕
          </button>
        </span>
      </header>
      <CallFindings row={row} />
      {hops.length > 1 ? (
        <ol className="traffic-hops" aria-label="Messages of this exchange">
          {hops.map((h) => (
            <li key={h.seq}>
              <button type="button" className={`traffic-hop${h === row ? ' is-current' : ''}`} aria-current={h === row} onClick={() => onSelect(h)}>
                <span className="traffic-hop-time">{formatTime(h.ev.ts)}</span>
                <span className={`traffic-dir-${h.ev.direction}`}>{h.ev.direction.replace(/_/g, ' ')}</span>
                <span>{h.ev.method ?? h.ev.kind}</span>
                {h.ev.id !== undefined ? <span>#{String(h.ev.id)}</span> : null}
                {h.ev.server ? <span>{h.ev.server}</span> : null}
                {h.latencyMs !== undefined && !h.merged ? <span>{formatLatency(h.latencyMs)}</span> : null}
              </button>
            </li>
          ))}
        </ol>
      ) : null}
      {replayOf ? (
        <p className="traffic-note">
          Replay of{' '}
          <button type="button" className="traffic-link" onClick={() => onSelect(replayOf)}>
            {replayOf.ev.method} #{String(replayOf.ev.id)} at {formatTime(replayOf.ev.ts)}
          </button>
        </p>
      ) : null}
      <div className="traffic-detail-body">
        <MessageColumn label={isResponse && !request ? 'Response (unmatched)' : ev.kind === 'notification' ? 'Notification' : ev.kind === 'fault' ? 'Fault (raw)' : 'Request'} row={request ?? row} bodies={store.bodies} query={query} />
        {ev.kind === 'request' || (isResponse && request) ? (
          response ? <MessageColumn label={response.ev.kind === 'error' ? 'Error response' : 'Response'} row={response} bodies={store.bodies} query={query} /> : <div className="traffic-col traffic-col-empty">No response {row.status === 'aborted' ? '(aborted)' : 'yet'}</div>
        ) : null}
      </div>
      {editing && onReplay && canReplay(request ?? row) ? (
        <ReplayEditor
          row={request ?? row}
          store={store}
          onCancel={() => setEditing(false)}
          onReplay={(args) => {
            setEditing(false);
            onReplay(request ?? row, args);
          }}
        />
      ) : null}
      {replays.length > 0 ? <Replays original={request ?? row} replays={replays} store={store} onSelect={onSelect} /> : null}
    </section>
  );
}

/** Copies a curl command for this exchange's HTTP request, with `$GATEHOUSE_TOKEN` for the token. */
function CurlButton({ session, exchange }: { session: string; exchange: string }) {
  const api = useHostApi();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      const { command } = await api.call('traffic:curl', { session, exchange });
      await copyText(command);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" className="tb-btn" onClick={() => void copy()} title="Copy a curl command that sends this request again (the token stays $GATEHOUSE_TOKEN)">
      {state === 'copied' ? 'Copied curl' : state === 'failed' ? 'Copy as curl (failed)' : 'Copy as curl'}
    </button>
  );
}

function MessageColumn({ label, row, bodies, query }: { label: string; row: TrafficRow; bodies: TrafficBodies; query: string }) {
  const [copied, setCopied] = useState(false);
  const body = useBody(bodies, row);
  return (
    <div className="traffic-col">
      <div className="traffic-col-head">
        <h3>{label}</h3>
        <span className="traffic-col-meta">
          {formatTime(row.ev.ts)} · {formatBytes(row.ev.bytes)}
        </span>
        <button
          type="button"
          className="tb-btn tb-btn-quiet"
          aria-label={`Copy ${label.toLowerCase()} JSON`}
          disabled={body?.state !== 'held'}
          onClick={() => body?.state === 'held' && void copyText(JSON.stringify(body.message, null, 2)).then(() => setCopied(true), () => setCopied(false))}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {body?.state === 'held' ? (
        <JsonTree value={body.message} query={query} label={`${label} JSON`} />
      ) : (
        <p className="traffic-note">{body?.state === 'gone' ? 'This message is no longer held by the host (and the audit store is off or has pruned it).' : 'Loading…'}</p>
      )}
    </div>
  );
}

function Replays({ original, replays, store, onSelect }: { original: TrafficRow; replays: readonly ReplayState[]; store: TrafficStore; onSelect: (r: TrafficRow) => void }) {
  const body = useBody(store.bodies, original.pair);
  const msg = body?.state === 'held' && isObject(body.message) ? body.message : undefined;
  const before = pretty(msg ? (msg.result ?? { error: msg.error }) : undefined);
  return (
    <div className="traffic-replays">
      {replays.map((r, i) => {
        const linked = r.exchange ? store.exchangeRoot(original.ev.session, r.exchange) : undefined;
        const after = pretty(r.error !== undefined ? { error: r.error } : r.result);
        const diff = r.busy ? [] : lineDiff(before, after);
        const same = diff.every((d) => d.op === ' ');
        return (
          <section key={r.at} className="traffic-replay" aria-label={`Replay ${i + 1}`}>
            <h3>
              Replay {i + 1} · {formatTime(r.at)}
              {r.edited ? ' · edited arguments' : ''}
              {linked ? (
                <button type="button" className="traffic-link" onClick={() => onSelect(linked)}>
                  show in timeline
                </button>
              ) : r.exchange ? (
                <code>{r.exchange}</code>
              ) : null}
            </h3>
            {r.busy ? (
              <p className="traffic-note">Waiting for the result (approval may be asked)…</p>
            ) : same ? (
              <p className="traffic-note">Same result as the original.</p>
            ) : (
              <pre className="traffic-diff" aria-label="Difference between the original result and the replay's">
                {diff.map((d, k) => (
                  <div key={k} className={d.op === '+' ? 'is-add' : d.op === '-' ? 'is-del' : ''}>
                    {d.op} {d.text}
                  </div>
                ))}
              </pre>
            )}
          </section>
        );
      })}
    </div>
  );
}

function pretty(v: unknown): string {
  if (v === undefined) return '(no result)';
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

/**
 * Why the call was decided so, in full (a flow-guard decision names the session's labels and the
 * tool's mark), and what the data scanner found: direction, rule, JSON path; never a value.
 */
function CallFindings({ row }: { row: TrafficRow }) {
  // The exchange's record sits on the call's row; a selected leg or response shows its call's.
  const call = row.findings || row.reason ? row : row.pair?.findings || row.pair?.reason ? row.pair : row.root;
  const findings = call.findings ?? [];
  const flowDecided = call.rule === 'policy.flow' && call.reason !== undefined;
  if (findings.length === 0 && !flowDecided && !call.flow?.length) return null;
  return (
    <div className="traffic-findings-detail">
      {flowDecided ? (
        <p className="traffic-flow-reason" aria-label="Flow guard reason">
          <strong>Flow guard:</strong> {call.reason}
        </p>
      ) : null}
      {call.flow?.length ? <p className="traffic-flow-labels">Session labels when decided: {call.flow.join(', ')}</p> : null}
      {findings.length > 0 ? (
        <table className="traffic-findings-table" aria-label="Data findings">
          <thead>
            <tr>
              <th>Direction</th>
              <th>Rule</th>
              <th>Path</th>
            </tr>
          </thead>
          <tbody>
            {findings.map((f, i) => (
              <tr key={i}>
                <td>{f.direction}</td>
                <td>
                  {f.rule}
                  {f.detail ? ` (${f.detail})` : ''}
                </td>
                <td>
                  <code>{f.path}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
