// What every handler file of the host API shares: the host, which window shell it serves, and the
// lookups that turn a command's ids into a running launch or server with an error that names the
// id that was not found (common/host-api.ts commands carry ids, never objects).
import type { EventName, EventPayload } from '../../common/host-api';
import type { Host, Launch } from '../host';
import type { TerminalLaunchInfo, TerminalRecord } from '../agents/terminal-manager';
import type { ManagedServer } from '../supervisor/managed-server';
import type { DisposableStore } from './disposable-store';
import { HostApiError } from './errors';

export type Shell = 'electron' | 'web';

/** Sends one event to one window (a transport's), or to every window (the dispatcher's broadcast). */
export type EventSink = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface ApiContext {
  host: Host;
  shell: Shell;
  /** The agent session id the UI's own tool calls and decisions run as (`ui-<shell>`). */
  uiSession: string;
  launchOf(launchId: string): Launch;
  serverOf(launchId: string, serverId: string): ManagedServer;
  runningLaunches(): Launch[];
  terminalLaunch(launch: Launch): TerminalLaunchInfo;
  /** Last known record of each terminal, so a `closed` event can still describe it. */
  lastTerminal: Map<string, TerminalRecord>;
}

/** The context; the listeners that keep `lastTerminal` current go into `store` (the dispatcher's). */
export function apiContext(host: Host, shell: Shell, store: DisposableStore): ApiContext {
  const launchOf = (launchId: string): Launch => {
    const launch = host.launches.get(launchId);
    if (!launch || launch.stopped) throw new HostApiError(`no running launch '${launchId}'`);
    return launch;
  };
  const lastTerminal = new Map<string, TerminalRecord>();
  const remember = (t: TerminalRecord) => lastTerminal.set(t.id, t);
  host.terminals.on('opened', remember);
  store.add(() => host.terminals.off('opened', remember));
  host.terminals.on('exit', remember);
  store.add(() => host.terminals.off('exit', remember));
  return {
    host,
    shell,
    uiSession: `ui-${shell}`,
    launchOf,
    serverOf: (launchId, serverId) => {
      const launch = launchOf(launchId);
      const server = launch.supervisor.get(serverId);
      if (!server) throw new HostApiError(`launch '${launchId}' (profile ${launch.profile.name}) has no server '${serverId}'`);
      return server;
    },
    runningLaunches: () => [...host.launches.values()].filter((l) => !l.stopped),
    terminalLaunch: (launch) => ({
      launchId: launch.id,
      profile: launch.profile,
      url: launch.endpoint?.url,
      tokens: launch.endpoint ? { issue: (label) => launch.endpoint!.issueToken(label) } : undefined,
    }),
    lastTerminal,
  };
}
