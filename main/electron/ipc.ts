// The host API over Electron IPC: ONE wrapper registers every command of the contract, and
// every message passes the same gate before anything else (GitHub Desktop's `safeListener`,
// Electron's security checklist item 17): the sender must be the main frame of our window,
// on app://gatehouse/. Then the shared dispatcher validates the input with the contract's zod
// schemas, exactly as it does for the WebSocket shell.
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import type { HostApiDispatcher } from '../api/dispatcher';
import { commandChannel, commandNames, eventChannel, type IpcResult } from './channels';
import { checkSender, type TrustedWindowLike } from './sender-policy';
import { isAppUrl } from './app-origin';

export interface HostApiIpcOptions {
  /** The one window allowed to use the host API (undefined while none is open). */
  window: () => BrowserWindow | undefined;
  log?: (line: string) => void;
}

export interface HostApiIpc {
  /** Forwards host events to this window's main frame until it closes. Returns a detach function. */
  attachWindow(win: BrowserWindow): () => void;
  /** Removes every handler (on quit). */
  dispose(): void;
}

/** The error text a refused sender gets; the reason goes to the log, not to the (untrusted) page. */
export const REFUSED = 'refused: this frame may not use the Gatehouse host API';

export function registerHostApiIpc(dispatcher: HostApiDispatcher, opts: HostApiIpcOptions): HostApiIpc {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const refusedOnce = new Set<string>();

  const trusted = (): TrustedWindowLike | undefined => {
    const win = opts.window();
    if (!win || win.isDestroyed() || win.webContents.isDestroyed()) return undefined;
    const wc = win.webContents;
    const main = wc.mainFrame;
    return { webContentsId: wc.id, mainFrame: main ? { processId: main.processId, routingId: main.routingId } : undefined };
  };

  const channels: string[] = [];
  for (const name of commandNames()) {
    const channel = commandChannel(name);
    channels.push(channel);
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, input: unknown): Promise<IpcResult> => {
      const verdict = checkSender({ senderId: event.sender.id, frame: event.senderFrame }, trusted());
      if (!verdict.ok) {
        // Logged once per reason: a hostile page must not be able to flood the log.
        if (!refusedOnce.has(verdict.reason) && refusedOnce.size < 100) {
          refusedOnce.add(verdict.reason);
          log(`gatehouse: IPC ${name} refused: ${verdict.reason}`);
        }
        return { ok: false, error: REFUSED };
      }
      try {
        return { ok: true, output: await dispatcher.handle(name, input) };
      } catch (err) {
        // Errors travel as data: a rejected invoke would reach the page as "Error invoking
        // remote method 'gatehouse:cmd:…': Error: …", and the renderer shows one clean line.
        return { ok: false, error: errorText(err) };
      }
    });
  }

  function attachWindow(win: BrowserWindow): () => void {
    const wc = win.webContents;
    // Ready from DOMContentLoaded (the renderer's module script has run and subscribed) until
    // the next cross-document navigation of the main frame (a reload) or a renderer crash.
    // Meanwhile events are dropped: the host keeps its bounded buffers and the renderer calls
    // host:snapshot when it comes back; traffic and stderr batches count what was dropped.
    let ready = false;
    const onStartNavigation = (details: Electron.Event<Electron.WebContentsDidStartNavigationEventParams>) => {
      if (details.isMainFrame && !details.isSameDocument) ready = false;
    };
    const onDomReady = () => {
      ready = isAppUrl(wc.getURL());
    };
    const onGone = () => {
      ready = false;
    };
    wc.on('did-start-navigation', onStartNavigation);
    wc.on('dom-ready', onDomReady);
    wc.on('render-process-gone', onGone);
    const deliverable = () => ready && !win.isDestroyed() && !wc.isDestroyed() && !wc.isCrashed();

    const unsubscribe = dispatcher.subscribe(
      (event, payload) => {
        if (!deliverable()) return;
        // webContents.send reaches the main frame only (never sub-frames).
        wc.send(eventChannel(event), payload);
      },
      { congested: () => !deliverable() },
    );
    let attached = true;
    const detach = () => {
      if (!attached) return;
      attached = false;
      unsubscribe();
      if (!wc.isDestroyed()) {
        wc.off('did-start-navigation', onStartNavigation);
        wc.off('dom-ready', onDomReady);
        wc.off('render-process-gone', onGone);
      }
    };
    win.once('closed', detach);
    return detach;
  }

  return {
    attachWindow,
    dispose: () => {
      for (const c of channels) ipcMain.removeHandler(c);
    },
  };
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
}
