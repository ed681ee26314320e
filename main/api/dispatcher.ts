// The host API dispatcher: the one implementation of common/host-api.ts that both transports
// drive (Electron IPC in main/electron/, the WebSocket in main/web/). Each transport is a thin
// adapter: it hands `handle` a command name and an untrusted input, and gives `subscribe` a
// function that sends one event to its window.
//
// `handle` refuses unknown commands and validates every input with the command's zod schema.
// In development and tests it also checks its own output against the contract, so drift
// between the host and common/ shows up as a failing test rather than a confused renderer.
//
// `subscribe` never lets a window slow the host: traffic and stderr come from the bounded
// buses (bounded per subscriber, batched every ~25 ms), and a transport that reports itself
// congested gets those batches dropped and counted in `dropped`, never queued without bound.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectFormat, importFile, ImportError } from '../profiles/importers';
import { appRoot, userProfilesDir } from '../paths';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import {
  commands,
  events,
  isCommandName,
  type CommandOutput,
  type EventName,
  type EventPayload,
} from '../../common/host-api';
import type { Host, Launch } from '../host';
import { defaultProfileDirs, listProfiles } from '../profiles/registry';
import { ProfileError } from '../profiles/profile-error';
import { toAdvertised } from '../protocol/tool-names';
import type { ApprovalEvent, PendingApproval } from '../approvals/broker';
import { acceptAnswer, questionChoice } from '../approvals/questions';
import type { DecisionEvent } from '../gateway/gateway';
import { exchangeRecord, type Exchange } from '../gateway/exchanges';
import type { ServerStatus } from '../supervisor/types';
import { buildClientConfigs } from './connect-configs';
import { authHandlers } from './auth-handlers';
import { HostApiError, type Handlers } from './errors';
import { auditHandlers } from './audit-handlers';
import { terminalHandlers } from './terminal-handlers';
import { ConsoleCalls } from './console-calls';
import { searchTrafficBodies, trafficBodies } from './traffic-bodies';
import { TrafficMarks } from './traffic-marks';
import { ProfileWatch } from './profile-watch';
import type { TerminalLaunchInfo, TerminalRecord } from '../agents/terminal-manager';
import { runDoctor } from '../doctor/run-doctor';
import type { DoctorReport } from '../../common/host-api-doctor';
import { decisionEvent, launchSummary, pendingApproval, profileSummary, serverStatus, terminalSummary } from './shapes';

export type Shell = 'electron' | 'web';

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

export type EventSink = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

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

const DEFAULT_TRAFFIC_REPLAY = 2_000;
const DEFAULT_STDERR_REPLAY = 2_000;

export function createHostApiDispatcher(host: Host, opts: DispatcherOptions): HostApiDispatcher {
  const shell = opts.shell;
  const uiSession = `ui-${shell}`;
  const validate = opts.validateOutput ?? process.env.NODE_ENV !== 'production';
  const version = readVersion();
  let consoleCallCount = 0;
  let doctorReport: DoctorReport | undefined;

  const launchOf = (launchId: string): Launch => {
    const launch = host.launches.get(launchId);
    if (!launch || launch.stopped) throw new HostApiError(`no running launch '${launchId}'`);
    return launch;
  };
  const serverOf = (launchId: string, serverId: string) => {
    const launch = launchOf(launchId);
    const server = launch.supervisor.get(serverId);
    if (!server) throw new HostApiError(`launch '${launchId}' (profile ${launch.profile.name}) has no server '${serverId}'`);
    return server;
  };
  const runningLaunches = () => [...host.launches.values()].filter((l) => !l.stopped);
  /** Last known record of each terminal, so a `closed` event can still describe it. */
  const lastTerminal = new Map<string, TerminalRecord>();
  host.terminals.on('opened', (t) => lastTerminal.set(t.id, t));
  host.terminals.on('exit', (t) => lastTerminal.set(t.id, t));
  const terminalLaunch = (launch: Launch): TerminalLaunchInfo => ({
    launchId: launch.id,
    profile: launch.profile,
    url: launch.endpoint?.url,
    tokens: launch.endpoint ? { issue: (label) => launch.endpoint!.issueToken(label) } : undefined,
  });

  const marks = new TrafficMarks(host.dataDir);
  const consoleCalls = new ConsoleCalls();
  const profileWatch = new ProfileWatch(host);

  const handlers: Handlers = {
    'host:info': () => ({ version, dataDir: host.dataDir, shell, platform: process.platform }),

    'host:snapshot': (input) => ({
      launches: runningLaunches().map(launchSummary),
      traffic: host.tap.snapshot({ limit: input.trafficLimit ?? opts.defaultTrafficReplay ?? DEFAULT_TRAFFIC_REPLAY }),
      trafficStats: host.tap.stats(),
      stderr: host.stderrBus.snapshot({ limit: input.stderrLimit ?? opts.defaultStderrReplay ?? DEFAULT_STDERR_REPLAY }),
      stderrStats: host.stderrBus.stats(),
      approvals: host.broker.pending().map(pendingApproval),
      approvalNotices: host.broker.notices.list(),
      terminals: host.terminals.list().map(terminalSummary),
      consoleCalls: consoleCalls.list(),
      exchanges: runningLaunches().flatMap((l) => l.gateway.exchanges.snapshot().map(exchangeRecord)),
    }),

    'profiles:list': () => listProfiles(defaultProfileDirs(host.env)).map(profileSummary),

    'profiles:launch': async (input) => {
      let launch: Launch;
      try {
        // Every launch from a window serves Streamable HTTP on a free port, so an agent can connect.
        launch = await host.launch(input.ref, { toolSurface: input.toolSurface, httpPort: 0, kind: shell === 'web' ? 'serve' : 'launch', startAgent: true });
      } catch (err) {
        // A refused profile keeps its file:line:col text, exactly as the CLI prints it.
        if (err instanceof ProfileError) throw new HostApiError(err.message);
        throw new HostApiError(`cannot launch '${input.ref}': ${(err as Error).message}`);
      }
      return launchSummary(launch);
    },

    'profiles:stop': async (input) => {
      launchOf(input.launchId);
      await host.stop(input.launchId, `stopped from the ${shell} window`);
      return { ok: true as const };
    },

    'profiles:import': (input) => {
      const imported = importUploaded(input.fileName, input.text, host.env);
      // Quarantined: whatever pins an earlier profile of this name had are gone; every server asks first.
      host.trust.forget(imported.name, uiSession, 'quarantined');
      return imported;
    },

    'launches:list': () => runningLaunches().map(launchSummary),
    'profiles:changes': () => profileWatch.list(),

    'servers:restart': async (input) => {
      await serverOf(input.launchId, input.serverId).restart();
      return { ok: true as const };
    },
    'servers:stop': async (input) => {
      await serverOf(input.launchId, input.serverId).stop(`stopped from the ${shell} window`);
      return { ok: true as const };
    },
    'servers:start': async (input) => {
      await serverOf(input.launchId, input.serverId).start();
      return { ok: true as const };
    },
    ...authHandlers(host, serverOf),
    ...auditHandlers(host, launchOf),
    ...terminalHandlers(host, { launchOf, terminalLaunch, lastTerminal }),

    'approvals:list': () => host.broker.pending().map(pendingApproval),
    'approvals:answer': (input) => {
      checkAnswer(host.broker.get(input.id), input);
      return { ok: host.broker.answer(input.id, { choice: input.choice, by: 'ui', ...(input.note ? { note: input.note } : {}), ...(input.content !== undefined ? { content: input.content } : {}) }) };
    },

    'tools:list': (input) => {
      const launch = launchOf(input.launchId);
      const surface = launch.gateway.currentSurface();
      // The window is where approvals are answered, so it shows what the policy says even while
      // no approver is attached yet (a held server still shows as unavailable).
      const status = new Map(launch.gateway.capabilitiesReport().tool_states.map((t) => [t.name, t.reason_code === 'no_approver' ? t.policy_status : t.status]));
      return surface.tools.map((t) => {
        const out: CommandOutput<'tools:list'>[number] = {
          name: t.advertised[0] ?? toAdvertised(t.canonical),
          canonical: t.canonical,
          server: t.server,
          inputSchema: { ...(t.tool.inputSchema as Record<string, unknown>) },
          // The capabilities tool is not in its own report: it is always callable.
          status: status.get(t.canonical) ?? 'callable',
        };
        if (t.tool.title !== undefined) out.title = t.tool.title;
        if (t.tool.description !== undefined) out.description = t.tool.description;
        if (t.tool.outputSchema) out.outputSchema = { ...(t.tool.outputSchema as Record<string, unknown>) };
        if (t.tool.annotations) out.annotations = { ...t.tool.annotations };
        return out;
      });
    },

    'tools:call': async (input) => {
      const launch = launchOf(input.launchId);
      // A request id of our own makes the exchange id known before the call returns, so the
      // window can find the call's traffic rows and its approval (`ui-web#console-3`).
      const requestId = `console-${++consoleCallCount}`;
      const exchange = `${uiSession}#${requestId}`;
      consoleCalls.start(exchange, launch.id, input.name, input.arguments);
      let output: CommandOutput<'tools:call'>;
      try {
        const result = await launch.gateway.callTool(input.name, input.arguments, { agentSession: uiSession, requestId });
        output = { result: result as CommandOutput<'tools:call'>['result'], exchange };
      } catch (err) {
        // Unknown tool, or a JSON-RPC error from the server: shown to the person, not thrown.
        const code = (err as { code?: unknown }).code;
        const message = err instanceof McpError || typeof code === 'number' ? `${(err as Error).message} (code ${String(code)})` : (err as Error).message;
        output = { error: message, exchange };
      }
      consoleCalls.finish(exchange, output);
      return output;
    },

    'logs:tail': (input) => {
      serverOf(input.launchId, input.serverId);
      const lines = host.stderrBus.snapshot().filter((l) => l.session === input.launchId && l.server === input.serverId);
      return lines.slice(-(input.limit ?? 500));
    },

    'connect:configs': (input) => {
      const launch = launchOf(input.launchId);
      return buildClientConfigs({
        url: launch.endpoint?.url,
        profileName: launch.profile.name,
        profileFile: launch.profile.file,
        dataDir: host.dataDir,
        workspace: launch.profile.workspace,
        ...(input.transport ? { transport: input.transport } : {}),
      });
    },

    'doctor:run': (input) => {
      if (input.refresh || !doctorReport) doctorReport = runDoctor({ env: host.env, dataDir: host.dataDir, secretStore: () => host.auth.store });
      return doctorReport;
    },

    'traffic:bodies': (input) => trafficBodies({ tap: host.tap, audit: host.audit }, input.refs),
    'traffic:search': (input) => searchTrafficBodies({ tap: host.tap, audit: host.audit }, input),
    'traffic:marks': () => marks.list(),
    'traffic:pin': (input) => {
      marks.setPinned(input.row, input.pinned);
      return { ok: true as const };
    },
    'traffic:linkReplay': (input) => {
      marks.linkReplay(input);
      return { ok: true as const };
    },

    'connect:token': (input) => {
      const launch = launchOf(input.launchId);
      if (!launch.token) throw new HostApiError(`launch '${input.launchId}' serves no HTTP endpoint, so it has no token`);
      return { token: launch.token };
    },

    'trust:reviews': (input) => {
      const launch = launchOf(input.launchId);
      const r = launch.trust.reviews();
      return {
        launchId: launch.id,
        profile: launch.profile.name,
        launch: r.launch.map((l) => ({ server: l.server, status: l.status, hash: l.hash, lines: l.lines, changed: l.changed, ...(l.previousLines ? { previousLines: l.previousLines } : {}) })),
        tools: r.tools.map((t) => ({ ...t, flags: t.flags.map((f) => ({ ...f })) })),
      };
    },
    'trust:decide': async (input) => {
      const launch = launchOf(input.launchId);
      try {
        await launch.trust.decide({ server: input.serverId, tool: input.tool, choice: input.choice, by: uiSession, ...(input.hash ? { hash: input.hash } : {}) });
      } catch (err) {
        throw new HostApiError((err as Error).message);
      }
      return { ok: true as const };
    },


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
  let hub: { detach: () => void } | undefined;

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

  /** Host listeners, registered once while any window is subscribed. */
  function startHub(): { detach: () => void } {
    const disposers: Array<() => void> = [];
    const watchLaunch = (launch: Launch) => {
      const onAgent = () => {
        if (!launch.stopped) broadcast('launch:changed', { launch: launchSummary(launch) });
      };
      launch.gateway.on('agent-session', onAgent);
      disposers.push(() => launch.gateway.off('agent-session', onAgent));
    };
    const onLaunched = (launch: Launch) => {
      watchLaunch(launch);
      broadcast('launch:changed', { launch: launchSummary(launch) });
    };
    const onStopped = (launch: Launch) => broadcast('launch:changed', { launch: launchSummary(launch), stopped: true });
    const onStatus = (launchId: string, status: ServerStatus) => broadcast('server:status', { launchId, status: serverStatus(status) });
    const onDecision = (d: DecisionEvent) => broadcast('decision:made', decisionEvent(d));
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
    disposers.push(() => {
      if (exchangeTimer) clearTimeout(exchangeTimer);
    });
    const onTrust = (launch: Launch) => broadcast('trust:changed', { launchId: launch.id });
    disposers.push(consoleCalls.onChange((call) => broadcast('console:call', { call })));
    disposers.push(profileWatch.onChange((change) => broadcast('profile:changed', change)));
    const onApproval = (e: ApprovalEvent) => {
      if (e.type === 'requested') broadcast('approval:requested', { request: pendingApproval(e.request) });
      else broadcast('approval:resolved', { request: pendingApproval(e.request), outcome: { ...e.outcome } });
    };
    // Terminals: output goes to every window, never dropped (a terminal stream with a hole is
    // garbage); the pty is paused instead while windows lag (flow control, acknowledged by
    // `terminals:ack` once xterm has parsed it).
    const flowLeaves = new Map<string, () => void>();
    const joinFlow = (id: string) => {
      const session = host.terminals.get(id);
      if (session && !flowLeaves.has(id)) flowLeaves.set(id, session.joinFlowControl());
    };
    for (const t of host.terminals.list()) joinFlow(t.id);
    const onTermOpened = (t: TerminalRecord) => {
      joinFlow(t.id);
      broadcast('terminal:changed', { terminal: terminalSummary(t) });
    };
    const onTermData = (id: string, data: string) => broadcast('terminal:data', { id, data });
    const onTermExit = (t: TerminalRecord) => broadcast('terminal:changed', { terminal: terminalSummary(t) });
    const onTermClosed = (id: string) => {
      flowLeaves.get(id)?.();
      flowLeaves.delete(id);
      const t = lastTerminal.get(id);
      if (t) broadcast('terminal:changed', { terminal: terminalSummary(t), closed: true });
    };
    host.terminals.on('opened', onTermOpened);
    host.terminals.on('data', onTermData);
    host.terminals.on('exit', onTermExit);
    host.terminals.on('closed', onTermClosed);
    disposers.push(() => {
      host.terminals.off('opened', onTermOpened);
      host.terminals.off('data', onTermData);
      host.terminals.off('exit', onTermExit);
      host.terminals.off('closed', onTermClosed);
      for (const leave of flowLeaves.values()) leave();
      flowLeaves.clear();
    });
    for (const launch of runningLaunches()) watchLaunch(launch);
    host.on('launched', onLaunched);
    host.on('stopped', onStopped);
    host.on('server-status', onStatus);
    host.on('decision', onDecision);
    host.on('exchange', onExchange);
    host.on('approval', onApproval);
    host.on('trust', onTrust);
    disposers.push(host.broker.notices.onChange((notice) => broadcast('approval:notice', { notice: { ...notice } })));
    const onAuthExpired = (launchId: string, serverId: string, reason: string) => broadcast('auth:expired', { launchId, serverId, reason });
    host.on('auth-expired', onAuthExpired);
    disposers.push(() => host.off('auth-expired', onAuthExpired));
    const onLaunchNotice = (launch: Launch, message: string) => broadcast('launch:notice', { launchId: launch.id, message });
    host.on('launch-notice', onLaunchNotice);
    disposers.push(() => host.off('launch-notice', onLaunchNotice));
    // While a window is open, APPROVAL waits for a person instead of failing closed. When the
    // last window leaves, requests already pending keep waiting until their timeout, so a
    // window that reloads can still answer them (ApprovalBroker.attachApprover).
    const detachApprover = host.broker.attachApprover({ name: 'ui' });
    return {
      detach: () => {
        detachApprover();
        host.off('launched', onLaunched);
        host.off('stopped', onStopped);
        host.off('server-status', onStatus);
        host.off('decision', onDecision);
        host.off('exchange', onExchange);
        host.off('approval', onApproval);
        host.off('trust', onTrust);
        for (const d of disposers) d();
      },
    };
  }

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
    if (!hub) hub = startHub();
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      for (const u of sub.unsubscribeBuses) u();
      subs.delete(sub);
      if (subs.size === 0 && hub) {
        hub.detach();
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
      hub?.detach();
      hub = undefined;
      profileWatch.close();
    },
  };
}

/**
 * `profiles:import` from the window: the file's text arrives without its path, so it is staged
 * under its own base name (which drives format detection) and imported into the user's profiles
 * folder under the first free name (`claude-code`, `claude-code-2`, …).
 */
function importUploaded(fileName: string, text: string, env: NodeJS.ProcessEnv): { file: string; name: string; warnings: string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-import-'));
  try {
    const base = path.basename(fileName).replace(/[^\w.-]/g, '_') || 'mcp.json';
    const src = path.join(dir, base);
    writeFileSync(src, text, { mode: 0o600 });
    const format = detectFormat(src, text);
    if (!format) throw new HostApiError(`${base}: cannot tell which client this configuration is for (Claude Desktop, Claude Code, VS Code, Cursor, Codex or Gemini)`);
    let name: string = format;
    for (let n = 2; existsSync(path.join(userProfilesDir(env), `${name}.yaml`)) && n < 100; n++) name = `${format}-${n}`;
    const result = importFile(src, { format, name, env });
    const secretNotes = result.secrets.map((s) => `set secret ${s.name} before launching (environment variable GATEHOUSE_SECRET_${s.name} or ${s.name})`);
    return { file: result.file, name: result.name, warnings: [...result.warnings, ...secretNotes] };
  } catch (err) {
    if (err instanceof ImportError) throw new HostApiError(err.message);
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An answer that cannot settle the request it names, refused with the reason (the broker would
 * only say no): a question answered with an approval word, content for a tool call, content
 * that does not fit the requested schema or the reply limits. Unknown ids pass (→ ok: false).
 */
function checkAnswer(p: PendingApproval | undefined, input: { choice: string; content?: unknown }): void {
  if (!p) return;
  if (p.question === undefined || (p.kind !== 'sampling' && p.kind !== 'elicitation')) {
    if (input.content !== undefined) throw new HostApiError(`content answers only sampling and elicitation requests; ${p.tool} is a ${p.kind} approval`);
    if (questionChoice(input.choice) && !['allow_once', 'deny'].includes(input.choice)) {
      throw new HostApiError(`'${input.choice}' answers sampling and elicitation requests; use allow_once, allow_session, allow_tool_session or deny`);
    }
    return;
  }
  const choice = questionChoice(input.choice);
  const words = p.kind === 'elicitation' ? 'accept, decline or cancel' : 'accept (with content {text}) or decline';
  if (!choice) throw new HostApiError(`'${input.choice}' does not answer a ${p.kind} request: use ${words}`);
  if (choice !== 'accept') {
    if (input.content !== undefined) throw new HostApiError(`content goes only with accept`);
    return;
  }
  const check = acceptAnswer(p.kind, p.question, input.content);
  if (!check.ok) throw new HostApiError(`cannot accept this ${p.kind} request: ${check.error}`);
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
