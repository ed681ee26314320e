// The composition root (ARCHITECTURE.md): the one object the Electron shell, the web shell and
// the CLI all drive. A Host owns the traffic tap, the stderr bus, the approvals broker and the
// audit store; each launched profile becomes a Launch with its supervisor, gateway and
// (optionally) its Streamable HTTP endpoint. Sessions belong to the host, not to a window.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { compilePolicy } from './policy/engine';
import { ApprovalBroker, type ApprovalEvent } from './approvals/broker';
import { openAuditStore, type AuditStore } from './audit/store';
import { nativeLoadProblem } from './native/abi-mismatch';
import { DEFAULT_RETENTION } from './audit/retention';
import type { PruneOptions } from './audit/types';
import { loadProfileFile } from './profiles/loader';
import { resolveProfile } from './profiles/resolve';
import { defaultProfileDirs, findProfile, isProfilePath } from './profiles/registry';
import type { ResolvedProfile, ToolSurface } from './profiles/types';
import { EnvSecretProvider, type SecretProvider } from './secrets/provider';
import { StderrBus, TrafficTap } from './protocol/traffic-tap';
import { Supervisor } from './supervisor/supervisor';
import type { ServerStatus } from './supervisor/types';
import { Gateway, type DecisionEvent } from './gateway/gateway';
import { generateToken, startHttpEndpoint, type HttpEndpoint } from './gateway/http-endpoint';
import { appRoot, dataDir as defaultDataDir } from './paths';
import path from 'node:path';
import { TerminalManager, type OpenTerminalOptions, type TerminalRecord } from './agents/terminal-manager';
import { resolveSearchPath } from './supervisor/shell-path';

export interface HostOptions {
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  secrets?: SecretProvider;
  /** Open the audit store (default true). */
  audit?: boolean;
  /** Shutdown grace periods handed to every server. */
  stdinGraceMs?: number;
  termGraceMs?: number;
  /** The approvals broker (default a plain ApprovalBroker); the gateway command passes a relaying one. */
  broker?: ApprovalBroker;
}

export interface LaunchOptions {
  toolSurface?: ToolSurface;
  /** Serve the gateway over Streamable HTTP on this port (0 = any free port). */
  httpPort?: number;
  /** Bearer token for the HTTP endpoint; default GATEHOUSE_TOKEN or a fresh random one. */
  token?: string;
  /** Start the profile's agent in a terminal when it has one with `autostart` (needs httpPort). */
  startAgent?: boolean;
  kind?: 'launch' | 'gateway' | 'serve';
}

/**
 * Audit retention, configurable without code: GATEHOUSE_AUDIT_MAX_AGE_DAYS,
 * GATEHOUSE_AUDIT_MAX_MESSAGES and GATEHOUSE_AUDIT_MAX_STDERR_LINES override the defaults
 * (30 days, 1M messages); `0` for the age turns pruning by age off.
 */
export function retentionFromEnv(env: NodeJS.ProcessEnv): PruneOptions {
  const num = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got '${raw}'`);
    return n;
  };
  const out: PruneOptions = { ...DEFAULT_RETENTION };
  const age = num('GATEHOUSE_AUDIT_MAX_AGE_DAYS');
  const messages = num('GATEHOUSE_AUDIT_MAX_MESSAGES');
  const stderr = num('GATEHOUSE_AUDIT_MAX_STDERR_LINES');
  if (age !== undefined) out.maxAgeDays = age === 0 ? undefined : age;
  if (messages !== undefined) out.maxMessages = messages;
  if (stderr !== undefined) out.maxStderrLines = stderr;
  return out;
}

export class Launch {
  readonly startedAt = Date.now();
  endpoint: HttpEndpoint | undefined;
  token: string | undefined;
  stopped = false;

  constructor(
    readonly id: string,
    readonly profile: ResolvedProfile,
    readonly supervisor: Supervisor,
    readonly gateway: Gateway,
  ) {}

  statuses(): ServerStatus[] {
    return this.supervisor.statuses();
  }
}

type HostEvents = {
  'server-status': [string, ServerStatus];
  launched: [Launch];
  stopped: [Launch];
  decision: [DecisionEvent];
  approval: [ApprovalEvent];
};

export class Host extends EventEmitter<HostEvents> {
  readonly tap = new TrafficTap();
  readonly stderrBus = new StderrBus();
  readonly broker: ApprovalBroker;
  readonly dataDir: string;
  readonly audit: AuditStore | undefined;
  /** Why the audit store is off although it was asked for (a native-module mismatch), if it is. */
  auditOff: string | undefined;
  readonly launches = new Map<string, Launch>();
  readonly terminals: TerminalManager;
  /** The environment the host resolves profiles and folders against (process.env unless given). */
  readonly env: NodeJS.ProcessEnv;
  private readonly secrets: SecretProvider;
  private readonly unsubscribe: Array<() => void> = [];
  private closed = false;

  constructor(private readonly opts: HostOptions = {}) {
    super();
    this.env = opts.env ?? process.env;
    this.broker = opts.broker ?? new ApprovalBroker();
    this.dataDir = opts.dataDir ?? defaultDataDir(this.env);
    this.secrets = opts.secrets ?? new EnvSecretProvider(this.env);
    if (opts.audit !== false) {
      this.audit = this.openAudit();
    }
    if (this.audit) {
      const writer = this.audit.writer;
      // The audit writer drains the buses in batches; the protocol path never waits for it.
      this.unsubscribe.push(this.tap.subscribe((batch) => writer.trafficBatch(batch)));
      this.unsubscribe.push(this.stderrBus.subscribe((batch) => writer.stderrBatch(batch)));
    }
    this.unsubscribe.push(this.broker.onEvent((e) => this.emit('approval', e)));
    this.terminals = new TerminalManager({
      dataDir: this.dataDir,
      hostEnv: this.env,
      searchPath: () => resolveSearchPath({ env: this.env, extraDirs: [path.join(appRoot(), 'node_modules', '.bin')] }),
    });
  }

  /**
   * The audit store, or undefined (with one warning on stderr, kept in `auditOff`) when
   * better-sqlite3 cannot load in this Node: the gateway keeps serving without the trail.
   */
  private openAudit(): AuditStore | undefined {
    try {
      return openAuditStore({ dataDir: this.dataDir, retention: retentionFromEnv(this.env) });
    } catch (err) {
      const problem = nativeLoadProblem(err, 'better-sqlite3', 'the audit store is off');
      if (!problem) throw err;
      this.auditOff = problem;
      process.stderr.write(`gatehouse: ${problem}\n`);
      return undefined;
    }
  }

  /** Open a terminal for a launch: its profile's agent (or an override), wired to the gateway. */
  async openTerminal(launchId: string, options: OpenTerminalOptions = {}): Promise<TerminalRecord | { unavailable: string; install?: string }> {
    const launch = this.launches.get(launchId);
    if (!launch) throw new Error(`no launch ${launchId}`);
    return this.terminals.open(
      { launchId, profile: launch.profile, url: launch.endpoint?.url, tokens: launch.endpoint ? { issue: (label) => launch.endpoint!.issueToken(label) } : undefined },
      options,
    );
  }

  /** Load, validate and resolve a profile by name or path; throws ProfileError with file:line:col. */
  resolve(ref: string): ResolvedProfile {
    const file = findProfile(ref, defaultProfileDirs(this.env));
    const loaded = loadProfileFile(file);
    // No `workspace:`: `--profile FILE` means "from where I am", a profile by name its own folder.
    const defaultWorkspace = isProfilePath(ref) ? 'cwd' : 'profile-folder';
    return resolveProfile(loaded, { dataDir: this.dataDir, env: this.env, secrets: this.secrets, defaultWorkspace });
  }

  /** Launch a profile: resolve it fully first (nothing starts half-way), then start its servers. */
  async launch(ref: string | ResolvedProfile, opts: LaunchOptions = {}): Promise<Launch> {
    if (this.closed) throw new Error('host is shutting down');
    const profile = typeof ref === 'string' ? this.resolve(ref) : ref;
    const id = randomUUID();
    const policy = compilePolicy(profile.policy, { workspace: profile.workspace });
    for (const problem of policy.problems) process.stderr.write(`gatehouse: policy: ${problem}\n`);
    const gateway = new Gateway({ session: id, profile, policy, broker: this.broker, toolSurface: opts.toolSurface });
    const supervisor = new Supervisor(profile, {
      session: id,
      tap: this.tap,
      stderrBus: this.stderrBus,
      hostEnv: this.env,
      clientFactory: (serverId) => gateway.createUpstreamClient(serverId),
      stdinGraceMs: this.opts.stdinGraceMs,
      termGraceMs: this.opts.termGraceMs,
    });
    const launch = new Launch(id, profile, supervisor, gateway);
    this.launches.set(id, launch);
    this.wireAudit(launch, opts.kind ?? 'launch');
    supervisor.on('status', (s) => this.emit('server-status', id, s));
    gateway.on('decision', (d) => this.emit('decision', d));
    gateway.attach(supervisor);
    await supervisor.startAll();
    if (opts.httpPort !== undefined) {
      launch.token = opts.token ?? this.env.GATEHOUSE_TOKEN ?? generateToken();
      launch.endpoint = await startHttpEndpoint({
        gateway,
        tap: this.tap,
        redactor: profile.redactor,
        port: opts.httpPort,
        token: launch.token,
      });
    }
    this.emit('launched', launch);
    if (opts.startAgent && profile.agent?.autostart && launch.endpoint) {
      const opened = await this.openTerminal(id).catch((err: Error) => ({ unavailable: err.message }));
      if ('unavailable' in opened) process.stderr.write(`gatehouse: agent not started: ${opened.unavailable}\n`);
    }
    return launch;
  }

  private wireAudit(launch: Launch, kind: 'launch' | 'gateway' | 'serve'): void {
    const writer = this.audit?.writer;
    if (!writer) return;
    const { id, profile, supervisor, gateway } = launch;
    writer.beginSession({ id, kind, profile: profile.name, profileFile: profile.file, workspace: profile.workspace, hostPid: process.pid });
    supervisor.on('status', (s) => writer.serverState({ session: id, server: s.id, run: s.run, state: s.state, reason: s.reason }));
    supervisor.on('run-started', (server, r) =>
      writer.serverRunStarted({ session: id, server, run: r.run, pid: r.pid, command: r.command, cwd: r.cwd, startedAt: r.startedAt }),
    );
    supervisor.on('run-ended', (server, r, e) =>
      writer.serverRunEnded({ session: id, server, run: r.run, endedAt: e.at, exitCode: e.code, signal: e.signal, reason: e.reason }),
    );
    gateway.on('decision', (d) =>
      writer.decision({
        ts: d.ts,
        session: d.session,
        agentSession: d.agentSession,
        exchange: d.exchange,
        tool: d.tool,
        server: d.server,
        decision: d.decision,
        outcome: d.outcome,
        reason: d.reason,
        rule: d.rule,
        fingerprint: d.fingerprint,
        answeredBy: d.answeredBy,
        args: d.args,
      }),
    );
    gateway.on('agent-session', (a) => {
      if (a.ended) writer.agentSessionEnded(a.id, { endedAt: a.ended });
      else
        writer.agentSessionStarted({ id: a.id, session: id, clientName: a.client?.name, clientVersion: a.client?.version, transport: a.transport, terminal: a.terminal, startedAt: a.startedAt });
    });
  }

  async stop(launchId: string, reason = 'stopped'): Promise<void> {
    const launch = this.launches.get(launchId);
    if (!launch || launch.stopped) return;
    launch.stopped = true;
    this.terminals.closeLaunch(launchId);
    await launch.endpoint?.close();
    await launch.gateway.close();
    await launch.supervisor.stopAll(reason);
    this.broker.clearLaunch(launchId);
    this.audit?.writer.endSession(launchId, { reason });
    this.launches.delete(launchId);
    this.emit('stopped', launch);
  }

  /** Stop every launch, flush the audit store and close it. Idempotent. */
  async shutdown(reason = 'host shutdown'): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.launches.keys()].map((id) => this.stop(id, reason)));
    this.terminals.closeAll();
    for (const u of this.unsubscribe) u();
    this.tap.close();
    this.stderrBus.close();
    this.audit?.close();
  }
}
