// Connection state of a host API transport. The WebSocket can drop (the host restarted, the
// laptop slept); Electron IPC cannot. After a reconnect (`reconnected: true`) the app calls
// `host:snapshot` again: events sent while it was away are gone, the host's replay is not.
import type { HostApi } from '../../common/host-api';

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface ConnectionInfo {
  state: ConnectionState;
  /** True on the 'open' that follows a lost connection: re-fetch `host:snapshot`. */
  reconnected: boolean;
  /** Failed attempts since the last open (0 when open). */
  attempts: number;
  /** Why the last connection ended, when known. */
  reason?: string;
}

export interface ConnectedHostApi extends HostApi {
  readonly transport: 'ipc' | 'websocket';
  connection(): ConnectionInfo;
  /** Called on every state change; returns unsubscribe. Not called with the current state. */
  onConnectionChange(listener: (info: ConnectionInfo) => void): () => void;
  /** Stops reconnecting and rejects calls in flight. */
  close(): void;
}
