// The host API over Electron IPC: adapts the preload's `window.gatehouse` bridge
// (HostApiBridge in common/host-api.ts, described in ./README.md) to HostApi. The bridge has one
// function per command and per event, so a missing one is a version mismatch, reported by name.
import type { CommandInput, CommandName, CommandOutput, EventName, EventPayload, HostApiBridge } from '../../common/host-api';
import { HOST_API_BRIDGE_VERSION } from '../../common/host-api';
import type { ConnectedHostApi, ConnectionInfo } from './connection';

export function createIpcHostApi(bridge: HostApiBridge): ConnectedHostApi {
  if (bridge.version !== HOST_API_BRIDGE_VERSION) {
    throw new Error(`window.gatehouse bridge version ${String(bridge.version)}, expected ${HOST_API_BRIDGE_VERSION}`);
  }
  const info: ConnectionInfo = { state: 'open', reconnected: false, attempts: 0 };
  return {
    transport: 'ipc',
    call<C extends CommandName>(command: C, input: CommandInput<C>): Promise<CommandOutput<C>> {
      const fn = bridge.commands[command] as ((input: CommandInput<C>) => Promise<CommandOutput<C>>) | undefined;
      if (typeof fn !== 'function') return Promise.reject(new Error(`the preload bridge has no command '${command}'`));
      return fn(input);
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      const fn = bridge.events[event] as ((l: (payload: EventPayload<E>) => void) => () => void) | undefined;
      if (typeof fn !== 'function') throw new Error(`the preload bridge has no event '${event}'`);
      return fn(listener);
    },
    // IPC does not drop: the window and the host live and die together.
    connection: () => info,
    onConnectionChange: () => () => {},
    close: () => {},
  };
}
