// IPC channel names, derived from the contract so none is forgotten. The preload derives the
// same names with its own two-line copy (it may import only electron and common/);
// main/electron/preload-bridge.test.ts keeps the two in step. Prefixed so they cannot collide
// with Electron's own channels.
import { commands, events, type CommandName, type EventName } from '../../common/host-api';

export const COMMAND_CHANNEL_PREFIX = 'gatehouse:cmd:';
export const EVENT_CHANNEL_PREFIX = 'gatehouse:evt:';

export const commandChannel = (command: CommandName): string => `${COMMAND_CHANNEL_PREFIX}${command}`;
export const eventChannel = (event: EventName): string => `${EVENT_CHANNEL_PREFIX}${event}`;

export function commandNames(): CommandName[] {
  return Object.keys(commands) as CommandName[];
}

export function eventNames(): EventName[] {
  return Object.keys(events) as EventName[];
}

/** What an IPC command resolves to: errors travel as data, so the renderer sees a clean one-line message. */
export type IpcResult = { ok: true; output: unknown } | { ok: false; error: string };
