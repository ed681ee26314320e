// main/electron/ipc.ts against a fake ipcMain and fake windows (the real ones need an Electron
// binary, which this machine does not have), with the real dispatcher over a real Host.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { commands } from '../../common/host-api';
import { Host } from '../host';
import { createHostApiDispatcher, type EventSink, type HostApiDispatcher } from '../api/dispatcher';
import { commandChannel, eventChannel, type IpcResult } from './channels';

type Handler = (event: unknown, input: unknown) => Promise<IpcResult>;
const handlers = vi.hoisted(() => new Map<string, Handler>());
vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, h: Handler) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, h);
    },
    removeHandler: (channel: string) => handlers.delete(channel),
  },
}));
const { registerHostApiIpc, REFUSED } = await import('./ipc');

class FakeContents extends EventEmitter {
  destroyed = false;
  crashed = false;
  url = 'app://gatehouse/index.html';
  readonly sent: Array<[string, unknown]> = [];
  readonly mainFrame = { processId: 11, routingId: 1, url: this.url, parent: null };
  constructor(readonly id: number) {
    super();
  }
  isDestroyed = () => this.destroyed;
  isCrashed = () => this.crashed;
  getURL = () => this.url;
  send = (channel: string, payload: unknown) => this.sent.push([channel, payload]);
}
class FakeWindow extends EventEmitter {
  destroyed = false;
  readonly webContents: FakeContents;
  constructor(id: number) {
    super();
    this.webContents = new FakeContents(id);
  }
  isDestroyed = () => this.destroyed;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-ipc-'));
const host = new Host({ dataDir: tmp, audit: false });
const dispatcher = createHostApiDispatcher(host, { shell: 'electron' });
afterAll(async () => {
  dispatcher.close();
  await host.shutdown();
  rmSync(tmp, { recursive: true, force: true });
});

describe('host API over IPC (fake electron)', () => {
  const win = new FakeWindow(5);
  const handleSpy = vi.spyOn(dispatcher, 'handle');
  const ipc = registerHostApiIpc(dispatcher, { window: () => win as never, log: () => {} });
  const fromMain = { sender: { id: 5 }, senderFrame: { ...win.webContents.mainFrame } };

  it('registers one handler per command, on the derived channels', () => {
    expect([...handlers.keys()].sort()).toEqual(Object.keys(commands).map((c) => commandChannel(c as keyof typeof commands)).sort());
  });

  it('answers the trusted main frame through the dispatcher, errors as data', async () => {
    const info = await handlers.get(commandChannel('host:info'))!(fromMain, {});
    expect(info).toMatchObject({ ok: true, output: { shell: 'electron', dataDir: tmp } });
    // The dispatcher validates input with the contract's schemas.
    const bad = await handlers.get(commandChannel('profiles:launch'))!(fromMain, { ref: 'demo', extra: 1 });
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/invalid input for 'profiles:launch'/) });
    const missing = await handlers.get(commandChannel('profiles:stop'))!(fromMain, { launchId: 'nope' });
    expect(missing).toEqual({ ok: false, error: "no running launch 'nope'" });
  });

  it('drops untrusted senders before the dispatcher sees anything', async () => {
    handleSpy.mockClear();
    const untrusted = [
      { sender: { id: 6 }, senderFrame: fromMain.senderFrame },
      { sender: { id: 5 }, senderFrame: null },
      { sender: { id: 5 }, senderFrame: { ...fromMain.senderFrame, parent: {}, routingId: 9 } },
      { sender: { id: 5 }, senderFrame: { ...fromMain.senderFrame, url: 'https://evil.example/' } },
    ];
    for (const e of untrusted) expect(await handlers.get(commandChannel('connect:token'))!(e, { launchId: 'x' })).toEqual({ ok: false, error: REFUSED });
    expect(handleSpy).not.toHaveBeenCalled();
  });

  it('forwards events only while the window shows our page, and stops when it closes', () => {
    let sink: EventSink | undefined;
    let congested: (() => boolean) | undefined;
    let unsubscribed = 0;
    const fakeDispatcher = {
      subscribe: (send: EventSink, o?: { congested?: () => boolean }) => {
        sink = send;
        congested = o?.congested;
        return () => unsubscribed++;
      },
    } as unknown as HostApiDispatcher;
    const w = new FakeWindow(8);
    // Like Electron's, the fake refuses a second handler per channel: dispose the first set.
    ipc.dispose();
    expect(handlers.size).toBe(0);
    const local = registerHostApiIpc(fakeDispatcher, { window: () => w as never, log: () => {} });
    const detach = local.attachWindow(w as never);
    const payload = { events: [], dropped: 0 };
    sink!('traffic:batch', payload);
    expect(w.webContents.sent).toEqual([]); // still loading: dropped
    expect(congested!()).toBe(true);
    w.webContents.emit('dom-ready');
    expect(congested!()).toBe(false);
    sink!('traffic:batch', payload);
    expect(w.webContents.sent).toEqual([[eventChannel('traffic:batch'), payload]]);
    // A hash route change does not stop delivery; a reload does until the DOM is ready again.
    w.webContents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: true });
    expect(congested!()).toBe(false);
    w.webContents.emit('did-start-navigation', { isMainFrame: false, isSameDocument: false });
    expect(congested!()).toBe(false);
    w.webContents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false });
    sink!('traffic:batch', payload);
    expect(w.webContents.sent).toHaveLength(1);
    w.webContents.emit('dom-ready');
    sink!('traffic:batch', payload);
    expect(w.webContents.sent).toHaveLength(2);
    // A page that is not ours (navigation is denied, but belt and braces) gets nothing.
    w.webContents.url = 'https://evil.example/';
    w.webContents.emit('dom-ready');
    sink!('traffic:batch', payload);
    expect(w.webContents.sent).toHaveLength(2);
    w.webContents.url = 'app://gatehouse/index.html';
    w.webContents.emit('dom-ready');
    w.webContents.crashed = true;
    sink!('traffic:batch', payload);
    expect(w.webContents.sent).toHaveLength(2);
    w.webContents.crashed = false;
    w.destroyed = true;
    sink!('traffic:batch', payload);
    expect(w.webContents.sent).toHaveLength(2);
    w.emit('closed');
    expect(unsubscribed).toBe(1);
    detach();
    expect(unsubscribed).toBe(1);
    expect(w.webContents.listenerCount('dom-ready')).toBe(0);
    local.dispose();
  });
});
