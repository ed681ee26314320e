// main.ts wired against a fake of the electron module (the real one needs a binary this machine
// does not have): the order of startup, the window's webPreferences, the protocol handler on the
// real out/renderer/, the navigation/window/permission handlers, and quit stopping the host.
// What only a real Electron can show is in tests/e2e/electron.spec.ts.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { commands } from '../../common/host-api';
import { appRoot } from '../paths';

const fake = vi.hoisted(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EventEmitter: EE } = require('node:events') as typeof import('node:events');
  class Contents extends EE {
    id = 1;
    mainFrame = { processId: 1, routingId: 1, url: 'app://gatehouse/index.html', parent: null };
    windowOpenHandler: ((d: { url: string }) => { action: string }) | undefined;
    loaded: string[] = [];
    setWindowOpenHandler(h: (d: { url: string }) => { action: string }) {
      this.windowOpenHandler = h;
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    isDestroyed = () => false;
    isCrashed = () => false;
    getURL = () => 'app://gatehouse/index.html';
    send() {}
    closeDevTools() {}
  }
  const windows: any[] = [];
  class BrowserWindow extends EE {
    static getAllWindows = () => windows;
    webContents = new Contents();
    constructor(readonly options: any) {
      super();
      windows.push(this);
    }
    loadURL(url: string) {
      return this.webContents.loadURL(url);
    }
    isDestroyed = () => false;
    isFocused = () => false;
    isMaximized = () => false;
    isMinimized = () => false;
    getNormalBounds = () => ({ x: 10, y: 20, width: 1400, height: 900 });
    maximize() {}
    show() {}
    focus() {}
    restore() {}
  }
  const paths = new Map<string, string>([['userData', '/nonexistent/userData']]);
  const app = Object.assign(new EE(), {
    isPackaged: false,
    exitCode: undefined as number | undefined,
    setPath: (k: string, v: string) => paths.set(k, v),
    getPath: (k: string) => paths.get(k)!,
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    isReady: () => true,
    quit() {
      const e = { defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } };
      app.emit('before-quit', e);
    },
    exit(code: number) {
      app.exitCode = code;
    },
  });
  const session = {
    permissionRequest: undefined as any,
    permissionCheck: undefined as any,
    setPermissionRequestHandler(h: any) { this.permissionRequest = h; },
    setPermissionCheckHandler(h: any) { this.permissionCheck = h; },
    setDevicePermissionHandler() {},
    on() {},
  };
  return {
    app,
    windows,
    BrowserWindow,
    schemes: [] as any[],
    protocolHandlers: new Map<string, (r: Request) => Promise<Response>>(),
    ipcChannels: [] as string[],
    external: [] as string[],
    session,
  };
});

vi.mock('electron', () => ({
  app: fake.app,
  BrowserWindow: fake.BrowserWindow,
  Notification: class { static isSupported = () => false; },
  protocol: {
    registerSchemesAsPrivileged: (s: unknown[]) => fake.schemes.push(...s),
    handle: (scheme: string, h: (r: Request) => Promise<Response>) => fake.protocolHandlers.set(scheme, h),
  },
  screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
  session: { defaultSession: fake.session },
  shell: { openExternal: async (u: string) => void fake.external.push(u) },
  safeStorage: { isEncryptionAvailable: () => false },
  ipcMain: { handle: (c: string) => fake.ipcChannels.push(c), removeHandler() {} },
}));

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-electron-main-'));
const added = new Map<string, Array<(...args: any[]) => void>>();
const watched = ['SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection'] as const;

beforeAll(async () => {
  process.env.GATEHOUSE_DATA_DIR = tmp;
  const before = new Map(watched.map((e) => [e, process.listeners(e as any)]));
  await import('./main');
  await vi.waitFor(() => expect(fake.windows).toHaveLength(1));
  for (const e of watched) added.set(e, process.listeners(e as any).filter((l) => !before.get(e)!.includes(l)));
});

afterAll(() => {
  for (const [e, ls] of added) for (const l of ls) process.off(e as any, l as any);
  delete process.env.GATEHOUSE_DATA_DIR;
  rmSync(tmp, { recursive: true, force: true });
});

describe('main.ts (fake electron)', () => {
  it('registers app:// as standard and secure, and uses GATEHOUSE_DATA_DIR as userData', () => {
    expect(fake.schemes).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
    expect(fake.schemes[0].privileges).not.toHaveProperty('bypassCSP');
    expect(fake.app.getPath('userData')).toBe(tmp);
  });

  it('opens one locked-down 1400x900 window on app://gatehouse/', () => {
    const win = fake.windows[0];
    expect(win.options).toMatchObject({ width: 1400, height: 900 });
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
      preload: path.join(appRoot(), 'out', 'preload', 'index.cjs'),
    });
    expect(win.webContents.loaded).toEqual(['app://gatehouse/index.html']);
    expect([...fake.ipcChannels].sort()).toEqual(Object.keys(commands).map((c) => `gatehouse:cmd:${c}`).sort());
  });

  it.skipIf(!existsSync(path.join(appRoot(), 'out', 'renderer', 'index.html')))('serves out/renderer/ with the CSP and refuses escapes', async () => {
    const handler = fake.protocolHandlers.get('app')!;
    const ok = await handler({ url: 'app://gatehouse/', method: 'GET' } as Request);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await ok.text()).toContain('<div id="root">');
    const esc = await handler({ url: 'app://gatehouse/..%2fpackage.json', method: 'GET' } as Request);
    expect(esc.status).toBe(400);
    const missing = await handler({ url: 'app://gatehouse/assets/nope.js', method: 'GET' } as Request);
    expect(missing.status).toBe(404);
    const dir = await handler({ url: 'app://gatehouse/assets', method: 'GET' } as Request);
    expect(dir.status).toBe(404);
  });

  it('denies navigation, new windows and permissions except notifications', () => {
    const wc = fake.windows[0].webContents;
    const nav = { prevented: false, preventDefault() { this.prevented = true; } };
    wc.emit('will-navigate', nav, 'https://evil.example/');
    expect(nav.prevented).toBe(true);
    const same = { prevented: false, preventDefault() { this.prevented = true; } };
    wc.emit('will-navigate', same, 'app://gatehouse/index.html#/logs');
    expect(same.prevented).toBe(false);
    expect(wc.windowOpenHandler({ url: 'https://modelcontextprotocol.io/' })).toEqual({ action: 'deny' });
    expect(wc.windowOpenHandler({ url: 'file:///bin/sh' })).toEqual({ action: 'deny' });
    expect(fake.external).toEqual(['https://modelcontextprotocol.io/']);
    const answers: boolean[] = [];
    fake.session.permissionRequest(wc, 'notifications', (a: boolean) => answers.push(a), { requestingUrl: 'app://gatehouse/' });
    fake.session.permissionRequest(wc, 'media', (a: boolean) => answers.push(a), { requestingUrl: 'app://gatehouse/' });
    expect(answers).toEqual([true, false]);
    expect(fake.session.permissionCheck(wc, 'notifications', 'app://gatehouse')).toBe(true);
    expect(fake.session.permissionCheck(wc, 'geolocation', 'app://gatehouse')).toBe(false);
  });

  it('on quit, stops the host, saves the window bounds and exits', async () => {
    fake.app.quit();
    await vi.waitFor(() => expect(fake.app.exitCode).toBe(0), { timeout: 15_000 });
    const { loadWindowState } = await import('./window-state');
    expect(loadWindowState(tmp, [{ x: 0, y: 0, width: 1920, height: 1080 }])).toEqual({ x: 10, y: 20, width: 1400, height: 900, maximized: false });
  });
});
