// The preload: exposes the host API to the sandboxed, context-isolated renderer as
// `window.gatehouse` (HostApiBridge in common/host-api.ts, described in renderer/api/README.md).
// One function per command and one subscription per event, built from the contract's maps so
// none is forgotten; no generic invoke/on, and ipcRenderer itself never crosses the bridge
// (Electron's security checklist). Sandboxed preloads may require only 'electron': this file is
// bundled to CommonJS (out/preload/index.cjs) with common/host-api inlined.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { commands, events, HOST_API_BRIDGE_VERSION, type HostApiBridge } from '../common/host-api';

// Same names as main/electron/channels.ts (main/electron/preload-bridge.test.ts checks it).
const commandChannel = (name: string) => `gatehouse:cmd:${name}`;
const eventChannel = (name: string) => `gatehouse:evt:${name}`;

type IpcResult = { ok: true; output: unknown } | { ok: false; error: string };

function command(name: string) {
  const channel = commandChannel(name);
  return async (input: unknown): Promise<unknown> => {
    const result = (await ipcRenderer.invoke(channel, input ?? {})) as IpcResult | undefined;
    if (result && result.ok === true) return result.output;
    throw new Error(result && result.ok === false ? result.error : `no answer from the host for '${name}'`);
  };
}

function subscription(name: string) {
  const channel = eventChannel(name);
  return (listener: (payload: unknown) => void): (() => void) => {
    if (typeof listener !== 'function') throw new TypeError(`gatehouse.events['${name}'] expects a function`);
    // The IPC event (with its `sender`, i.e. ipcRenderer) never reaches the page: strip it.
    const handler = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(channel, handler);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      ipcRenderer.removeListener(channel, handler);
    };
  };
}

export function buildBridge(): HostApiBridge {
  return Object.freeze({
    version: HOST_API_BRIDGE_VERSION as 1,
    commands: Object.freeze(Object.fromEntries(Object.keys(commands).map((c) => [c, command(c)]))),
    events: Object.freeze(Object.fromEntries(Object.keys(events).map((e) => [e, subscription(e)]))),
  }) as unknown as HostApiBridge;
}

contextBridge.exposeInMainWorld('gatehouse', buildBridge());
