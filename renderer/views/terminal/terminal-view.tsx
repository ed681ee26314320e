// Terminal: agents and shells in a pty, wired to the active launch's gateway. The host
// owns the terminals (they survive a window reload); this view shows the active launch's ones as
// tabs, opens new ones from the launch's presets and closes them.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { ChevronDown, Plus, SquareTerminal, X } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Banner } from '../../components/banner';
import { Button } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { NoLaunchView } from '../../components/no-launch';
import { PageHeader } from '../../components/page-header';
import { errorText, useToast } from '../../components/toasts';
import { useCommand } from '../../components/use-command';
import { useAppState } from '../../state/app-context';
import { useStore } from '../../state/store';
import type { TerminalFeed, TerminalSummary } from './terminal-feed';
import { TerminalPane } from './terminal-pane';
import './terminal.css';

type Preset = NonNullable<ReturnType<typeof useCommand<'terminals:presets'>>['data']>[number];

const SELECTED_KEY = 'gatehouse.terminal.selected';

/** Tab titles: several terminals with the same title are numbered ("Shell", "Shell 2"). */
export function tabTitles(terminals: readonly TerminalSummary[]): Map<string, string> {
  const seen = new Map<string, number>();
  const out = new Map<string, string>();
  for (const t of [...terminals].sort((a, b) => a.startedAt - b.startedAt)) {
    const n = (seen.get(t.title) ?? 0) + 1;
    seen.set(t.title, n);
    out.set(t.id, n === 1 ? t.title : `${t.title} ${n}`);
  }
  return out;
}

export function TerminalView({ feed }: { feed: TerminalFeed }) {
  const api = useHostApi();
  const toast = useToast();
  const { launches } = useAppState();
  const launch = useStore(launches, (s) => s.launches.find((l) => l.id === s.activeId));
  const all = useStore(feed.store, (s) => s.terminals);
  const loaded = useStore(feed.store, (s) => s.loaded);
  const terminals = useMemo(() => all.filter((t) => t.launchId === launch?.id).sort((a, b) => a.startedAt - b.startedAt), [all, launch?.id]);
  const titles = useMemo(() => tabTitles(terminals), [terminals]);
  const [selected, setSelected] = useState<string | null>(() => readSelected());
  const [opening, setOpening] = useState(false);
  const [unavailable, setUnavailable] = useState<{ reason: string; install?: string } | null>(null);

  // Fresh list on entry (the feed keeps it current after that).
  useEffect(() => {
    void feed.refresh();
  }, [feed]);

  const current = terminals.find((t) => t.id === selected) ?? terminals.at(-1);
  const select = (id: string) => {
    setSelected(id);
    writeSelected(id);
  };

  const open = async (preset: Preset['preset']) => {
    if (!launch) return;
    setOpening(true);
    setUnavailable(null);
    try {
      const out = await api.call('terminals:open', { launchId: launch.id, preset });
      if (out.terminal) {
        const t = out.terminal;
        // Do not wait for `terminal:changed`: show the tab now (the event updates it in place).
        feed.store.update((s) => (s.terminals.some((x) => x.id === t.id) ? s : { ...s, terminals: [...s.terminals, t] }));
        select(t.id);
      } else setUnavailable({ reason: out.unavailable ?? 'the host could not start it', install: out.install });
    } catch (e) {
      toast.error('Could not open a terminal', e);
    } finally {
      setOpening(false);
    }
  };

  const close = async (t: TerminalSummary) => {
    try {
      await api.call('terminals:close', { id: t.id });
      feed.store.update((s) => ({ ...s, terminals: s.terminals.filter((x) => x.id !== t.id) }));
    } catch (e) {
      toast.error('Could not close the terminal', e);
    }
  };

  if (!launch) {
    return (
      <NoLaunchView title="Terminal" icon={<SquareTerminal size={28} />}>
        Launch a profile to run an agent or a shell wired to its gateway.
      </NoLaunchView>
    );
  }

  return (
    <div className="view view-terminal">
      <PageHeader
        title="Terminal"
        subtitle={
          <>
            Agents and shells for <b>{launch.profile}</b>, with <code className="mono">GATEHOUSE_MCP_URL</code> and their own gateway token. They keep running when this window reloads.
          </>
        }
        actions={<NewTerminalMenu launchId={launch.id} busy={opening} onPick={(p) => void open(p)} />}
      />
      <div className="view-body">
        {unavailable ? (
          <div className="term-banner">
            <Banner tone="warn" title="That agent is not available here" actions={<Button size="sm" variant="ghost" onClick={() => setUnavailable(null)}>Dismiss</Button>}>
              {unavailable.reason}
              {unavailable.install ? (
                <>
                  {' '}Install it with <code className="mono">{unavailable.install}</code>
                </>
              ) : null}
            </Banner>
          </div>
        ) : null}
        {terminals.length ? (
          <>
            <div className="term-bar">
              <div className="term-tabs" role="tablist" aria-label="Terminals" onKeyDown={(e) => onTabKey(e, terminals, current?.id, select)}>
                {terminals.map((t) => (
                  <button
                    key={t.id}
                    type="button"
                    role="tab"
                    id={`term-tab-${t.id}`}
                    aria-selected={t.id === current?.id}
                    aria-controls={`term-panel-${t.id}`}
                    tabIndex={t.id === current?.id ? 0 : -1}
                    className={`term-tab${t.id === current?.id ? ' is-active' : ''}`}
                    onClick={() => select(t.id)}
                    title={t.command}
                  >
                    <span className={`dot dot-${t.exit ? (t.exit.code === 0 ? 'neutral' : 'danger') : 'ok'}`} aria-hidden="true" />
                    <span>{titles.get(t.id) ?? t.title}</span>
                    {t.exit ? <span className={`term-tab-exit${t.exit.code === 0 ? '' : ' is-bad'}`}>{t.exit.code !== null ? `exited ${t.exit.code}` : `signal ${t.exit.signal ?? '?'}`}</span> : null}
                  </button>
                ))}
              </div>
              <div className="term-actions">
                {current ? (
                  <Button size="sm" variant="ghost" icon={<X size={13} />} onClick={() => void close(current)} aria-label="Close terminal" title={`Close ${titles.get(current.id) ?? current.title}${current.exit ? '' : ' (ends its process)'}`}>
                    Close
                  </Button>
                ) : null}
              </div>
            </div>
            <div className="term-stage">
              {terminals.map((t) => (
                <div key={t.id} id={`term-panel-${t.id}`} role="tabpanel" aria-labelledby={`term-tab-${t.id}`} hidden={t.id !== current?.id} className="term-pane-wrap">
                  <TerminalPane api={api} feed={feed} terminal={t} title={titles.get(t.id) ?? t.title} visible={t.id === current?.id} />
                </div>
              ))}
            </div>
          </>
        ) : (
          <div className="term-empty">
            <EmptyState icon={<SquareTerminal size={28} />} title={loaded ? 'No terminal yet' : 'Loading terminals…'}>
              Open a shell or an agent with <b>New terminal</b>. It can call the launch’s tools through the gateway, under the same policy and approvals.
            </EmptyState>
          </div>
        )}
      </div>
    </div>
  );
}

function onTabKey(e: KeyboardEvent, terminals: TerminalSummary[], current: string | undefined, select: (id: string) => void): void {
  const i = terminals.findIndex((t) => t.id === current);
  let next = -1;
  if (e.key === 'ArrowRight') next = (i + 1) % terminals.length;
  else if (e.key === 'ArrowLeft') next = (i - 1 + terminals.length) % terminals.length;
  else if (e.key === 'Home') next = 0;
  else if (e.key === 'End') next = terminals.length - 1;
  const t = terminals[next];
  if (!t) return;
  e.preventDefault();
  select(t.id);
  document.getElementById(`term-tab-${t.id}`)?.focus();
}

function NewTerminalMenu({ launchId, busy, onPick }: { launchId: string; busy: boolean; onPick: (preset: Preset['preset']) => void }) {
  const [open, setOpen] = useState(false);
  const presets = useCommand('terminals:presets', open ? { launchId } : null);
  const wrap = useRef<HTMLDivElement>(null);
  const menu = useRef<HTMLUListElement>(null);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (wrap.current && e.target instanceof Node && !wrap.current.contains(e.target)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);

  useEffect(() => {
    if (open && presets.data) menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])')?.focus();
  }, [open, presets.data]);

  const onMenuKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const i = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
      wrap.current?.querySelector<HTMLElement>('button[aria-haspopup]')?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      items[(i + step + items.length) % items.length]?.focus();
    }
  };

  // What can be opened first (the shell, installed agents), then what is listed only to say how to install it.
  const list = [...(presets.data ?? [])].sort((a, b) => Number(b.available) - Number(a.available));
  return (
    <div className="term-menu-wrap" ref={wrap}>
      <Button variant="primary" icon={<Plus size={14} />} busy={busy} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        New terminal <ChevronDown size={13} aria-hidden="true" />
      </Button>
      {open ? (
        <ul className="term-menu" role="menu" aria-label="New terminal" ref={menu} onKeyDown={onMenuKey}>
          {presets.loading && !presets.data ? <li className="muted pad" role="none">Checking which agents are installed…</li> : null}
          {presets.error ? <li role="none" className="pad error-text">{errorText(presets.error)}</li> : null}
          {list.map((p) => (
            <li key={p.preset} role="none">
              <button
                type="button"
                role="menuitem"
                className="term-menu-item"
                aria-disabled={p.available ? undefined : true}
                tabIndex={-1}
                onClick={() => {
                  if (!p.available) return;
                  setOpen(false);
                  onPick(p.preset);
                }}
              >
                <span className="term-menu-label">
                  {p.label}
                  {p.isProfileAgent ? <span className="badge badge-accent">profile’s agent</span> : null}
                  {p.available ? null : <span className="badge badge-neutral">not available</span>}
                </span>
                {!p.available && p.reason ? <span className="term-menu-why">{p.reason}</span> : null}
                {!p.available && p.install ? <code className="term-menu-install">{p.install}</code> : null}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function readSelected(): string | null {
  try {
    return globalThis.sessionStorage?.getItem(SELECTED_KEY) ?? null;
  } catch {
    return null;
  }
}

function writeSelected(id: string): void {
  try {
    globalThis.sessionStorage?.setItem(SELECTED_KEY, id);
  } catch {}
}
