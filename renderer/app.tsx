// The application shell: left navigation, top bar (active launch, connection, theme), the
// current view, and the approvals tray beside it (never over it).
import { memo, StrictMode, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import {
  ArrowLeftRight,
  Bell,
  FileText,
  FolderKanban,
  History,
  KeyRound,
  Keyboard,
  MessageSquareText,
  Monitor,
  Moon,
  PanelRightOpen,
  Plug,
  ScrollText,
  Server,
  ShieldCheck,
  SquareTerminal,
  Sun,
  TerminalIcon,
  Wifi,
  WifiOff,
} from 'lucide-react';
import { HostApiContext, useHostApi } from './api/context';
import { useAppCommands } from './app-commands';
import { useAttentionBadge } from './components/attention';
import { CommandPalette } from './components/command-palette';
import { focusRegion } from './components/focus-regions';
import { ShortcutsHelp } from './components/shortcuts-help';
import { useCommand } from './components/use-command';
import { CountBadge } from './components/badge';
import { IconButton } from './components/button';
import { Kbd } from './components/kbd';
import { shortcutLabel, useShortcuts, VIEW_KEY_COUNT } from './components/shortcuts';
import { Timestamp } from './components/timestamp';
import { ToastProvider, useToast } from './components/toasts';
import { LogStore } from './lib/log-store';
import { TrafficStore } from './lib/traffic-store';
import { toolConsoleState } from './state/tool-console-state';
import { AppStateContext, useAppState } from './state/app-context';
import { AppState, type AppHostApi } from './state/app-state';
import { navigate, navStore, VIEW_IDS, type ViewId } from './state/nav-store';
import { useStore } from './state/store';
import { setTheme, themeStore, type ThemePreference } from './state/theme';
import { ApprovalsTray } from './views/approvals/approvals-tray';
import { ApprovalsView } from './views/approvals/approvals-view';
import { notificationPermission, notifyApproval, requestNotificationPermission, type NotifyPermission } from './views/approvals/notify';
import { hostShell } from './api';
import { AuditView } from './views/audit/audit-view';
import { ConnectView } from './views/connect/connect-view';
import { ProfilesView } from './views/profiles/profiles-view';
import { PromptsView } from './views/prompts/prompts-view';
import { ResourcesView } from './views/resources/resources-view';
import { ServersView } from './views/servers/servers-view';
import { AuthExpiryNotices } from './views/servers/server-sign-in';
import { DoctorPanel } from './views/doctor/doctor-panel';
import { LaunchNotices } from './views/doctor/launch-notices';
import { SecretsView } from './views/secrets/secrets-view';
import { ToolConsoleView } from './views/tool-console/tool-console-view';
import { TrafficView, useTrafficLaunches } from './views/traffic';
import { TrafficMarksSync } from './views/traffic/traffic-marks';
import { LogsView } from './views/logs';
import { TerminalFeed, TerminalView } from './views/terminal';

// Re-rendered only when what it is given changes (useTrafficLaunches): its store drives its frames.
const TrafficViewMemo = memo(TrafficView);

interface NavItem {
  id: ViewId;
  label: string;
  icon: ReactNode;
}

const NAV: NavItem[] = [
  { id: 'profiles', label: 'Profiles', icon: <FolderKanban size={16} /> },
  { id: 'servers', label: 'Servers', icon: <Server size={16} /> },
  { id: 'traffic', label: 'Traffic', icon: <ArrowLeftRight size={16} /> },
  { id: 'logs', label: 'Logs', icon: <ScrollText size={16} /> },
  { id: 'terminal', label: 'Terminal', icon: <TerminalIcon size={16} /> },
  { id: 'approvals', label: 'Approvals', icon: <ShieldCheck size={16} /> },
  { id: 'tools', label: 'Tool console', icon: <SquareTerminal size={16} /> },
  { id: 'connect', label: 'Connect an agent', icon: <Plug size={16} /> },
  { id: 'audit', label: 'Audit', icon: <History size={16} /> },
  { id: 'secrets', label: 'Secrets', icon: <KeyRound size={16} /> },
  { id: 'resources', label: 'Resources', icon: <FileText size={16} /> },
  { id: 'prompts', label: 'Prompts', icon: <MessageSquareText size={16} /> },
];

/** Views past the ninth have no digit: a letter of their own. */
const LETTER_KEYS: Partial<Record<ViewId, string>> = { resources: 'alt+r', prompts: 'alt+p' };

const TRAY_KEY = 'gatehouse.trayOpen';

export function App({ streams }: { streams: Streams }) {
  const state = useAppState();
  const view = useStore(navStore, (s) => s.view);
  const pendingCount = useStore(state.approvals, (s) => s.pending.length);
  const [trayOpen, setTrayOpen] = useState<boolean>(() => readBool(TRAY_KEY, true));
  const [permission, setPermission] = useState<NotifyPermission>(() => notificationPermission());
  const [helpOpen, setHelpOpen] = useState(false);
  const [paletteOpen, setPaletteOpen] = useState(false);
  const mainRef = useRef<HTMLElement>(null);
  // Where focus was before Alt+A moved it into the tray: Esc, or the last answer, goes back there.
  const returnFocus = useRef<HTMLElement | null>(null);
  useAttentionBadge(pendingCount);

  // The tray shows whenever something waits (unless hidden), or when opened by hand. The
  // Approvals view is the tray at full size, so the tray steps aside there.
  const [pinned, setPinned] = useState(false);
  const showTray = view !== 'approvals' && trayOpen && (pendingCount > 0 || pinned);

  const openTray = useCallback((open: boolean) => {
    setTrayOpen(open);
    writeBool(TRAY_KEY, open);
  }, []);

  // A new request opens the tray (the view beside it only narrows) and, when the window is in
  // the background, raises a desktop notification.
  useEffect(
    () =>
      state.onNewApproval((r) => {
        setTrayOpen(true);
        if (hostShell() === 'web') notifyApproval(r, () => setTrayOpen(true));
      }),
    [state],
  );

  const enableNotifications = useCallback(async () => setPermission(await requestNotificationPermission()), []);

  const focusTray = useCallback((): void => {
    const active = document.activeElement;
    if (active instanceof HTMLElement && active !== document.body && !active.closest('.tray')) returnFocus.current = active;
    setPinned(true);
    openTray(true);
    requestAnimationFrame(() => {
      const card = document.querySelector<HTMLElement>('.tray [data-approval-id]');
      (card ?? document.querySelector<HTMLElement>('.tray'))?.focus();
    });
  }, [openTray]);

  const leaveTray = useCallback((): void => {
    const back = returnFocus.current;
    returnFocus.current = null;
    (back?.isConnected ? back : mainRef.current)?.focus();
  }, []);

  const toggleTray = useCallback((): void => {
    setPinned(!showTray);
    openTray(!showTray);
  }, [showTray, openTray]);

  // An answer that took the last card with the tray (it hides when nothing waits and it was not
  // opened by hand) leaves focus on <body>: put it back where it was.
  const lastCount = useRef(pendingCount);
  useLayoutEffect(() => {
    const fell = pendingCount < lastCount.current;
    lastCount.current = pendingCount;
    if (fell && (document.activeElement === null || document.activeElement === document.body)) leaveTray();
  }, [pendingCount, leaveTray]);

  const viewKeys = VIEW_IDS.slice(0, VIEW_KEY_COUNT);
  useShortcuts({
    ...Object.fromEntries(viewKeys.map((id, i) => [`mod+${i + 1}`, () => navigate(id)])),
    // In a browser tab Ctrl+1…9 belong to the browser; Alt+1…9 work there too (and in the Terminal).
    ...Object.fromEntries(viewKeys.map((id, i) => [`alt+${i + 1}`, () => navigate(id)])),
    'alt+a': focusTray,
    ...Object.fromEntries(Object.entries(LETTER_KEYS).map(([id, key]) => [key, () => navigate(id as ViewId)])),
    'alt+t': toggleTray,
    'mod+k': () => setPaletteOpen(true),
    f6: () => focusRegion(1),
    'shift+f6': () => focusRegion(-1),
    '?': () => setHelpOpen(true),
  });

  const commands = useAppCommands({ ...usePaletteSources(paletteOpen), state, traffic: streams.traffic, views: NAV, focusTray, toggleTray, showShortcuts: useCallback(() => setHelpOpen(true), []) });

  // Move focus to the view on navigation, for keyboard and screen-reader users.
  useEffect(() => {
    mainRef.current?.focus({ preventScroll: true });
  }, [view]);

  const current = NAV.find((n) => n.id === view) ?? NAV[0]!;

  return (
    <div className={`app${showTray ? ' has-tray' : ''}`}>
      <a className="skip-link" href="#main">Skip to content</a>
      <nav className="sidebar" aria-label="Main navigation">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            <svg viewBox="0 0 24 24" width="18" height="18"><path d="M4 20V9l8-5 8 5v11h-5v-6H9v6z" fill="currentColor" /></svg>
          </span>
          <span className="brand-name">Gatehouse</span>
        </div>
        <ul className="nav-list">
          {NAV.map((n, i) => (
            <li key={n.id}>
              <a
                href={`#/${n.id}`}
                className={`nav-item${view === n.id ? ' is-active' : ''}`}
                aria-current={view === n.id ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(n.id);
                }}
                title={LETTER_KEYS[n.id] ? `${n.label} (${shortcutLabel(LETTER_KEYS[n.id]!)})` : i < VIEW_KEY_COUNT ? `${n.label} (${shortcutLabel(`mod+${i + 1}`)})` : `${n.label} (${shortcutLabel('mod+k')}, then its name)`}
              >
                <span className="nav-icon" aria-hidden="true">{n.icon}</span>
                <span className="nav-label">{n.label}</span>
                {n.id === 'approvals' ? <CountBadge count={pendingCount} tone="warn" label={`${pendingCount} pending`} /> : null}
              </a>
            </li>
          ))}
        </ul>
        <div className="sidebar-foot">
          <button type="button" className="nav-item nav-help" onClick={() => setHelpOpen(true)}>
            <span className="nav-icon" aria-hidden="true"><Keyboard size={16} /></span>
            <span className="nav-label">Keyboard shortcuts</span>
            <Kbd hidden>?</Kbd>
          </button>
        </div>
      </nav>

      <div className="main-col">
        <TopBar pendingCount={pendingCount} trayOpen={showTray} onToggleTray={toggleTray} permission={permission} onEnableNotifications={() => void enableNotifications()} />
        <DoctorPanel />
        <div className="content-row">
          <main id="main" className="main" aria-label={current.label} ref={mainRef} tabIndex={-1}>
            <ViewSwitch view={view} streams={streams} permission={permission} onEnableNotifications={() => void enableNotifications()} />
          </main>
          {showTray ? <ApprovalsTray onClose={() => { setPinned(false); openTray(false); leaveTray(); }} onLeave={leaveTray} permission={permission} onEnableNotifications={() => void enableNotifications()} /> : null}
        </div>
      </div>
      {helpOpen ? <ShortcutsHelp views={NAV} onClose={() => setHelpOpen(false)} /> : null}
      {paletteOpen ? <CommandPalette commands={commands} onClose={() => setPaletteOpen(false)} /> : null}
    </div>
  );
}

interface Streams {
  traffic: TrafficStore;
  marks: TrafficMarksSync;
  logs: LogStore;
  terminals: TerminalFeed;
}

// Traffic and Logs (renderer/views/{traffic,logs}) read the stores created in mountApp;
// the shell only hands them the launches, and the server to open first.
function StreamViews({ view, streams }: { view: 'traffic' | 'logs'; streams: Streams }) {
  const { launches } = useAppState();
  const list = useStore(launches, (s) => s.launches);
  const focus = useStore(navStore, (s) => s.focus);
  const activeId = useStore(launches, (s) => s.activeId);
  const servers = useMemo(() => list.flatMap((l) => l.servers.map((s) => ({ launchId: l.id, serverId: s.id, state: s.state }))), [list]);
  const trafficLaunches = useTrafficLaunches(list);
  // Their toolbars are their headers; the shell gives each view its one <h1> (screen readers jump by it).
  if (view === 'traffic')
    return (
      <>
        <h1 className="visually-hidden">Traffic</h1>
        <TrafficViewMemo store={streams.traffic} marks={streams.marks} launches={trafficLaunches} focusExchange={focus?.exchange} />
      </>
    );
  const initial = focus?.server && activeId ? { launchId: activeId, serverId: focus.server } : undefined;
  return <><h1 className="visually-hidden">Logs</h1><LogsView key={initial ? `${initial.launchId}/${initial.serverId}` : 'all'} store={streams.logs} servers={servers} initial={initial} /></>;
}

function ViewSwitch({ view, streams, permission, onEnableNotifications }: { view: ViewId; streams: Streams; permission: NotifyPermission; onEnableNotifications: () => void }) {
  switch (view) {
    case 'profiles':
      return <ProfilesView />;
    case 'servers':
      return <ServersView />;
    case 'traffic':
    case 'logs':
      return <StreamViews view={view} streams={streams} />;
    case 'terminal':
      return <TerminalView feed={streams.terminals} />;
    case 'approvals':
      return <ApprovalsView permission={permission} onEnableNotifications={onEnableNotifications} />;
    case 'tools':
      return <ToolConsoleView />;
    case 'connect':
      return <ConnectView />;
    case 'audit':
      return <AuditView />;
    case 'secrets':
      return <SecretsView />;
    case 'resources':
      return <ResourcesView />;
    case 'prompts':
      return <PromptsView />;
  }
}

function TopBar({ pendingCount, trayOpen, onToggleTray, permission, onEnableNotifications }: { pendingCount: number; trayOpen: boolean; onToggleTray: () => void; permission: NotifyPermission; onEnableNotifications: () => void }) {
  const { launches, connection } = useAppState();
  const { launches: list, activeId, loaded } = useStore(launches);
  const conn = useStore(connection);
  const active = list.find((l) => l.id === activeId);
  const ready = active?.servers.filter((s) => s.state === 'ready').length ?? 0;
  const failed = active?.servers.filter((s) => s.state === 'failed').length ?? 0;

  return (
    <header className="topbar" aria-label="Top bar">
      <div className="launch-picker">
        <label htmlFor="active-launch" className="launch-picker-label">Launch</label>
        {list.length ? (
          <select id="active-launch" className="input launch-select" value={activeId ?? ''} onChange={(e) => launches.setActive(e.target.value || null)} aria-label="Active launch">
            {list.map((l) => (
              <option key={l.id} value={l.id}>
                {l.profile} · {l.servers.length} server{l.servers.length === 1 ? '' : 's'}
              </option>
            ))}
          </select>
        ) : (
          <span className="muted launch-none">{loaded ? 'none running' : 'loading…'}</span>
        )}
        {active ? (
          <button type="button" className={`health-pill${failed ? ' is-bad' : ready === active.servers.length ? ' is-good' : ''}`} onClick={() => navigate('servers')} title="Open Servers">
            <span className={`dot dot-${failed ? 'danger' : ready === active.servers.length ? 'ok' : 'info'}`} aria-hidden="true" />
            {ready}/{active.servers.length} ready{failed ? ` · ${failed} failed` : ''}
          </button>
        ) : null}
        {active ? <span className="muted small topbar-since">since <Timestamp ts={active.startedAt} /></span> : null}
      </div>
      <span className="spacer" />
      <ConnectionPill status={conn.status} detail={conn.detail} attempts={conn.attempts} />
      {permission === 'default' ? <IconButton label="Enable desktop notifications for approvals" icon={<Bell size={15} />} onClick={onEnableNotifications} /> : null}
      <ThemeSwitch />
      <button type="button" className={`btn btn-secondary btn-md tray-toggle${pendingCount ? ' has-pending' : ''}`} onClick={onToggleTray} aria-pressed={trayOpen} title={`${trayOpen ? 'Hide' : 'Show'} the approvals tray (${shortcutLabel('alt+t')})`}>
        {/* Named by what it shows ("Approvals 2 pending"), so a voice command of the visible text finds it; aria-pressed says whether the tray is shown. */}
        <PanelRightOpen size={15} aria-hidden="true" />
        <span>Approvals</span>
        {pendingCount ? (
          <span className="count-badge badge-warn">
            {pendingCount}
            <span className="visually-hidden"> pending</span>
          </span>
        ) : null}
      </button>
    </header>
  );
}

function ConnectionPill({ status, detail, attempts }: { status: string; detail?: string; attempts: number }) {
  const text = status === 'connected' ? 'Connected' : status === 'reconnecting' ? `Reconnecting…${attempts > 1 ? ` (${attempts})` : ''}` : status === 'connecting' ? 'Connecting…' : 'Disconnected';
  const Icon = status === 'connected' ? Wifi : WifiOff;
  return (
    <span className={`conn-pill conn-${status}`} role="status" aria-label={`Host connection: ${text}`} title={detail ? `${text}: ${detail}` : text}>
      <Icon size={14} aria-hidden="true" />
      <span>{text}</span>
    </span>
  );
}

const THEMES: Array<{ id: ThemePreference; label: string; icon: ReactNode }> = [
  { id: 'light', label: 'Light theme', icon: <Sun size={14} /> },
  { id: 'dark', label: 'Dark theme', icon: <Moon size={14} /> },
  { id: 'system', label: 'System theme', icon: <Monitor size={14} /> },
];

function ThemeSwitch() {
  const pref = useStore(themeStore);
  return (
    <div className="segmented segmented-icons" role="radiogroup" aria-label="Theme">
      {THEMES.map((t) => (
        <button key={t.id} type="button" role="radio" aria-checked={pref === t.id} aria-label={t.label} title={t.label} className={pref === t.id ? 'is-on' : ''} onClick={() => setTheme(t.id)}>
          <span aria-hidden="true">{t.icon}</span>
        </button>
      ))}
    </div>
  );
}

/** What the palette needs from the host: the profiles (asked for while the palette is open) and which run. */
function usePaletteSources(open: boolean) {
  const api = useHostApi();
  const toast = useToast();
  const { launches } = useAppState();
  const list = useStore(launches, (s) => s.launches);
  const profiles = useCommand('profiles:list', open ? {} : null).data;
  const runningProfiles = useMemo(() => new Set(list.map((l) => l.profile)), [list]);
  return { api, toast, profiles: profiles ?? NO_PROFILES, runningProfiles };
}
const NO_PROFILES: never[] = [];

function readBool(key: string, fallback: boolean): boolean {
  try {
    const v = globalThis.localStorage?.getItem(key);
    return v === null || v === undefined ? fallback : v === '1';
  } catch {
    return fallback;
  }
}

function writeBool(key: string, value: boolean): void {
  try {
    globalThis.localStorage?.setItem(key, value ? '1' : '0');
  } catch {}
}

/**
 * Creates the app's stores once, starts the live feed and renders. Used by main.tsx with the
 * real transport; anything that has a HostApi (a test page, a preview) can mount the same app.
 */
export function mountApp(api: AppHostApi, container: HTMLElement): () => void {
  const traffic = new TrafficStore();
  // Live rows keep no message: the detail pane, replay, export and text search ask the host.
  traffic.bodies.connect(api);
  traffic.setBodySearch((text, since) => api.call('traffic:search', { text, since }).then((r) => r.seqs));
  const streams: Streams = { traffic, marks: new TrafficMarksSync(api, traffic), logs: new LogStore(), terminals: new TerminalFeed(api) };
  const state = new AppState(api, streams.traffic, streams.logs, toolConsoleState);
  state.start();
  streams.terminals.start();
  void streams.marks.start();
  const root = createRoot(container);
  root.render(
    <StrictMode>
      <HostApiContext.Provider value={api}>
        <AppStateContext.Provider value={state}>
          <ToastProvider>
            <AuthExpiryNotices />
            <LaunchNotices />
            <App streams={streams} />
          </ToastProvider>
        </AppStateContext.Provider>
      </HostApiContext.Provider>
    </StrictMode>,
  );
  return () => {
    root.unmount();
    state.dispose();
    streams.marks.dispose();
    streams.terminals.dispose();
  };
}
