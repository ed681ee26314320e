// Picks the host API transport once: Electron IPC when the preload exposed `window.gatehouse`,
// otherwise the headless shell's WebSocket. This is the only place the renderer looks at a
// window global; everything else receives the HostApi through HostApiContext (./context.ts).
import type { HostApiBridge } from '../../common/host-api';
import type { ConnectedHostApi } from './connection';
import { createIpcHostApi } from './ipc-client';
import { createWsHostApi } from './ws-client';

export type { ConnectedHostApi, ConnectionInfo, ConnectionState } from './connection';
export { createIpcHostApi } from './ipc-client';
export { createWsHostApi } from './ws-client';

let instance: ConnectedHostApi | undefined;

export function getHostApi(): ConnectedHostApi {
  if (instance) return instance;
  const bridge = (window as unknown as { gatehouse?: HostApiBridge }).gatehouse;
  instance = bridge ? createIpcHostApi(bridge) : createWsHostApi();
  return instance;
}

/**
 * Which shell hosts this window. Under Electron the main process raises approval
 * notifications itself (they focus the window when clicked), so the renderer must not add its own.
 */
export function hostShell(): 'electron' | 'web' {
  return (window as unknown as { gatehouse?: HostApiBridge }).gatehouse ? 'electron' : 'web';
}
