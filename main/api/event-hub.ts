// The host listeners behind the host API's events (common/host-api.ts `events`), registered once
// while any window is subscribed and taken back, every one, when the last window leaves: each is
// added to the hub's DisposableStore where it is registered (disposable-store.ts).
import type { Launch } from '../host';
import type { ApprovalEvent } from '../approvals/broker';
import type { DecisionEvent } from '../gateway/gateway';
import { exchangeRecord, type Exchange } from '../gateway/exchanges';
import type { ServerStatus } from '../supervisor/types';
import type { TerminalRecord } from '../agents/terminal-manager';
import type { ApiContext, EventSink } from './api-context';
import type { ConsoleCalls } from './console-calls';
import { DisposableStore } from './disposable-store';
import type { ProfileWatch } from './profile-watch';
import { decisionEvent, launchSummary, pendingApproval, serverStatus, terminalSummary } from './shapes';

export interface HubSources {
  consoleCalls: ConsoleCalls;
  profileWatch: ProfileWatch;
}

/** Starts forwarding host events to `broadcast`; the returned store's dispose() stops it. */
export function startEventHub(ctx: ApiContext, broadcast: EventSink, sources: HubSources): DisposableStore {
  const { host, lastTerminal } = ctx;
  const hub = new DisposableStore();

  const watchLaunch = (launch: Launch) => {
    const onAgent = () => {
      if (!launch.stopped) broadcast('launch:changed', { launch: launchSummary(launch) });
    };
    launch.gateway.on('agent-session', onAgent);
    hub.add(() => launch.gateway.off('agent-session', onAgent));
    hub.add(launch.gateway.console.onUpdated((uri) => broadcast('resource:updated', { launchId: launch.id, uri })));
  };
  for (const launch of ctx.runningLaunches()) watchLaunch(launch);
  const onLaunched = (launch: Launch) => {
    watchLaunch(launch);
    broadcast('launch:changed', { launch: launchSummary(launch) });
  };
  host.on('launched', onLaunched);
  hub.add(() => host.off('launched', onLaunched));
  const onStopped = (launch: Launch) => broadcast('launch:changed', { launch: launchSummary(launch), stopped: true });
  host.on('stopped', onStopped);
  hub.add(() => host.off('stopped', onStopped));
  const onStatus = (launchId: string, status: ServerStatus) => broadcast('server:status', { launchId, status: serverStatus(status) });
  host.on('server-status', onStatus);
  hub.add(() => host.off('server-status', onStatus));
  const onDecision = (d: DecisionEvent) => broadcast('decision:made', decisionEvent(d));
  host.on('decision', onDecision);
  hub.add(() => host.off('decision', onDecision));

  // Exchange changes are coalesced per exchange and sent in batches, like traffic: a call
  // changes four or five times in a millisecond, and the window needs only its latest state.
  const changed = new Map<string, { phase: 'opened' | 'updated' | 'closed'; ex: Exchange }>();
  let exchangeTimer: NodeJS.Timeout | undefined;
  const RANK = { updated: 0, opened: 1, closed: 2 } as const;
  const onExchange = (phase: 'opened' | 'updated' | 'closed', ex: Exchange) => {
    const key = `${ex.session}\u0000${ex.id}`;
    const prev = changed.get(key);
    changed.set(key, { phase: prev && RANK[prev.phase] > RANK[phase] ? prev.phase : phase, ex });
    exchangeTimer ??= setTimeout(() => {
      exchangeTimer = undefined;
      const changes = [...changed.values()].map((c) => ({ phase: c.phase, exchange: exchangeRecord(c.ex) }));
      changed.clear();
      broadcast('exchange:batch', { changes });
    }, 25);
  };
  host.on('exchange', onExchange);
  hub.add(() => host.off('exchange', onExchange));
  hub.add(() => {
    if (exchangeTimer) clearTimeout(exchangeTimer);
  });

  const onTrust = (launch: Launch) => broadcast('trust:changed', { launchId: launch.id });
  host.on('trust', onTrust);
  hub.add(() => host.off('trust', onTrust));
  hub.add(sources.consoleCalls.onChange((call) => broadcast('console:call', { call })));
  hub.add(sources.profileWatch.onChange((change) => broadcast('profile:changed', change)));
  const onApproval = (e: ApprovalEvent) => {
    if (e.type === 'requested') broadcast('approval:requested', { request: pendingApproval(e.request) });
    else broadcast('approval:resolved', { request: pendingApproval(e.request), outcome: { ...e.outcome } });
  };
  host.on('approval', onApproval);
  hub.add(() => host.off('approval', onApproval));
  hub.add(host.broker.notices.onChange((notice) => broadcast('approval:notice', { notice: { ...notice } })));
  const onAuthExpired = (launchId: string, serverId: string, reason: string) => broadcast('auth:expired', { launchId, serverId, reason });
  host.on('auth-expired', onAuthExpired);
  hub.add(() => host.off('auth-expired', onAuthExpired));
  const onLaunchNotice = (launch: Launch, message: string) => broadcast('launch:notice', { launchId: launch.id, message });
  host.on('launch-notice', onLaunchNotice);
  hub.add(() => host.off('launch-notice', onLaunchNotice));

  // Terminals: output goes to every window, never dropped (a terminal stream with a hole is
  // garbage); the pty is paused instead while windows lag (flow control, acknowledged by
  // `terminals:ack` once xterm has parsed it).
  const flowLeaves = new Map<string, () => void>();
  const joinFlow = (id: string) => {
    const session = host.terminals.get(id);
    if (session && !flowLeaves.has(id)) flowLeaves.set(id, session.joinFlowControl());
  };
  for (const t of host.terminals.list()) joinFlow(t.id);
  hub.add(() => {
    for (const leave of flowLeaves.values()) leave();
    flowLeaves.clear();
  });
  const onTermOpened = (t: TerminalRecord) => {
    joinFlow(t.id);
    broadcast('terminal:changed', { terminal: terminalSummary(t) });
  };
  host.terminals.on('opened', onTermOpened);
  hub.add(() => host.terminals.off('opened', onTermOpened));
  const onTermData = (id: string, data: string) => broadcast('terminal:data', { id, data });
  host.terminals.on('data', onTermData);
  hub.add(() => host.terminals.off('data', onTermData));
  const onTermExit = (t: TerminalRecord) => broadcast('terminal:changed', { terminal: terminalSummary(t) });
  host.terminals.on('exit', onTermExit);
  hub.add(() => host.terminals.off('exit', onTermExit));
  const onTermClosed = (id: string) => {
    flowLeaves.get(id)?.();
    flowLeaves.delete(id);
    const t = lastTerminal.get(id);
    if (t) broadcast('terminal:changed', { terminal: terminalSummary(t), closed: true });
  };
  host.terminals.on('closed', onTermClosed);
  hub.add(() => host.terminals.off('closed', onTermClosed));

  // While a window is open, APPROVAL waits for a person instead of failing closed. When the
  // last window leaves, requests already pending keep waiting until their timeout, so a
  // window that reloads can still answer them (ApprovalBroker.attachApprover).
  hub.add(host.broker.attachApprover({ name: 'ui' }));
  return hub;
}
