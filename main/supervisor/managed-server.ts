// One supervised MCP server: a stdio child (or a built-in tools child, or a Streamable HTTP
// upstream) with its SDK client, its state machine, restarts with backoff, and shutdown that
// follows the MCP lifecycle. Modelled on ToolHive Studio's manager (see STYLE.md): SIGTERM
// then a timed SIGKILL whose timer is cleared on exit, exit events from an old child ignored.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from '../profiles/types';
import type { Redactor } from '../secrets/redactor';
import type { UpstreamOAuth } from '../auth/upstream-oauth';
import { FramedStreamTransport } from '../protocol/framed-stream-transport';
import { LineSplitter } from '../protocol/line-splitter';
import type { StderrBus, TapMeta, TrafficTap } from '../protocol/traffic-tap';
import { ExchangeChannel, type ChannelRoutes } from '../protocol/exchange-channel';
import { buildServerEnv } from './env';
import { quoteArg } from './quote-arg';
import { CommandNotFoundError, resolveCommand } from './shell-path';
import { bundledBinEntry } from './bundled-bins';
import { groupAlive, trackProcessGroup, untrackProcessGroup } from './reaper';
import type { ExitInfo, ServerState, ServerStatus } from './types';
import { isPermanentSandboxError, spawnSandboxed, type SandboxedRun } from '../sandbox/spawn-sandboxed';
import { summarizeSandbox } from '../sandbox/types';
import { signalSandboxedGroup } from '../sandbox/signal-tree';
import { exitLogLine, EXIT_STDERR_LINES, ExitHistory } from './exit-history';

const STDERR_RING = 200;
/** Sustained bytes per second read from one server's stdout (bursts up to 2 × its message limit). */
export const SERVER_INBOUND_BYTES_PER_SEC = 4 * 1024 * 1024;
/** Notification bytes per second one server may have relayed to agents (bursts of one max-size message). */
export const SERVER_NOTIFICATION_BYTES_PER_SEC = 1024 * 1024;
const STDERR_TAIL_SHOWN = 20;
/** After a child exits, how long its stderr may take to deliver its last lines. */
const STDERR_DRAIN_MS = 250;
/** A server whose stdout closed gets this long to exit by itself before it is signalled. */
const EXIT_AFTER_CLOSE_MS = 1000;
/** How often a ready HTTP upstream is pinged, and how long the ping may take. */
const HTTP_HEARTBEAT_MS = 15_000;
const HTTP_PING_TIMEOUT_MS = 5_000;
/** How long stop() waits for a SIGKILLed process group to disappear (bounded: zombies). */
const GROUP_GONE_MS = 2000;

export interface ManagedServerOptions {
  spec: ServerSpec;
  /** Launch session id, stamped on traffic and stderr. */
  session: string;
  workspace: string;
  redactor: Redactor;
  tap: TrafficTap;
  stderrBus: StderrBus;
  /** The PATH commands are searched on and servers get (see shell-path.ts). */
  searchPath: string;
  hostEnv?: NodeJS.ProcessEnv;
  /** Entry of the built-in workspace tools server (out/tools-server.mjs). */
  toolsServerEntry?: string;
  /** Gatehouse's data directory: hidden from the server's sandbox. */
  dataDir?: string;
  /**
   * Builds the SDK client for each run. The gateway passes one that declares sampling,
   * elicitation and roots and routes those requests downstream. The supervisor owns the
   * `notifications/tools/list_changed` handler (it refreshes `tools()`); do not set it.
   */
  clientFactory?: (serverId: string) => Client;
  /** `auth: oauth` servers: the OAuth client the transport signs in with (main/auth/). */
  oauth?: UpstreamOAuth;
  /**
   * How the run's channel routes what arrives beneath the SDK client (the gateway's: a
   * server→client request opens an exchange; progress for a gateway token goes to its call).
   */
  channelRoutes?: (serverId: string) => ChannelRoutes;
  /** Shutdown grace periods: after stdin closes, then after SIGTERM. */
  stdinGraceMs?: number;
  termGraceMs?: number;
  /** Launch consent (main/trust/): a reason means "do not start", shown as the stopped reason. */
  startGate?: (spec: ServerSpec) => string | undefined;
}

export interface RunInfo {
  run: number;
  pid?: number;
  command: string;
  cwd?: string;
  startedAt: number;
}

type Events = {
  status: [ServerStatus];
  tools: [Tool[]];
  'run-started': [RunInfo];
  'run-ended': [RunInfo, ExitInfo];
  'protocol-fault': [string];
};

function describeExit(code: number | null, signal: string | null): string {
  if (signal) return `killed by ${signal}`;
  return `exited with code ${code}`;
}

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
  private currentClient: Client | undefined;
  private currentChannel: ExchangeChannel | undefined;
  private currentRun: RunInfo | undefined;
  private startedAt: number | undefined;
  private readyAt: number | undefined;
  private nextRestartAt: number | undefined;
  private lastExit: ExitInfo | undefined;
  private readonly exits = new ExitHistory();
  private restartTimer: NodeJS.Timeout | undefined;
  private killTimers: NodeJS.Timeout[] = [];
  private stopping = false;
  private runEnded = new Set<number>();
  private stderrRing: string[] = [];
  private protocolFaults = 0;
  private protocolVersion: string | undefined;
  private toolList: Tool[] = [];
  private settledWaiters: Array<() => void> = [];
  private exitWaiters: Array<() => void> = [];

  constructor(private readonly opts: ManagedServerOptions) {
    super();
    this.spec = opts.spec;
    this.id = opts.spec.id;
    opts.oauth?.on('status', () => this.emitStatus());
  }

  /** The SDK client of the current run, only while the server is ready. */
  get client(): Client | undefined {
    return this.state === 'ready' ? this.currentClient : undefined;
  }

  /**
   * The channel beneath the SDK client, only while the server is ready: the gateway forwards
   * calls through it with ids it assigns (the client keeps the lifecycle).
   */
  get channel(): ExchangeChannel | undefined {
    return this.state === 'ready' ? this.currentChannel : undefined;
  }

  tools(): Tool[] {
    return this.toolList;
  }

  status(): ServerStatus {
    const client = this.currentClient;
    const showTail = this.state === 'failed' || this.state === 'restarting' || this.lastExit !== undefined;
    return {
      id: this.id,
      kind: this.spec.kind,
      state: this.state,
      reason: this.reason,
      run: this.run,
      restarts: this.restarts,
      pid: this.child?.pid,
      command: this.currentRun?.command ?? this.describeCommand(),
      cwd: this.currentRun?.cwd,
      startedAt: this.startedAt,
      readyAt: this.readyAt,
      nextRestartAt: this.nextRestartAt,
      lastExit: this.lastExit,
      exits: this.exits.list(),
      stderrTail: showTail ? this.stderrRing.slice(-STDERR_TAIL_SHOWN) : [],
      protocolFaults: this.protocolFaults,
      serverInfo: this.state === 'ready' ? client?.getServerVersion() : undefined,
      protocolVersion: this.state === 'ready' ? this.protocolVersion : undefined,
      capabilities: this.state === 'ready' ? client?.getServerCapabilities() : undefined,
      toolCount: this.state === 'ready' ? this.toolList.length : undefined,
      instructions: this.state === 'ready' ? client?.getInstructions() : undefined,
      ...(this.opts.oauth ? { auth: this.opts.oauth.status() } : {}),
      sandbox: this.spec.kind === 'http' ? undefined : summarizeSandbox(this.spec.sandbox),
    };
  }

  /** The full stderr ring (redacted), for a late-attaching view. */
  stderrTail(limit = STDERR_RING): string[] {
    return this.stderrRing.slice(-limit);
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
    // A run that fails before it spawns must not report the previous run's info as its own.
    this.currentRun = undefined;
    this.setState('starting', this.run === 1 ? 'launching' : `restart ${this.attempt} of ${this.spec.restart.maxRestarts}`);
    let client: Client;
    try {
      const channel = new ExchangeChannel({
        tap: this.opts.tap,
        meta: this.tapMeta(),
        redactor: this.opts.redactor,
        observed: this.spec.kind !== 'http',
        routes: this.opts.channelRoutes?.(this.id),
        // The SDK would say a bare "Connection closed": say which server went away.
        closedMessage: () =>
          `server '${this.id}' went away while this request was in flight (${this.unsyncReason ?? (this.spec.kind === 'http' ? 'connection lost' : 'its process exited or closed its stdout')}); the request was not retried`,
      });
      const transport = channel.attach(this.spec.kind === 'http' ? await this.openHttp(run) : this.spawnChild(run, channel));
      if (run !== this.run) return;
      this.currentChannel = channel;
      client = this.opts.clientFactory?.(this.id) ?? new Client({ name: 'gatehouse', version: '0.1.0' }, { capabilities: {} });
      this.currentClient = client;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (run === this.run) void this.refreshTools(client, run);
      });
      client.onclose = () => this.onConnectionClosed(run);
      if (this.spec.kind === 'http') {
        // An HTTP upstream has no process whose exit we would see, and the SDK's transport
        // never closes on its own: a dead server only shows up as transport errors (the SSE
        // stream drops) or failed requests. Check liveness then, and on a slow heartbeat.
        const onerror = transport.onerror;
        transport.onerror = (error) => {
          onerror?.(error);
          if (this.state === 'ready') void this.checkHttpAlive(run, client);
        };
      }
      await withTimeout(client.connect(transport), this.spec.startupTimeoutMs, `initialize did not answer within ${this.spec.startupTimeoutMs / 1000}s`);
    } catch (err) {
      if (run !== this.run) return;
      this.onStartFailure(run, err);
      return;
    }
    if (run !== this.run || this.stopping) return;
    await this.refreshTools(client, run);
    if (run !== this.run || this.stopping || this.runEnded.has(run)) return;
    this.readyAt = Date.now();
    if (this.spec.kind === 'http') {
      this.heartbeat = setInterval(() => void this.checkHttpAlive(run, client), HTTP_HEARTBEAT_MS);
      this.heartbeat.unref();
    }
    const info = client.getServerVersion();
    this.setState('ready', `initialized${info ? ` (${info.name} ${info.version})` : ''}`);
    this.settleWaiters();
  }

  private spawnChild(run: number, channel: ExchangeChannel): Transport {
    const spec = this.spec;
    if (spec.kind === 'http') throw new Error('unreachable');
    const env = buildServerEnv({ env: spec.env, inheritEnv: spec.inheritEnv }, this.opts.hostEnv ?? process.env, {
      path: this.opts.searchPath,
    });
    let command: string;
    let args: string[];
    let cwd: string;
    if (spec.kind === 'builtin') {
      const entry = this.opts.toolsServerEntry;
      if (!entry || !existsSync(entry)) throw new Error(`built-in workspace tools server not found at ${entry ?? '(unset)'}; run \`npm run build\``);
      // Under Electron, process.execPath is the app binary (and run-as-node is fused off), so the
      // built-in runs on the user's node; everywhere else on the node that runs the host.
      command = process.versions.electron ? resolveCommand('node', this.opts.searchPath, this.opts.workspace) : process.execPath;
      args = [entry, '--workspace', this.opts.workspace, '--options', JSON.stringify(spec.options)];
      cwd = this.opts.workspace;
    } else {
      cwd = spec.cwd;
      if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new Error(`working directory ${cwd} does not exist`);
      try {
        command = resolveCommand(spec.command, this.opts.searchPath, cwd);
        args = spec.args;
      } catch (err) {
        const entry = err instanceof CommandNotFoundError ? bundledBinEntry(spec.command) : undefined;
        if (!entry) throw err;
        // A server Gatehouse ships, in an install without node_modules/.bin (a packaged app).
        command = process.versions.electron ? resolveCommand('node', this.opts.searchPath, cwd) : process.execPath;
        args = [entry, ...spec.args];
      }
    }
    // The OS sandbox (main/sandbox/): throws, and the start fails for good, when it cannot be had.
    const boxed = spawnSandboxed(spec.sandbox, { command, args, cwd, env, workspace: this.opts.workspace, dataDir: this.opts.dataDir, hostEnv: this.opts.hostEnv, searchPath: this.opts.searchPath, log: (line) => this.appendStderr(run, `[gatehouse] ${line}`) });
    this.sandboxRun = boxed;
    const child = spawn(boxed.command, boxed.args, {
      cwd,
      env: boxed.env,
      stdio: ['pipe', 'pipe', 'pipe', ...boxed.extraFds],
      // Own process group (setsid): shutdown and the reaper signal -pgid, reaching grandchildren.
      detached: process.platform !== 'win32',
      windowsHide: true,
      shell: false,
    });
    this.child = child;
    const shown = this.opts.redactor.redactString(
      spec.kind === 'builtin' ? this.describeCommand() : [spec.command, ...args].map(quoteArg).join(' '),
    );
    const runInfo: RunInfo = { run, pid: child.pid, command: shown, cwd, startedAt: this.startedAt ?? Date.now() };
    this.currentRun = runInfo;
    if (child.pid !== undefined) {
      this.pgid = child.pid;
      trackProcessGroup(child.pid);
    }
    child.once('error', (err) => {
      // spawn failures (EACCES, ENOENT after our own check) arrive here, before or instead of 'exit'.
      this.appendStderr(run, `[gatehouse] spawn failed: ${err.message}`);
      this.endRun(run, { code: null, signal: null, reason: `spawn failed: ${err.message}` });
    });
    // Secrets are replaced before a long line is cut, so no piece keeps a fragment of one.
    const splitter = new LineSplitter({ redactor: this.opts.redactor });
    let stderrDone = false;
    let onStderrDone: (() => void) | undefined;
    child.stderr!.on('data', (chunk: Buffer) => {
      for (const line of splitter.push(chunk)) this.appendStderr(run, line);
    });
    child.stderr!.on('close', () => {
      for (const line of splitter.end()) this.appendStderr(run, line);
      stderrDone = true;
      onStderrDone?.();
    });
    child.once('exit', (code, signal) => {
      const end = () => this.endRun(run, { code, signal, reason: describeExit(code, signal) });
      // 'exit' can arrive before the last stderr chunk has been read, and the last lines are
      // the ones that say why a server died (they go into the failed reason). Wait for stderr
      // to close, but not for long: a grandchild may hold it open for ever.
      if (stderrDone) return end();
      const timer = setTimeout(end, STDERR_DRAIN_MS);
      onStderrDone = () => {
        clearTimeout(timer);
        end();
      };
    });
    // A closed stdin (the server exited) must not surface as an unhandled 'error'.
    child.stdin!.on('error', () => {});
    this.emit('run-started', runInfo);

    const observer = channel.observer;
    this.heardFromRun = false;
    const auto = spec.kind === 'stdio' && spec.framing === 'auto';
    this.unsyncReason = undefined;
    return new FramedStreamTransport(child.stdout!, child.stdin!, {
      framing: spec.kind === 'stdio' ? spec.framing : 'line',
      maxMessageBytes: spec.maxMessageBytes,
      // A server's stdout that is out of sync cannot be trusted again: end this run (below).
      oversizeContentLength: 'fatal',
      closeOnFatal: true,
      // A refused response (too deep, inexact id, too large) fails its request at once.
      answerRefusedResponses: true,
      // One server's flood is read at a bounded rate: it blocks in its own pipe, not us.
      inboundBytesPerSecond: SERVER_INBOUND_BYTES_PER_SEC,
      redact: (text) => this.opts.redactor.redactString(text),
      onThrottle: (ms) => this.onThrottled(run, ms),
      // Its notifications reach the agents at a bounded byte rate; the rest are shown, not relayed.
      notificationBytesPerSecond: SERVER_NOTIFICATION_BYTES_PER_SEC,
      onNotificationsDropped: (n) => this.onNotificationsDropped(run, n),
      // auto reads both framings, but the client speaks first: until the server answers we
      // must guess how to write. Newline first (the MCP stdio transport); see onStartFailure.
      ...(auto && this.autoWriteFraming === 'content-length' ? { writeFraming: 'content-length' as const } : {}),
      observer: {
        inbound: (msg, bytes, framing) => {
          this.heardFromRun = true;
          this.captureProtocolVersion(msg);
          observer.inbound(msg, bytes, framing);
        },
        outbound: (msg, bytes, framing) => observer.outbound(msg, bytes, framing),
        fault: (item) => {
          this.heardFromRun = true;
          this.protocolFaults += 1;
          observer.fault(item);
          this.emit('protocol-fault', item.reason);
          if (item.fatal) this.onUnsynchronised(run, item.reason);
        },
      },
    });
  }

  private async openHttp(run: number): Promise<Transport> {
    const spec = this.spec;
    if (spec.kind !== 'http') throw new Error('unreachable');
    const url = new URL(spec.url);
    const requestInit: RequestInit = { headers: spec.headers };
    // The signed-in token goes only upstream, from the provider; nothing of an agent's request does.
    const oauth = this.opts.oauth ? { authProvider: this.opts.oauth, fetch: this.opts.oauth.fetch } : {};
    this.currentRun = { run, command: spec.url, startedAt: this.startedAt ?? Date.now() };
    this.emit('run-started', this.currentRun);
    if (spec.transport === 'sse') return new SSEClientTransport(url, { requestInit, ...oauth });
    if (spec.transport === 'streamable-http') return new StreamableHTTPClientTransport(url, { requestInit, ...oauth });
    // auto: the backwards-compatibility procedure of the MCP transports spec: POST an
    // InitializeRequest; a 4xx means a legacy SSE server. It must be `initialize`: a Streamable
    // HTTP server answers anything else without a session with 400, which is not "legacy".
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...spec.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'gatehouse-probe',
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'gatehouse-probe', version: '0.1.0' } },
        }),
        signal: AbortSignal.timeout(Math.min(this.spec.startupTimeoutMs, 10_000)),
      });
      await res.body?.cancel().catch(() => {});
      const probeSession = res.headers.get('mcp-session-id');
      if (probeSession) {
        // The probe opened a session of its own: end it (MCP transports › session management).
        await fetch(url, { method: 'DELETE', headers: { ...spec.headers, 'mcp-session-id': probeSession }, signal: AbortSignal.timeout(5_000) })
          .then((r) => r.body?.cancel())
          .catch(() => {});
      }
      if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403) {
        return new SSEClientTransport(url, { requestInit, ...oauth });
      }
    } catch (err) {
      throw new Error(`cannot reach ${spec.url}: ${(err as Error).message}`);
    }
    return new StreamableHTTPClientTransport(url, { requestInit, ...oauth });
  }

  private tapMeta(): TapMeta {
    return {
      session: this.opts.session,
      server: this.id,
      inbound: 'server_to_gateway',
      outbound: 'gateway_to_server',
    };
  }

  private captureProtocolVersion(msg: unknown): void {
    const result = (msg as { result?: { protocolVersion?: unknown; capabilities?: unknown } }).result;
    if (!this.protocolVersion && result && typeof result.protocolVersion === 'string' && result.capabilities) {
      this.protocolVersion = result.protocolVersion;
    }
  }

  private async refreshTools(client: Client, run: number): Promise<void> {
    if (!client.getServerCapabilities()?.tools) {
      this.toolList = [];
      return;
    }
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      // Bounded pagination: a server that keeps returning cursors must not loop us forever.
      for (let page = 0; page < 100; page++) {
        const res = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsResultSchema, {
          timeout: this.spec.requestTimeoutMs,
        });
        tools.push(...res.tools);
        cursor = res.nextCursor;
        if (!cursor) break;
      }
      if (run !== this.run) return;
      this.toolList = tools;
      this.emit('tools', tools);
      if (this.state === 'ready') this.emitStatus();
    } catch (err) {
      if (run !== this.run) return;
      this.appendStderr(run, `[gatehouse] tools/list failed: ${(err as Error).message}`);
    }
  }

  private onStartFailure(run: number, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.appendStderr(run, `[gatehouse] start failed: ${message}`);
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
        this.appendStderr(run, `[gatehouse] no output at all; next start writes ${this.autoWriteFraming} framing (set \`framing:\` in the profile to skip this)`);
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
  private onUnsynchronised(run: number, why: string): void {
    if (run !== this.run || this.runEnded.has(run) || this.stopping) return;
    const reason = `stdout out of sync: ${why}`;
    this.unsyncReason = reason;
    this.appendStderr(run, `[gatehouse] ${reason}; ending this run`);
    this.pendingEndReason ??= reason;
    this.reason = reason;
    if (this.pgid !== undefined) this.killGroup(this.pgid, 'SIGKILL');
  }

  private unsyncReason: string | undefined;
  private throttleNotedAt = 0;
  private throttledMs = 0;

  private droppedNotedAt = 0;

  /** Says (at most every 10 s, in the server's log) that notifications over the budget were not relayed. */
  private onNotificationsDropped(run: number, count: number): void {
    const now = Date.now();
    if (run !== this.run || now - this.droppedNotedAt < 10_000) return;
    this.droppedNotedAt = now;
    this.appendStderr(run, `[gatehouse] notifications over their byte budget (${SERVER_NOTIFICATION_BYTES_PER_SEC / 1024 / 1024} MiB/s) not relayed to agents: ${count} so far this run`);
  }

  /** Says (at most every 10 s, in the server's log) that its stdout is being read at the budget rate. */
  private onThrottled(run: number, ms: number): void {
    this.throttledMs += ms;
    const now = Date.now();
    if (run !== this.run || now - this.throttleNotedAt < 10_000) return;
    this.throttleNotedAt = now;
    this.appendStderr(
      run,
      `[gatehouse] stdout over its byte budget (${SERVER_INBOUND_BYTES_PER_SEC / 1024 / 1024} MiB/s): reading paused ${this.throttledMs} ms so far; other servers are not affected`,
    );
  }
  private pendingEndReason: string | undefined;
  private sandboxRun: SandboxedRun | undefined;
  /** Set when restarting cannot help (the command does not exist): fail at once. */
  private permanentFailure = false;


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

  private heartbeat: NodeJS.Timeout | undefined;
  /** framing: auto — how to write until the server has spoken; flips after a silent startup timeout. */
  private autoWriteFraming: 'line' | 'content-length' = 'line';
  private heardFromRun = false;
  private checkingAlive = false;

  /** Pings an HTTP upstream; when it does not answer, the run ends (and restarts by the usual rules). */
  private async checkHttpAlive(run: number, client: Client): Promise<void> {
    if (this.checkingAlive || run !== this.run || this.runEnded.has(run) || this.stopping) return;
    this.checkingAlive = true;
    try {
      await client.ping({ timeout: HTTP_PING_TIMEOUT_MS });
    } catch (err) {
      if (run === this.run && !this.runEnded.has(run) && !this.stopping) {
        this.endRun(run, { code: null, signal: null, reason: `connection lost: ${(err as Error).message}` });
      }
    } finally {
      this.checkingAlive = false;
    }
  }

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
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const now = Date.now();
    const uptimeMs = now - (this.startedAt ?? now);
    const reason = this.pendingEndReason ? `${this.pendingEndReason} (${exit.reason})` : exit.reason;
    this.pendingEndReason = undefined;
    const info: ExitInfo = { code: exit.code, signal: exit.signal, at: now, uptimeMs, reason };
    this.lastExit = info;
    this.exits.record(run, info, this.stderrRing.slice(-EXIT_STDERR_LINES));
    this.appendStderr(run, exitLogLine({ ...info, run }));
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
    if (this.permanentFailure) {
      this.permanentFailure = false;
      this.setState('failed', `${reason}; not restarted (restarting cannot fix this)`);
      this.settleWaiters();
      return;
    }
    if (uptimeMs >= this.spec.restart.resetAfterMs) this.attempt = 0;
    const max = this.spec.restart.maxRestarts;
    if (this.attempt >= max) {
      const tail = this.stderrRing.slice(-3).join(' | ');
      const gaveUp = max === 0 ? 'restarts are off (max_restarts: 0)' : `gave up after ${this.attempt} restart${this.attempt === 1 ? '' : 's'}`;
      this.setState('failed', `${reason}; ${gaveUp}${tail ? ` — stderr: ${tail}` : ''}`);
      this.settleWaiters();
      return;
    }
    const delay = backoffDelay(this.attempt, this.spec.restart.initialBackoffMs, this.spec.restart.maxBackoffMs);
    this.attempt += 1;
    this.restarts += 1;
    this.nextRestartAt = Date.now() + delay;
    this.setState('restarting', `${reason}; restart ${this.attempt} of ${max} in ${(delay / 1000).toFixed(1)}s`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopping) void this.launchRun();
    }, delay);
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
    if (this.sandboxRun?.sandboxed && process.platform === 'linux') return signalSandboxedGroup(pgid, signal);
    try {
      process.kill(process.platform === 'win32' ? pgid : -pgid, signal);
    } catch {}
  }

  private clearRestartTimer(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.nextRestartAt = undefined;
  }

  private appendStderr(run: number, raw: string): void {
    const line = this.opts.redactor.redactString(raw);
    this.stderrRing.push(line);
    if (this.stderrRing.length > STDERR_RING) this.stderrRing.splice(0, this.stderrRing.length - STDERR_RING);
    this.opts.stderrBus.publish({ ts: Date.now(), session: this.opts.session, server: this.id, run, line });
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

/** Exponential backoff with ±20% jitter, so a fleet of crashing servers does not restart in lockstep. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number): number {
  const base = Math.min(maxMs, initialMs * 2 ** attempt);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Resolves once no process of the group exists, or after maxMs (a zombie nobody reaps). */
function waitGroupGone(pgid: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  return new Promise((resolve) => {
    const poll = (): void => {
      if (!groupAlive(pgid) || Date.now() >= deadline) return resolve();
      setTimeout(poll, 10);
    };
    poll();
  });
}

class StartupTimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StartupTimeoutError(message)), ms);
    }),
  ]);
}
