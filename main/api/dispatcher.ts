// The host API dispatcher: the one implementation of common/host-api.ts that both transports
// drive (Electron IPC in main/electron/, the WebSocket in main/web/). Each transport is a thin
// adapter: it hands `handle` a command name and an untrusted input, and gives `subscribe` a
// function that sends one event to its window.
//
// `handle` refuses unknown commands and validates every input with the command's zod schema.
// In development and tests it also checks its own output against the contract, so drift
// between the host and common/ shows up as a failing test rather than a confused renderer.
//
// Each domain's commands are a handler file of their own (profile-, launch-, server-, tool-,
// approval-, traffic-, trust-, terminal-, audit-, auth-, resource-, host-handlers.ts); this file composes
// them and owns validation and the event fan-out. What it registers on the host is taken back
// through a DisposableStore (disposable-store.ts), never by a hand-kept list.
//
// `subscribe` never lets a window slow the host: traffic and stderr come from the bounded
// buses (bounded per subscriber, batched every ~25 ms), and a transport that reports itself
// congested gets those batches dropped and counted in `dropped`, never queued without bound.
import type { z } from 'zod';
import { commands, events, isCommandName, type EventName, type EventPayload } from '../../common/host-api';
import type { Host } from '../host';
import { apiContext, type EventSink, type Shell } from './api-context';
import { approvalHandlers } from './approval-handlers';
import { auditHandlers } from './audit-handlers';
import { authHandlers } from './auth-handlers';
import { ConsoleCalls } from './console-calls';
import { DisposableStore } from './disposable-store';
import { HostApiError, type Handlers } from './errors';
import { startEventHub } from './event-hub';
import { hostHandlers } from './host-handlers';
import { launchHandlers } from './launch-handlers';
import { profileHandlers } from './profile-handlers';
import { resourceHandlers } from './resource-handlers';
import { ProfileWatch } from './profile-watch';
import { serverHandlers } from './server-handlers';
import { terminalHandlers } from './terminal-handlers';
import { toolHandlers } from './tool-handlers';
import { TrafficMarks } from './traffic-marks';
import { trafficHandlers } from './traffic-handlers';
import { trustHandlers } from './trust-handlers';

export type { EventSink, Shell } from './api-context';

export interface DispatcherOptions {
  shell: Shell;
  /** Check outputs and event payloads against the contract. Default: on unless NODE_ENV=production. */
  validateOutput?: boolean;
  /** Traffic kept in `host:snapshot` when the window does not say. */
  defaultTrafficReplay?: number;
  defaultStderrReplay?: number;
}

export interface SubscriberOptions {
  /** Batch interval for traffic and stderr (default: the bus's, 25 ms). */
  intervalMs?: number;
  /** Items a subscriber may have waiting on each bus before the oldest are dropped. */
  maxPending?: number;
  /**
   * True while the transport is backed up (the WebSocket's bufferedAmount above its high
   * watermark). Traffic and stderr batches are then dropped, and counted in the next batch's
   * `dropped`; approvals, decisions and state changes are always sent (they are small and a
   * person acts on them).
   */
  congested?: () => boolean;
}

export interface HostApiDispatcher {
  readonly shell: Shell;
  /** The agent session id the UI's own tool calls run as (`ui-<shell>`). */
  readonly uiSession: string;
  handle(command: string, input: unknown): Promise<unknown>;
  subscribe(send: EventSink, opts?: SubscriberOptions): () => void;
  /** Number of windows subscribed now. */
  subscribers(): number;
  /** Contract violations seen in outgoing events (dev/test validation); tests expect none. */
  violations(): readonly string[];
  /** Unsubscribes every window and detaches the UI approver. */
  close(): void;
}

export { HostApiError } from './errors';

export function createHostApiDispatcher(host: Host, opts: DispatcherOptions): HostApiDispatcher {
  const shell = opts.shell;
  const validate = opts.validateOutput ?? process.env.NODE_ENV !== 'production';
  /** What lives as long as the dispatcher: taken back by close(). */
  const lifetime = new DisposableStore();
  const ctx = apiContext(host, shell, lifetime);
  const uiSession = ctx.uiSession;

  const marks = new TrafficMarks(host.dataDir);
  const consoleCalls = new ConsoleCalls();
  const profileWatch = new ProfileWatch(host);
  lifetime.add(() => profileWatch.close());

  const handlers: Handlers = {
    ...hostHandlers(ctx, { consoleCalls, defaultTrafficReplay: opts.defaultTrafficReplay, defaultStderrReplay: opts.defaultStderrReplay }),
    ...profileHandlers(ctx, profileWatch),
    ...launchHandlers(ctx),
    ...serverHandlers(ctx),
    ...authHandlers(host, ctx.serverOf),
    ...auditHandlers(host, ctx.launchOf),
    ...terminalHandlers(host, ctx),
    ...approvalHandlers(ctx),
    ...toolHandlers(ctx, consoleCalls),
    ...resourceHandlers(ctx),
    ...trafficHandlers(ctx, marks),
    ...trustHandlers(ctx),
  };

  async function handle(command: string, input: unknown): Promise<unknown> {
    if (!isCommandName(command)) throw new HostApiError(`unknown command '${String(command).slice(0, 100)}'`);
    const spec = commands[command];
    const parsed = spec.input.safeParse(input ?? {});
    if (!parsed.success) throw new HostApiError(`invalid input for '${command}': ${describeIssues(parsed.error.issues)}`);
    const run = handlers[command] as (i: unknown) => unknown;
    let output: unknown;
    try {
      output = await run(parsed.data);
    } catch (err) {
      if (err instanceof HostApiError) throw err;
      throw new HostApiError(`${command} failed: ${(err as Error)?.message ?? String(err)}`);
    }
    if (validate) {
      const checked = spec.output.safeParse(output);
      if (!checked.success) throw new Error(`host API bug: '${command}' returned a value outside the contract: ${describeIssues(checked.error.issues)}`);
    }
    return output;
  }

  // ---- events --------------------------------------------------------------------------------

  interface Subscriber {
    send: EventSink;
    unsubscribeBuses: Array<() => void>;
  }
  const subs = new Set<Subscriber>();
  /** The host listeners, while any window is subscribed (event-hub.ts). */
  let hub: DisposableStore | undefined;

  const violations: string[] = [];
  /** False (and reported, never thrown) when validating and the event breaks the contract: these run inside host events, on the protocol path. */
  const conforms = (event: EventName, payload: unknown): boolean => {
    if (!validate) return true;
    try {
      checkEvent(event, payload);
      return true;
    } catch (err) {
      violations.push((err as Error).message);
      console.error(`gatehouse: ${(err as Error).message}`);
      return false;
    }
  };
  /** One window's listener that throws is logged; the host and the other windows carry on. */
  const sendTo = <E extends EventName>(send: EventSink, event: E, payload: EventPayload<E>) => {
    try {
      send(event, payload);
    } catch (err) {
      console.error(`gatehouse: a window's ${event} listener threw:`, err);
    }
  };
  const broadcast: EventSink = (event, payload) => {
    if (!conforms(event, payload)) return;
    for (const s of subs) sendTo(s.send, event, payload);
  };

  function subscribe(send: EventSink, sopts: SubscriberOptions = {}): () => void {
    const sub: Subscriber = { send, unsubscribeBuses: [] };
    const busOptions = { intervalMs: sopts.intervalMs, maxPending: sopts.maxPending };
    const congested = sopts.congested ?? (() => false);
    // One gate per stream: while the transport is congested a batch is dropped whole, and what
    // was dropped (here or by the bus) is reported with the next batch that goes out.
    const gate = <E extends 'traffic:batch' | 'stderr:batch', T>(event: E, make: (items: T[], dropped: number) => EventPayload<E>) => {
      let carried = 0;
      return (batch: T[], info: { dropped: number }) => {
        if (congested()) {
          carried += info.dropped + batch.length;
          return;
        }
        const payload = make(batch, info.dropped + carried);
        carried = 0;
        if (conforms(event, payload)) sendTo(send, event, payload);
      };
    };
    sub.unsubscribeBuses.push(host.tap.subscribe(gate('traffic:batch', (events, dropped) => ({ events, dropped })), busOptions));
    sub.unsubscribeBuses.push(host.stderrBus.subscribe(gate('stderr:batch', (lines, dropped) => ({ lines, dropped })), busOptions));
    subs.add(sub);
    hub ??= startEventHub(ctx, broadcast, { consoleCalls, profileWatch });
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      for (const u of sub.unsubscribeBuses) u();
      subs.delete(sub);
      if (subs.size === 0 && hub) {
        hub.dispose();
        hub = undefined;
      }
    };
  }

  function checkEvent(event: EventName, payload: unknown): void {
    const checked = events[event].safeParse(payload);
    if (!checked.success) throw new Error(`host API bug: event '${event}' outside the contract: ${describeIssues(checked.error.issues)}`);
  }

  return {
    shell,
    uiSession,
    handle,
    subscribe,
    subscribers: () => subs.size,
    violations: () => violations,
    close: () => {
      for (const s of [...subs]) for (const u of s.unsubscribeBuses) u();
      subs.clear();
      hub?.dispose();
      hub = undefined;
      lifetime.dispose();
    },
  };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}
