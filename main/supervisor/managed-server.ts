// One supervised MCP server: a stdio child (or a built-in tools child, or a Streamable HTTP
// upstream) with its SDK client, its state machine, restarts with backoff, and shutdown that
// follows the MCP lifecycle. Modelled on ToolHive Studio's manager (see STYLE.md): SIGTERM
// then a timed SIGKILL whose timer is cleared on exit, exit events from an old child ignored.
import { StderrRing, STDERR_RING } from './stderr-ring';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { HttpServerSpec, ServerSpec } from '../profiles/types';
import type { TapMeta } from '../protocol/traffic-tap';
import { ExchangeChannel } from '../protocol/exchange-channel';
import { quoteArg } from './quote-arg';
import { CommandNotFoundError } from '../sandbox/shell-path';
import { killRunGroup, spawnServerChild } from './run-command';
import { groupAlive, trackProcessGroup, untrackProcessGroup } from './reaper';
import { HttpLiveness, openHttpTransport } from './http-upstream';
import { StdoutFaults } from './stdout-faults';
import { StartupTimeoutError, waitGroupGone, withTimeout } from './run-timing';
import { decideRestart } from './restart-decision';
import type { ExitInfo, ServerEraInfo, ServerState, ServerStatus, UpstreamClient } from './types';
import { GATEWAY_CLIENT_INFO } from './gateway-identity';
import type { NewEraPort } from './new-era-client';
import { openNewEraRun } from './new-era-run';
import { initializeVersion } from './upstream-era';
import type { UpstreamEras } from './upstream-era';
import type { ManagedServerOptions, RunInfo } from './managed-server-options';
import { exposedTools, listAllTools } from './tool-list';
import { composeStatus, type StatusSnapshot } from './server-status';
import { isPermanentSandboxError, type SandboxedRun } from '../sandbox/spawn-sandboxed';
import { EXIT_STDERR_LINES, ExitHistory } from './exit-history';

/** A server whose stdout closed gets this long to exit by itself before it is signalled. */
const EXIT_AFTER_CLOSE_MS = 1000;
/** How long stop() waits for a SIGKILLed process group to disappear (bounded: zombies). */
const GROUP_GONE_MS = 2000;

export type { ManagedServerOptions, RunInfo } from './managed-server-options';

type Events = {
  status: [ServerStatus];
  tools: [Tool[], string | undefined];
  'run-started': [RunInfo];
  'run-ended': [RunInfo, ExitInfo];
  'protocol-fault': [string];
};

export class ManagedServer extends EventEmitter<Events> {
  readonly id: string;
  readonly spec: ServerSpec;
  private state: ServerState = 'stopped';
  private reason = 'not started';
  private run = 0;
  private restarts = 0;
  /** Consecutive crashes since the last sustained uptime; drives backoff and max_restarts. */
  private attempt = 0;
  private child: ChildProcess | undefined;
  private pgid: number | undefined;
  /** The run's client as the gateway uses it (SDK v1 for an old-era server, v2 for a new one). */
  private currentClient: UpstreamClient | undefined;
  /** The SDK v1 client of an old-era run. */
  private currentV1: Client | undefined;
  /** A new-era run's port (the channel, with the `_meta` envelope and forwarded headers). */
  private currentPort: NewEraPort | undefined;
  private eraInfo: ServerEraInfo | undefined;
  private currentChannel: ExchangeChannel | undefined;
  private currentRun: RunInfo | undefined;
  private startedAt: number | undefined;
  private readyAt: number | undefined;
  private nextRestartAt: number | undefined;
  private lastExit: ExitInfo | undefined;
  private readonly exits = new ExitHistory();
  private readonly faults = new StdoutFaults();
  private restartTimer: NodeJS.Timeout | undefined;
  private killTimers: NodeJS.Timeout[] = [];
  private stopping = false;
  private runEnded = new Set<number>();
  private readonly stderr: StderrRing;
  private protocolFaults = 0;
  private protocolVersion: string | undefined;
  private toolList: Tool[] = [];
  private settledWaiters: Array<() => void> = [];
  private exitWaiters: Array<() => void> = [];

  constructor(private readonly opts: ManagedServerOptions) {
    super();
    this.spec = opts.spec;
    this.id = opts.spec.id;
    this.stderr = new StderrRing({ redactor: opts.redactor, bus: opts.stderrBus, session: opts.session, server: this.id });
    opts.oauth?.on('status', () => this.emitStatus());
  }

  /** The SDK v1 client of the current run, only while an old-era server is ready. */
  get client(): Client | undefined {
    return this.state === 'ready' ? this.currentV1 : undefined;
  }

  /** The run's client whichever era it speaks, only while the server is ready. */
  get upstreamClient(): UpstreamClient | undefined {
    return this.state === 'ready' ? this.currentClient : undefined;
  }

  /** Where the gateway forwards calls, only while the server is ready (a new-era run adds its envelope). */
  get port(): NewEraPort | ExchangeChannel | undefined {
    return this.state === 'ready' ? (this.currentPort ?? this.currentChannel) : undefined;
  }

  /**
   * The channel beneath the SDK client, only while the server is ready: the gateway forwards
   * calls through it with ids it assigns (the client keeps the lifecycle).
   */
  get channel(): ExchangeChannel | undefined {
    return this.state === 'ready' ? this.currentChannel : undefined;
  }

  /** An HTTP upstream's liveness check, now (the heartbeat's, without waiting for it). */
  checkAlive(): Promise<void> {
    return this.liveness?.check() ?? Promise.resolve();
  }

  /** The protocol version the ready run speaks (the era of its calls). */
  get negotiatedVersion(): string | undefined {
    return this.state === 'ready' ? this.protocolVersion : undefined;
  }

  tools(): Tool[] {
    return this.toolList;
  }

  status(): ServerStatus {
    const ready = this.state === 'ready';
    return composeStatus({
      id: this.id, spec: this.spec, state: this.state, reason: this.reason, run: this.run, restarts: this.restarts, pid: this.child?.pid,
      command: this.currentRun?.command ?? this.describeCommand(), cwd: this.currentRun?.cwd, startedAt: this.startedAt, readyAt: this.readyAt,
      nextRestartAt: this.nextRestartAt, lastExit: this.lastExit, exits: this.exits.list(), stderrRing: this.stderr.lines, protocolFaults: this.protocolFaults,
      ready: ready ? { client: this.currentClient, protocolVersion: this.protocolVersion, era: this.eraInfo, toolCount: this.toolList.length } : undefined,
      auth: this.opts.oauth?.status(),
      sandboxRun: this.sandboxKind,
    }, (v) => this.opts.redactor.redactJson(v));
  }

  /** The full stderr ring (redacted), for a late-attaching view. */
  stderrTail(limit = STDERR_RING): string[] {
    return this.stderr.tail(limit);
  }

  /** Starts the server; resolves once it is ready, failed or stopped (never rejects). */
  start(): Promise<void> {
    if (this.spec.disabled) {
      this.setState('stopped', 'disabled in the profile');
      return Promise.resolve();
    }
    if (this.state === 'ready' || this.state === 'starting' || this.state === 'restarting') return this.settled();
    this.stopping = false;
    this.attempt = 0;
    void this.launchRun();
    return this.settled();
  }

  /** Orderly stop; resolves when the process (group) is gone. Idempotent. */
  async stop(reason = 'stopped'): Promise<void> {
    this.stopping = true;
    this.clearRestartTimer();
    if (!this.currentRun || this.runEnded.has(this.currentRun.run)) {
      if (this.state !== 'failed') this.setState('stopped', reason);
      this.settleWaiters();
      return;
    }
    this.setState('stopping', reason);
    const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    if (this.child && this.pgid !== undefined) {
      this.shutdownChild(this.pgid);
    } else {
      // HTTP upstream: closing the client ends the session (DELETE) and the run.
      void this.currentClient?.close().catch(() => {});
      this.endRun(this.run, { code: null, signal: null, reason });
    }
    await exited;
  }

  /** Stop (if running) and start afresh, with the crash counter reset. */
  async restart(): Promise<void> {
    await this.stop('restarting on request');
    this.stopping = false;
    this.attempt = 0;
    void this.launchRun();
    return this.settled();
  }

  // ---- runs ---------------------------------------------------------------------------------

  private settled(): Promise<void> {
    if (this.state === 'ready' || this.state === 'failed' || this.state === 'stopped') return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  private settleWaiters(): void {
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const w of waiters) w();
  }

  private describeCommand(): string {
    const spec = this.spec;
    if (spec.kind === 'http') return spec.url;
    if (spec.kind === 'builtin') return `gatehouse workspace-tools --workspace ${quoteArg(this.opts.workspace)}`;
    return this.opts.redactor.redactString([spec.command, ...spec.args].map(quoteArg).join(' '));
  }

  private async launchRun(): Promise<void> {
    this.clearRestartTimer();
    const held = this.opts.startGate?.(this.spec);
    if (held) {
      this.setState('stopped', held);
      this.settleWaiters();
      return;
    }
    this.run += 1;
    const run = this.run;
    this.startedAt = Date.now();
    this.readyAt = undefined;
    this.nextRestartAt = undefined;
    this.protocolVersion = undefined;
    this.eraInfo = undefined;
    // A run that fails before it spawns must not report the previous run's info as its own.
    this.currentRun = undefined;
    this.capReached = undefined;
    this.setState('starting', this.run === 1 ? 'launching' : `restart ${this.attempt} of ${this.spec.restart.maxRestarts}`);
    let client: UpstreamClient;
    try {
      const newEra = this.spec.kind === 'http' && this.opts.eras ? await this.openNewEra(run, this.spec, this.opts.eras) : undefined;
      if (run !== this.run) return;
      if (newEra) {
        client = newEra;
      } else {
        const channel = this.makeChannel();
        const transport = channel.attach(this.spec.kind === 'http' ? await this.openHttp(run) : this.spawnChild(run, channel));
        if (run !== this.run) return;
        this.currentChannel = channel;
        const v1 = this.opts.clientFactory?.(this.id) ?? new Client(GATEWAY_CLIENT_INFO, { capabilities: {} });
        this.currentV1 = v1;
        this.currentClient = client = v1;
        v1.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          if (run === this.run) void this.refreshTools(v1, run);
        });
        v1.onclose = () => this.onConnectionClosed(run);
        if (this.spec.kind === 'http') this.watchHttp(run, v1, transport);
        await withTimeout(v1.connect(transport), this.spec.startupTimeoutMs, `initialize did not answer within ${this.spec.startupTimeoutMs / 1000}s`);
        this.learnOldEra(transport);
      }
    } catch (err) {
      if (run !== this.run) return;
      this.onStartFailure(run, err);
      return;
    }
    if (run !== this.run || this.stopping) return;
    await this.refreshTools(client, run);
    if (run !== this.run || this.stopping || this.runEnded.has(run)) return;
    this.readyAt = Date.now();
    this.liveness?.startHeartbeat();
    const info = client.getServerVersion();
    this.setState('ready', `initialized${info ? ` (${info.name} ${info.version})` : ''}`);
    this.settleWaiters();
  }

  private makeChannel(era: 'old' | 'new' = 'old'): ExchangeChannel {
    return new ExchangeChannel({
      tap: this.opts.tap,
      meta: { session: this.opts.session, server: this.id, inbound: 'server_to_gateway', outbound: 'gateway_to_server' } satisfies TapMeta,
      redactor: this.opts.redactor,
      observed: this.spec.kind !== 'http',
      routes: this.opts.channelRoutes?.(this.id, era),
      // The SDK would say a bare "Connection closed": say which server went away.
      closedMessage: () =>
        `server '${this.id}' went away while this request was in flight (${this.faults.unsyncReason ?? (this.spec.kind === 'http' ? 'connection lost' : 'its process exited or closed its stdout')}); the request was not retried`,
    });
  }

  /** An HTTP upstream that speaks the new era (new-era-run.ts): its v2 client, or undefined for the old era. */
  private async openNewEra(run: number, spec: HttpServerSpec, eras: UpstreamEras): Promise<UpstreamClient | undefined> {
    let refresh = (): void => {};
    const res = await openNewEraRun({ id: this.id, spec, eras, channel: () => this.makeChannel('new'), log: (l) => run === this.run && this.stderr.append(run, l), onToolsChanged: () => refresh() });
    if ('old' in res || run !== this.run) {
      if ('old' in res) this.eraInfo = { era: 'old', how: res.old === 'not-probed' ? 'handshake' : res.old };
      else void res.client.close().catch(() => {});
      return undefined;
    }
    this.currentRun = { run, command: spec.url, startedAt: this.startedAt ?? Date.now() };
    this.emit('run-started', this.currentRun);
    this.currentChannel = res.channel;
    this.currentPort = res.port;
    this.currentClient = res.client;
    this.protocolVersion = res.version;
    this.eraInfo = res.era;
    refresh = () => run === this.run && void this.refreshTools(res.client, run);
    res.onClosed(() => this.onConnectionClosed(run));
    this.watchHttp(run, res.client, res.channel);
    return res.client;
  }

  /** An old-era run's era: from its `initialize` answer, remembered (a stdio server is never probed). */
  private learnOldEra(transport: Transport): void {
    this.protocolVersion ??= (transport as { protocolVersion?: string }).protocolVersion;
    this.eraInfo ??= { era: 'old', how: 'handshake' };
    const target = this.spec.kind === 'http' ? this.spec.url : this.describeCommand();
    if (this.protocolVersion) this.opts.eras?.remember(this.id, { era: 'old', version: this.protocolVersion, target });
  }

  /** An HTTP upstream's liveness (http-upstream.ts): a failed ping ends this run. */
  private watchHttp(run: number, client: UpstreamClient, transport: Transport | ExchangeChannel): void {
    const live = () => run === this.run && !this.runEnded.has(run) && !this.stopping;
    this.liveness = HttpLiveness.watch(client, transport, () => live() && this.state === 'ready', (why) => live() && this.endRun(run, { code: null, signal: null, reason: why }));
  }

  private spawnChild(run: number, channel: ExchangeChannel): Transport {
    const spec = this.spec;
    if (spec.kind === 'http') throw new Error('unreachable');
    const { child, boxed, runInfo } = spawnServerChild(spec, this.opts, run, this.startedAt, {
      log: (line) => this.stderr.append(run, line),
      exited: (reason, code, signal) => this.endRun(run, { code, signal, reason }),
      capReached: (why) => this.onCapReached(run, why),
    });
    this.sandboxRun = boxed;
    this.sandboxKind = { kind: boxed.kind, unenforced: boxed.unenforced, limits: boxed.limits.summary };
    this.child = child;
    this.currentRun = runInfo;
    if (child.pid !== undefined) {
      this.pgid = child.pid;
      trackProcessGroup(child.pid);
    }
    this.emit('run-started', runInfo);

    this.heardFromRun = false;
    const auto = spec.kind === 'stdio' && spec.framing === 'auto';
    return this.faults.transport(
      { stdout: child.stdout!, stdin: child.stdin! },
      {
        framing: spec.kind === 'stdio' ? spec.framing : 'line',
        // auto reads both framings, but the client speaks first: until the server answers we
        // must guess how to write. Newline first (the MCP stdio transport); see onStartFailure.
        ...(auto && this.autoWriteFraming === 'content-length' ? { writeFraming: 'content-length' as const } : {}),
        maxMessageBytes: spec.maxMessageBytes,
        redact: (text) => this.opts.redactor.redactString(text),
        channel,
      },
      {
        log: (line) => run === this.run && this.stderr.append(run, line),
        inbound: (msg) => {
          this.heardFromRun = true;
          this.protocolVersion ??= initializeVersion(msg);
        },
        fault: (reason) => {
          this.heardFromRun = true;
          this.protocolFaults += 1;
          this.emit('protocol-fault', reason);
        },
        unsynchronised: (reason) => this.onUnsynchronised(run, reason),
      },
    );
  }

  private openHttp(run: number): Promise<Transport> {
    const spec = this.spec;
    if (spec.kind !== 'http') throw new Error('unreachable');
    this.currentRun = { run, command: spec.url, startedAt: this.startedAt ?? Date.now() };
    this.emit('run-started', this.currentRun);
    return openHttpTransport(spec, this.opts.oauth);
  }

  private async refreshTools(client: UpstreamClient, run: number): Promise<void> {
    if (!client.getServerCapabilities()?.tools) {
      this.toolList = [];
      return;
    }
    try {
      const tools = exposedTools(await listAllTools(client, this.spec.requestTimeoutMs), this.spec.tools);
      if (run !== this.run) return;
      this.toolList = tools;
      this.emit('tools', tools, client.getInstructions());
      if (this.state === 'ready') this.emitStatus();
    } catch (err) {
      if (run !== this.run) return;
      this.stderr.append(run, `[gatehouse] tools/list failed: ${(err as Error).message}`);
      if (this.eraInfo?.era === 'new' && this.eraInfo.how === 'remembered' && this.state !== 'ready') {
        // Adopting a remembered discovery costs no round trip, so a server that changed era shows
        // here, at its first request: forget the verdict and end the run (the restart probes).
        this.opts.eras?.forget(this.id);
        this.endRun(run, { code: null, signal: null, reason: 'the remembered new-era discovery no longer matches' });
      }
    }
  }

  private onStartFailure(run: number, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.stderr.append(run, `[gatehouse] start failed: ${message}`);
    if (err instanceof CommandNotFoundError || isPermanentSandboxError(err)) {
      // Restarting cannot make a missing program appear: fail now and say where we looked.
      this.permanentFailure = true;
    }
    if (this.child && this.pgid !== undefined && !this.runEnded.has(run)) {
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        // stdout closed during the handshake: the process is (almost always) exiting by
        // itself. Its exit ends the run, with its own code and stderr as the reason; the
        // SDK's bare "Connection closed" says nothing. Signal it only if it lingers.
        this.killLater(run, 'exited during startup');
        return;
      }
      if (err instanceof StartupTimeoutError && this.spec.kind === 'stdio' && this.spec.framing === 'auto' && !this.heardFromRun) {
        // Not one byte back: a Content-Length-only (LSP-style) server waits for a header it
        // never got. The next run writes Content-Length (and the one after, newline again).
        this.autoWriteFraming = this.autoWriteFraming === 'content-length' ? 'line' : 'content-length';
        this.stderr.append(run, `[gatehouse] no output at all; next start writes ${this.autoWriteFraming} framing (set \`framing:\` in the profile to skip this)`);
      }
      // Startup timeout or a broken handshake: the process is alive but useless. Its exit
      // (after the kill) ends the run and decides the restart.
      this.reason = message;
      this.pendingEndReason = message;
      this.killGroup(this.pgid, 'SIGKILL');
      return;
    }
    this.endRun(run, { code: null, signal: null, reason: message });
  }

  /**
   * The server's stdout is out of sync (a lying Content-Length, a frame that never completed):
   * nothing it writes can be trusted any more. The run ends now (its in-flight calls fail at
   * once as the transport closes) and restarts by the usual rules, with the reason shown.
   */
  private onUnsynchronised(run: number, reason: string): void {
    if (run !== this.run || this.runEnded.has(run) || this.stopping) return;
    this.stderr.append(run, `[gatehouse] ${reason}; ending this run`);
    this.pendingEndReason ??= reason;
    this.reason = reason;
    if (this.pgid !== undefined) this.killGroup(this.pgid, 'SIGKILL');
  }

  private pendingEndReason: string | undefined;
  private sandboxRun: SandboxedRun | undefined;
  /** The last run's sandbox as prepared (kept after the run ends, for its status). */
  private sandboxKind: StatusSnapshot['sandboxRun'];
  /** Set when restarting cannot help (the command does not exist): fail at once. */
  private permanentFailure = false;
  /** Set when the run reached a limit (restart-decision.ts: failed, no restart loop). */
  private capReached: string | undefined;
  /** The run hit a cap (also called from endRun's dispose, when the OOM killer ended it first). */
  private onCapReached(run: number, why: string): void {
    if (run !== this.run || this.capReached) return;
    this.capReached = this.pendingEndReason = `stopped: ${why}`;
    this.stderr.append(run, `[gatehouse] ${this.capReached}`);
    if (!this.runEnded.has(run) && this.pgid !== undefined) this.killGroup(this.pgid, 'SIGKILL');
  }

  private onConnectionClosed(run: number): void {
    if (run !== this.run || this.stopping || this.runEnded.has(run)) return;
    if (this.child && this.pgid !== undefined) {
      // stdout closed. Usually the process is exiting (a crash closes stdout just before the
      // exit event); if it lives on, it can no longer speak MCP: end it.
      this.killLater(run, 'closed its stdout');
      return;
    }
    this.endRun(run, { code: null, signal: null, reason: 'connection lost' });
  }

  private liveness: HttpLiveness | undefined;
  /** framing: auto — how to write until the server has spoken; flips after a silent startup timeout. */
  private autoWriteFraming: 'line' | 'content-length' = 'line';
  private heardFromRun = false;
  /** SIGTERM (then SIGKILL) the run's group if it has not exited on its own shortly. */
  private killLater(run: number, why: string): void {
    const pgid = this.pgid;
    if (pgid === undefined) return;
    const term = setTimeout(() => {
      if (run !== this.run || this.runEnded.has(run)) return;
      this.pendingEndReason ??= why;
      this.killGroup(pgid, 'SIGTERM');
      this.killTimers.push(setTimeout(() => !this.runEnded.has(run) && this.killGroup(pgid, 'SIGKILL'), 2000));
    }, EXIT_AFTER_CLOSE_MS);
    this.killTimers.push(term);
  }

  private endRun(run: number, exit: { code: number | null; signal: string | null; reason: string }): void {
    // Exit events from an old child are ignored; each run ends once.
    if (run !== this.run || this.runEnded.has(run)) return;
    this.runEnded.add(run);
    this.sandboxRun?.dispose();
    this.sandboxRun = undefined;
    for (const t of this.killTimers) clearTimeout(t);
    this.killTimers = [];
    this.liveness?.stop();
    this.liveness = undefined;
    const { info, line } = this.exits.end(run, exit, { startedAt: this.startedAt, pendingReason: this.pendingEndReason, stderrTail: this.stderr.tail(EXIT_STDERR_LINES) });
    const { reason, uptimeMs } = info;
    this.pendingEndReason = undefined;
    this.lastExit = info;
    this.stderr.append(run, line);
    // The leader's exit is not the group's: grandchildren (npx → node, a helper that ignores
    // SIGTERM) outlive it. They go with their parent, and stop() resolves only once they are
    // gone, so "stopped" means no process of the server is left.
    let groupGone: Promise<void> = Promise.resolve();
    if (this.pgid !== undefined) {
      const pgid = this.pgid;
      if (groupAlive(pgid)) {
        this.killGroup(pgid, 'SIGKILL');
        groupGone = waitGroupGone(pgid, GROUP_GONE_MS);
      }
      void groupGone.then(() => untrackProcessGroup(pgid));
    }
    this.pgid = undefined;
    this.child = undefined;
    const client = this.currentClient;
    this.currentClient = undefined;
    this.currentV1 = undefined;
    this.currentPort = undefined;
    this.currentChannel = undefined;
    // Requests in flight fail at once (the SDK rejects them with ConnectionClosed on close).
    void client?.close().catch(() => {});
    this.toolList = [];
    if (this.currentRun) this.emit('run-ended', this.currentRun, info);
    const waiters = this.exitWaiters;
    this.exitWaiters = [];

    if (this.stopping) {
      const stoppedReason = this.reason && this.state === 'stopping' ? this.reason : 'stopped';
      void groupGone.then(() => {
        for (const w of waiters) w();
        // A start() or restart() may have begun a new run meanwhile: leave its state alone.
        if (run !== this.run || !this.stopping) return;
        this.setState('stopped', stoppedReason);
        this.settleWaiters();
      });
      return;
    }
    for (const w of waiters) w();
    const auth = this.opts.oauth?.status();
    if (auth?.state === 'sign-in-needed') {
      // Restarting cannot sign in: wait, stopped, for a person to click Sign in.
      this.setState('stopped', `sign-in needed: ${auth.reason ?? 'the server wants a sign-in'}`);
      this.settleWaiters();
      return;
    }
    const next = decideRestart({ reason, uptimeMs, attempt: this.attempt, policy: this.spec.restart, permanent: this.permanentFailure, capReached: this.capReached, stderrTail: this.stderr.lines });
    [this.permanentFailure, this.capReached, this.attempt] = [false, undefined, next.attempt];
    if (next.state === 'failed') {
      this.setState('failed', next.reason);
      this.settleWaiters();
      return;
    }
    this.restarts += 1;
    this.nextRestartAt = Date.now() + next.delayMs;
    this.setState('restarting', next.reason);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopping) void this.launchRun();
    }, next.delayMs);
  }

  private shutdownChild(pgid: number): void {
    const grace = this.opts.stdinGraceMs ?? 2000;
    const term = this.opts.termGraceMs ?? 3000;
    // MCP lifecycle, stdio shutdown: close the server's input, wait; SIGTERM, wait; SIGKILL.
    void this.currentClient?.close().catch(() => {});
    try {
      this.child?.stdin?.end();
    } catch {}
    this.killTimers.push(
      setTimeout(() => {
        this.killGroup(pgid, 'SIGTERM');
        this.killTimers.push(setTimeout(() => this.killGroup(pgid, 'SIGKILL'), term));
      }, grace),
    );
  }

  private killGroup(pgid: number, signal: NodeJS.Signals): void {
    // Only bubblewrap leads the group from outside its sandbox (signal-tree.ts); the landlock
    // launcher execs the server, so the leader is the server itself.
    killRunGroup(pgid, signal, this.sandboxRun?.kind === 'bubblewrap');
  }

  private clearRestartTimer(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.nextRestartAt = undefined;
  }

  private setState(state: ServerState, reason: string): void {
    this.state = state;
    this.reason = reason;
    this.emitStatus();
  }

  private emitStatus(): void {
    this.emit('status', this.status());
  }
}
