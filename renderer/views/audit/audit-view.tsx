// Audit: past sessions from the SQLite store, searchable by text, server and method, calls
// narrowed by outcome; a session opens its messages and decisions. Totals say how many match
// beyond the page, a search that narrows an opened session says so, and Export saves the same
// JSON Lines as `gatehouse audit export --jsonl`.
import { Fragment, useMemo, useState, type FormEvent } from 'react';
import { History, RefreshCw, Search } from 'lucide-react';
import type { CommandInput } from '../../../common/host-api';
import { Badge, toneFor } from '../../components/badge';
import { Banner } from '../../components/banner';
import { Button, IconButton } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { formatBytes, formatDuration } from '../../components/format-time';
import { JsonView } from '../../components/json-view';
import { PageHeader } from '../../components/page-header';
import { SplitPane } from '../../components/split-pane';
import { Timestamp } from '../../components/timestamp';
import { errorText } from '../../components/toasts';
import { useCommand } from '../../components/use-command';
import type { AuditSession } from '../../state/types';
import { AuditExport, NarrowedNotice, OUTCOME_GROUPS, type OutcomeGroup } from './audit-tools';
import { TrustDecisions } from './trust-decisions';
import { snippetOf, SnippetText } from './snippet';

type Query = CommandInput<'audit:query'>;
type Row = Record<string, unknown>;

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const numOr = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

const DIRECTION: Record<string, string> = {
  agent_to_gateway: 'agent → gw',
  gateway_to_agent: 'gw → agent',
  gateway_to_server: 'gw → server',
  server_to_gateway: 'server → gw',
};

export function AuditView() {
  const sessions = useCommand('audit:sessions', { limit: 200 });
  const [draft, setDraft] = useState<{ text: string; server: string; method: string; group: OutcomeGroup | '' }>({ text: '', server: '', method: '', group: '' });
  const [query, setQuery] = useState<Query | null>(null);
  const [session, setSession] = useState<AuditSession | null>(null);
  const result = useCommand('audit:query', query);

  const withDraft = (q: Query, d: typeof draft = draft): Query => {
    if (d.text.trim()) q.text = d.text.trim();
    if (d.server.trim()) q.server = d.server.trim();
    if (d.method.trim()) q.method = d.method.trim();
    if (d.group) q.group = d.group;
    return q;
  };

  const search = (e: FormEvent): void => {
    e.preventDefault();
    setQuery(withDraft(session ? { session: session.id, limit: 1000 } : { limit: 500 }));
  };

  const open = (s: AuditSession): void => {
    setSession(s);
    setQuery(withDraft({ session: s.id, limit: 1000 }));
  };

  /** Drops the search terms (not the outcome filter) and reads the opened session again. */
  const clearSearch = (): void => {
    const next = { ...draft, text: '', server: '', method: '' };
    setDraft(next);
    if (session) setQuery(withDraft({ session: session.id, limit: 1000 }, next));
  };

  return (
    <div className="view view-audit">
      <PageHeader title="Audit" subtitle="Every session, message and decision, from the local SQLite store." actions={<IconButton label="Reload sessions" icon={<RefreshCw size={14} />} variant="secondary" onClick={sessions.reload} />} />
      <form className="audit-search" role="search" aria-label="Search the audit trail" onSubmit={search}>
        <div className="search-box grow">
          <Search size={14} aria-hidden="true" />
          <input className="input input-bare" type="search" placeholder="Text in messages, tools, reasons" aria-label="Text" value={draft.text} onChange={(e) => setDraft({ ...draft, text: e.target.value })} />
        </div>
        <input className="input" placeholder="server" aria-label="Server" value={draft.server} onChange={(e) => setDraft({ ...draft, server: e.target.value })} />
        <input className="input" placeholder="method, e.g. tools/*" aria-label="Method" value={draft.method} onChange={(e) => setDraft({ ...draft, method: e.target.value })} />
        <select className="input" aria-label="Outcome" value={draft.group} onChange={(e) => setDraft({ ...draft, group: e.target.value as OutcomeGroup | '' })}>
          <option value="">any outcome</option>
          {OUTCOME_GROUPS.map((g) => (
            <option key={g.id} value={g.id}>{g.label}</option>
          ))}
        </select>
        <Button type="submit" variant="primary">Search</Button>
        {session ? (
          <Button variant="ghost" onClick={() => { setSession(null); setQuery(null); }}>
            All sessions
          </Button>
        ) : null}
      </form>
      <div className="view-body">
        <SplitPane
          id="audit"
          initial={340}
          min={240}
          max={560}
          label="Resize session list"
          first={<SessionList state={sessions} selected={session?.id} onOpen={open} />}
          second={
            query === null ? (
              <div className="audit-idle">
                <EmptyState icon={<History size={28} />} title="Open a session or search">
                  Pick a session on the left to read its messages and decisions, or search across all sessions.
                </EmptyState>
                <TrustDecisions />
              </div>
            ) : (
              <>
                {session && query ? <NarrowedNotice session={session} query={query} shown={result.data?.messages.length} onClear={clearSearch} /> : null}
                <AuditExport session={session?.id} text={query.text} />
                <QueryResult title={session ? `Session ${session.id}` : 'Search results'} loading={result.loading} error={result.error} data={result.data} />
              </>
            )
          }
        />
      </div>
    </div>
  );
}

function SessionList({ state, selected, onOpen }: { state: ReturnType<typeof useCommand<'audit:sessions'>>; selected?: string; onOpen: (s: AuditSession) => void }) {
  if (state.error) return <Banner tone="danger" title="Could not read the audit store">{errorText(state.error)}</Banner>;
  const list = state.data ?? [];
  return (
    <nav className="session-list scroll" aria-label="Audit sessions">
      {state.loading && !state.data ? <p className="muted pad">Loading sessions…</p> : null}
      {!state.loading && list.length === 0 ? <p className="muted pad">No sessions recorded yet.</p> : null}
      <ul>
        {list.map((s) => (
          <li key={s.id}>
            <button type="button" className={`session-item${s.id === selected ? ' is-active' : ''}`} aria-current={s.id === selected ? 'true' : undefined} onClick={() => onOpen(s)}>
              <span className="session-line">
                <b>{s.profile ?? s.kind}</b>
                <Badge>{s.kind}</Badge>
                <span className="spacer" />
                <Timestamp ts={s.startedAt} />
              </span>
              <span className="session-line muted small">
                {s.messages} msgs · {s.decisions} decisions · {s.stderrLines} stderr
                <span className="spacer" />
                {s.endedAt ? formatDuration(s.endedAt - s.startedAt) : <Badge tone="ok">live</Badge>}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function QueryResult({ title, loading, error, data }: { title: string; loading: boolean; error: unknown; data?: { messages: Row[]; decisions: Row[]; calls?: Row[]; callsTotal?: number } }) {
  const [tab, setTab] = useState<'calls' | 'messages' | 'decisions'>('calls');
  const [open, setOpen] = useState<number | null>(null);
  const messages = useMemo(() => data?.messages ?? [], [data]);
  const decisions = data?.decisions ?? [];
  const calls = data?.calls ?? [];
  return (
    <section className="audit-result scroll" aria-label={title}>
      <div className="section-head">
        <h2 className="section-title">{title}</h2>
        <div className="segmented" role="radiogroup" aria-label="Show">
          <button type="button" role="radio" aria-checked={tab === 'calls'} className={tab === 'calls' ? 'is-on' : ''} onClick={() => setTab('calls')}>
            Calls ({data?.callsTotal !== undefined && data.callsTotal > calls.length ? `${calls.length.toLocaleString()} of ${data.callsTotal.toLocaleString()}` : calls.length.toLocaleString()})
          </button>
          <button type="button" role="radio" aria-checked={tab === 'messages'} className={tab === 'messages' ? 'is-on' : ''} onClick={() => setTab('messages')}>
            Messages ({messages.length})
          </button>
          <button type="button" role="radio" aria-checked={tab === 'decisions'} className={tab === 'decisions' ? 'is-on' : ''} onClick={() => setTab('decisions')}>
            Decisions ({decisions.length})
          </button>
        </div>
        {loading ? <span className="muted small">loading…</span> : null}
      </div>
      {error ? <Banner tone="danger" title="Query failed">{errorText(error)}</Banner> : null}
      {tab === 'calls' ? (
        <CallTable calls={calls} loading={loading} />
      ) : tab === 'messages' ? (
        messages.length === 0 && !loading ? (
          <p className="muted pad">No messages match.</p>
        ) : (
          <table className="table table-interactive dense">
            <thead>
              <tr><th>Time</th><th>Direction</th><th>Server</th><th>Kind</th><th>Method</th><th>Id</th><th>Decision</th><th className="num">Bytes</th><th className="num">Latency</th></tr>
            </thead>
            <tbody>
              {messages.map((m, i) => {
                const ts = numOr(m.ts);
                const isOpen = open === i;
                return (
                  <MessageRows key={str(m.seq) || i} m={m} ts={ts} isOpen={isOpen} onToggle={() => setOpen(isOpen ? null : i)} />
                );
              })}
            </tbody>
          </table>
        )
      ) : decisions.length === 0 && !loading ? (
        <p className="muted pad">No decisions match.</p>
      ) : (
        <table className="table dense">
          <thead>
            <tr><th>Time</th><th>Tool</th><th>Server</th><th>Decision</th><th>Outcome</th><th>Answered by</th><th>Reason</th></tr>
          </thead>
          <tbody>
            {decisions.map((d, i) => {
              const snip = snippetOf(d);
              return (
                <Fragment key={str(d.seq) || i}>
                  <tr>
                    <td>{numOr(d.ts) !== undefined ? <Timestamp ts={d.ts as number} /> : '—'}</td>
                    <td className="mono">{str(d.tool)}</td>
                    <td>{str(d.server)}</td>
                    <td><Badge tone={toneFor(str(d.decision))}>{str(d.decision)}</Badge></td>
                    <td>{str(d.outcome)}</td>
                    <td>{str(d.answeredBy) || '—'}</td>
                    <td className="cell-wrap">{str(d.reason)}</td>
                  </tr>
                  {snip ? (
                    <tr className="row-snippet">
                      <td colSpan={7}><SnippetText snippet={snip} /></td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One row per call: what was called, the decision and who made it, how it ended. */
function CallTable({ calls, loading }: { calls: Row[]; loading: boolean }) {
  if (calls.length === 0 && !loading) return <p className="muted pad">No calls match.</p>;
  return (
    <table className="table dense" aria-label="Calls">
      <thead>
        <tr><th>Time</th><th>Tool</th><th>Server</th><th>Decision</th><th>Decided by</th><th>Outcome</th><th className="num">Latency</th><th>Exchange</th></tr>
      </thead>
      <tbody>
        {calls.map((c, i) => (
          <tr key={str(c.seq) || i} className={c.outcome === 'denied' || c.outcome === 'error' ? 'row-error' : ''}>
            <td>{numOr(c.ts) !== undefined ? <Timestamp ts={c.ts as number} /> : '—'}</td>
            <td className="mono">{str(c.tool) || str(c.advertised) || str(c.method)}</td>
            <td>{str(c.server) || '—'}</td>
            <td>{c.decision ? <Badge tone={toneFor(str(c.decision))}>{str(c.decision)}</Badge> : '—'}</td>
            <td>{str(c.decidedBy).replace('_', ' ') || '—'}{c.answeredBy ? ` (${str(c.answeredBy)})` : ''}</td>
            <td>{c.outcome === 'denied' || c.outcome === 'error' ? <Badge tone="danger">{str(c.outcome)}</Badge> : str(c.outcome)}</td>
            <td className="num mono">{numOr(c.latencyMs) !== undefined ? formatDuration(c.latencyMs as number) : ''}</td>
            <td className="mono small">{str(c.id)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MessageRows({ m, ts, isOpen, onToggle }: { m: Row; ts?: number; isOpen: boolean; onToggle: () => void }) {
  const kind = str(m.kind);
  const snip = snippetOf(m);
  return (
    <>
      <tr className={`${isOpen ? 'is-selected' : ''}${kind === 'fault' || kind === 'error' ? ' row-error' : ''}`} onClick={onToggle} aria-expanded={isOpen}>
        <td>
          <button type="button" className="link-plain" onClick={(e) => { e.stopPropagation(); onToggle(); }} aria-label={`${isOpen ? 'Hide' : 'Show'} message ${str(m.seq)}`}>
            {ts !== undefined ? <Timestamp ts={ts} /> : '—'}
          </button>
        </td>
        <td className="muted">{DIRECTION[str(m.direction)] ?? str(m.direction)}</td>
        <td>{str(m.server) || '—'}</td>
        <td>{kind === 'fault' || kind === 'error' ? <Badge tone="danger">{kind}</Badge> : kind}</td>
        <td className="mono">{str(m.method) || (m.tool ? str(m.tool) : '—')}</td>
        <td className="mono">{str(m.id)}</td>
        <td>{m.decision ? <Badge tone={toneFor(str(m.decision))}>{str(m.decision)}</Badge> : null}</td>
        <td className="num mono">{numOr(m.bytes) !== undefined ? formatBytes(m.bytes as number) : ''}</td>
        <td className="num mono">{numOr(m.latencyMs) !== undefined ? formatDuration(m.latencyMs as number) : ''}</td>
      </tr>
      {snip && !isOpen ? (
        <tr className="row-snippet" onClick={onToggle}>
          <td colSpan={9}><SnippetText snippet={snip} /></td>
        </tr>
      ) : null}
      {isOpen ? (
        <tr className="row-detail">
          <td colSpan={9}>
            {m.fault ? <p className="error-text">{str(m.fault)}</p> : null}
            <JsonView value={m.message} maxHeight={360} label="Message" />
          </td>
        </tr>
      ) : null}
    </>
  );
}
