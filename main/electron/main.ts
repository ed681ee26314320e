// The Electron shell's main process: the third thin driver of the one Host (ARCHITECTURE.md),
// next to `gatehouse serve` and the CLI. It owns the app lifecycle, the one window, the
// app://gatehouse/ protocol, IPC registration (./ipc.ts) and desktop notifications.
//
// Security (Electron's docs/tutorial/security.md), and where each item is enforced:
//  - contextIsolation, sandbox, no nodeIntegration, webSecurity: createWindow() below.
//  - content only from app://gatehouse/ (no remote content, no file://): serveApp() + app-protocol.ts.
//  - strict CSP on every response of that protocol: app-protocol.ts (APP_CSP).
//  - navigation and new windows denied, http(s) links to the OS browser only: hardenContents() + navigation-policy.ts.
//  - permissions denied except notifications: hardenSession() + navigation-policy.ts.
//  - every IPC sender validated (main frame of our window, on our origin): ipc.ts + sender-policy.ts.
//  - fuses (run-as-node off, asar integrity on, …): electron-builder.yml.
import { app, BrowserWindow, Notification, protocol, screen, session, shell, type Session, type WebContents } from 'electron';
import { mkdirSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Host } from '../host';
import { appRoot, dataDir as cliDataDir } from '../paths';
import { relaySocketPath } from '../approvals/relay-wire';
import { startGrantsControl, type GrantsControl } from '../approvals/grants-control';
import { grantsSocketPath } from '../approvals/grants-wire';
import { createHostApiDispatcher, type HostApiDispatcher } from '../api/dispatcher';
import { ProfileError } from '../profiles/profile-error';
import { killAllTrackedGroups } from '../supervisor/reaper';
import type { ApprovalEvent } from '../approvals/broker';
import { APP_SCHEME, APP_START_URL } from './app-origin';
import { appResponseHeaders, resolveAppRequest } from './app-protocol';
import { allowNavigation, allowPermission, externalUrl } from './navigation-policy';
import { registerHostApiIpc, type HostApiIpc } from './ipc';
import { loadWindowState, saveWindowState, type WindowState } from './window-state';
import { approvalNotificationText } from './approval-notification';
import { installAuthShell } from './auth-shell';
import { startApprovalRelay, type ApprovalRelay } from '../approvals/relay-server';

/** How long quitting waits for the host to stop its servers before it kills their process groups. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

const log = (line: string) => process.stderr.write(`gatehouse: ${line}\n`);
const isDev = !app.isPackaged || process.env.GATEHOUSE_DEV === '1';

// Must run before `ready`: a standard, secure scheme has a real origin (`app://gatehouse`), so
// same-origin rules, the CSP's 'self' and fetch() work as on https. No bypassCSP, no CORS.
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
]);

// The data dir is Electron's userData unless GATEHOUSE_DATA_DIR says otherwise; then Chromium's
// own state goes there too, so a test run (or a second profile of the app) shares nothing, and
// the single-instance lock (keyed on userData) is per data dir.
if (process.env.GATEHOUSE_DATA_DIR) app.setPath('userData', path.resolve(process.env.GATEHOUSE_DATA_DIR));
const dataDir = app.getPath('userData');

/** `electron out/electron/main.cjs --profile demo` in development; `Gatehouse --profile demo` packaged. */
function cliArgs(): { profile?: string } {
  const argv = process.argv.slice(app.isPackaged ? 1 : 2);
  try {
    const { values } = parseArgs({ args: argv, options: { profile: { type: 'string', short: 'p' } }, strict: false, allowPositionals: true });
    return { profile: typeof values.profile === 'string' ? values.profile : undefined };
  } catch {
    return {};
  }
}

let host: Host | undefined;
let dispatcher: HostApiDispatcher | undefined;
let ipc: HostApiIpc | undefined;
let mainWindow: BrowserWindow | undefined;
/** Approvals of `gatehouse gateway` processes of this data dir come to this window (relay-server.ts). */
let relay: ApprovalRelay | undefined;
/** `gatehouse grants list|revoke` in a terminal reaches this window's session grants (grants-control.ts). */
let grantsControl: GrantsControl | undefined;
const notifications = new Map<string, Notification>();

if (!app.requestSingleInstanceLock()) {
  // Another Gatehouse owns this data dir; it gets focused by its 'second-instance' handler.
  log(`another Gatehouse window is already running with data in ${dataDir}; focusing it`);
  app.quit();
} else {
  app.on('second-instance', () => showWindow());
  app.whenReady().then(start, (err: unknown) => fatal(err));
}

async function start(): Promise<void> {
  host = createHost();
  installAuthShell(host, { log, showWindow });
  dispatcher = createHostApiDispatcher(host, { shell: 'electron' });
  ipc = registerHostApiIpc(dispatcher, { window: () => (mainWindow && !mainWindow.isDestroyed() ? mainWindow : undefined), log });
  hardenSession(session.defaultSession);
  protocol.handle(APP_SCHEME, serveApp);
  host.on('approval', notifyApproval);
  createWindow();
  log(`desktop app ready (data in ${host.dataDir})`);
  // The relay socket lives where `gatehouse gateway` looks by default (GATEHOUSE_DATA_DIR, else
  // $XDG_STATE_HOME/gatehouse), not in Electron's userData: a gateway started by another MCP host
  // has no way to know the app's userData folder.
  mkdirSync(cliDataDir(process.env), { recursive: true, mode: 0o700 });
  relay = await startApprovalRelay(host, { socketPath: relaySocketPath(cliDataDir(process.env)), log: (line) => process.stderr.write(`${line}\n`) });
  // Beside the relay, for the same reason: `gatehouse grants` looks in the CLI's data dir.
  grantsControl = await startGrantsControl(host, { socketPath: grantsSocketPath(cliDataDir(process.env)), log: (line) => process.stderr.write(`${line}\n`) });

  const { profile } = cliArgs();
  if (profile) {
    try {
      const launch = await host.launch(profile, { httpPort: 0, kind: 'launch' });
      log(`launched '${launch.profile.name}'`);
    } catch (err) {
      log(err instanceof ProfileError ? err.message : `cannot launch '${profile}': ${(err as Error).message}`);
    }
  }
}

/**
 * The audit store needs better-sqlite3 built for Electron's ABI. `npm run dist` rebuilds it
 * (npmRebuild); a development checkout usually has it built for Node (the tests need that). Then
 * the app still runs, without the audit trail, and says how to get it.
 */
function createHost(): Host {
  try {
    return new Host({ dataDir });
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    if (!/NODE_MODULE_VERSION|compiled against a different Node\.js version|better_sqlite3|better-sqlite3/i.test(message)) throw err;
    log(`the audit store is off: better-sqlite3 cannot load in Electron ${process.versions.electron} (${message.split('\n')[0]})`);
    log('to enable it in development: npx electron-builder install-app-deps (and npm rebuild better-sqlite3 before running the Node tests again)');
    return new Host({ dataDir, audit: false });
  }
}

// ---- the window ----------------------------------------------------------------------------

function createWindow(): BrowserWindow {
  const saved = loadWindowState(dataDir, screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow({
    width: saved.width,
    height: saved.height,
    ...(saved.x !== undefined && saved.y !== undefined ? { x: saved.x, y: saved.y } : {}),
    minWidth: 900,
    minHeight: 600,
    title: 'Gatehouse',
    show: false,
    backgroundColor: '#111318',
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: isDev,
      preload: path.join(appRoot(), 'out', 'preload', 'index.cjs'),
    },
  });
  mainWindow = win;
  if (saved.maximized) win.maximize();
  hardenContents(win.webContents);
  ipc?.attachWindow(win);

  win.once('ready-to-show', () => win.show());
  win.on('focus', () => {
    // Back at the window: the notifications have done their job.
    for (const n of notifications.values()) n.close();
    notifications.clear();
  });
  win.on('close', () => persistBounds(win));
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = undefined;
  });
  win.webContents.on('render-process-gone', (_e, details) => log(`the window's renderer is gone (${details.reason}, exit code ${details.exitCode})`));
  void win.loadURL(APP_START_URL).catch((err: unknown) => log(`cannot load ${APP_START_URL}: ${(err as Error).message}`));
  return win;
}

function showWindow(): void {
  const win = mainWindow && !mainWindow.isDestroyed() ? mainWindow : app.isReady() && host ? createWindow() : undefined;
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

function persistBounds(win: BrowserWindow): void {
  if (win.isDestroyed()) return;
  try {
    const b = win.getNormalBounds();
    const state: WindowState = { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() };
    saveWindowState(dataDir, state);
  } catch (err) {
    log(`cannot save the window position: ${(err as Error).message}`);
  }
}

// ---- content: app://gatehouse/ -------------------------------------------------------------

async function serveApp(request: Request): Promise<Response> {
  const rendererDir = path.join(appRoot(), 'out', 'renderer');
  const r = resolveAppRequest(request.url, rendererDir, request.method);
  if (!r.ok) return new Response(r.reason, { status: r.status, headers: appResponseHeaders('text/plain; charset=utf-8') });
  try {
    const stat = await fsp.stat(r.file);
    // Folders are never listed; a missing file is a 404 (hash routes never reach here).
    if (!stat.isFile()) return new Response('not found', { status: 404, headers: appResponseHeaders('text/plain; charset=utf-8') });
    const body = request.method === 'HEAD' ? null : await fsp.readFile(r.file);
    return new Response(body, { status: 200, headers: { ...appResponseHeaders(r.contentType), 'Content-Length': String(stat.size) } });
  } catch {
    const missingApp = path.basename(r.file) === 'index.html';
    return new Response(missingApp ? `the renderer is not built (no ${r.file}): run npm run build` : 'not found', {
      status: missingApp ? 503 : 404,
      headers: appResponseHeaders('text/plain; charset=utf-8'),
    });
  }
}

// ---- navigation, windows, permissions --------------------------------------------------------

function hardenContents(contents: WebContents): void {
  const refuseNavigation = (event: Electron.Event, url: string) => {
    if (allowNavigation(url)) return;
    event.preventDefault();
    log(`navigation refused (${describe(url)})`);
  };
  contents.on('will-navigate', refuseNavigation);
  contents.on('will-redirect', refuseNavigation);
  contents.on('will-frame-navigate', (details) => {
    if (!allowNavigation(details.url)) details.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    // New windows are always denied. A web link goes to the person's browser, never inside the
    // app, and only http(s) (openExternal with file: or custom schemes can start programs).
    const external = externalUrl(url);
    if (external) void shell.openExternal(external).catch((err: unknown) => log(`cannot open ${describe(url)}: ${(err as Error).message}`));
    else log(`window.open refused (${describe(url)})`);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  if (!isDev) {
    contents.on('devtools-opened', () => contents.closeDevTools());
  }
}

function hardenSession(s: Session): void {
  s.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(allowPermission(permission, details.requestingUrl ?? contents?.getURL()));
  });
  s.setPermissionCheckHandler((_contents, permission, requestingOrigin) => allowPermission(permission, requestingOrigin));
  // No device access of any kind (HID, serial, USB, Bluetooth).
  s.setDevicePermissionHandler(() => false);
  s.on('will-download', (event) => event.preventDefault());
}

function describe(url: string): string {
  try {
    const u = new URL(url);
    return u.host ? `${u.protocol}//${u.host}` : u.protocol;
  } catch {
    return 'unparsable URL';
  }
}

// ---- notifications -------------------------------------------------------------------------

function notifyApproval(e: ApprovalEvent): void {
  if (e.type === 'resolved') {
    notifications.get(e.request.id)?.close();
    notifications.delete(e.request.id);
    return;
  }
  const win = mainWindow;
  if (win && !win.isDestroyed() && win.isFocused()) return;
  if (!Notification.isSupported()) return;
  const { title, body } = approvalNotificationText(e.request);
  const n = new Notification({ title, body, urgency: 'critical', timeoutType: 'never' });
  n.on('click', () => showWindow());
  n.on('close', () => notifications.delete(e.request.id));
  notifications.set(e.request.id, n);
  n.show();
}

// ---- lifecycle -----------------------------------------------------------------------------

app.on('window-all-closed', () => {
  // macOS keeps the app (and its running servers) until Cmd+Q, as Mac apps do.
  if (process.platform !== 'darwin') app.quit();
});

app.on('activate', () => {
  if (app.isReady() && host && BrowserWindow.getAllWindows().length === 0) createWindow();
});

let shutdownStarted = false;
app.on('before-quit', (event) => {
  if (!host) return; // nothing started (second instance, or failed before ready)
  event.preventDefault();
  if (shutdownStarted) return;
  shutdownStarted = true;
  if (mainWindow && !mainWindow.isDestroyed()) persistBounds(mainWindow);
  const h = host;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), SHUTDOWN_TIMEOUT_MS);
  });
  void Promise.race([h.shutdown('the desktop app quit').then(() => 'done' as const), timedOut])
    .then((how) => {
      if (how === 'timeout') log(`servers did not stop within ${SHUTDOWN_TIMEOUT_MS / 1000}s; killing their process groups`);
    })
    .catch((err: unknown) => log(`shutdown failed: ${(err as Error).message}`))
    .finally(() => {
      clearTimeout(timer);
      // Whatever is still tracked (timeout or failure) must not outlive the app.
      killAllTrackedGroups();
      relay?.closeSync();
      grantsControl?.closeSync();
      dispatcher?.close();
      ipc?.dispose();
      // exit, not quit: before-quit has already run, and the host is gone.
      app.exit(0);
    });
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => app.quit());
}

function fatal(err: unknown): void {
  log(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  killAllTrackedGroups();
  app.exit(70);
}
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

