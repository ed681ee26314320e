// The composition root (ARCHITECTURE.md): the one object the Electron shell, the web shell and
// the CLI all drive. A Host owns the traffic tap, the stderr bus, the approvals broker and the
// audit store; each launched profile becomes a Launch with its supervisor, gateway and
// (optionally) its Streamable HTTP endpoint. Sessions belong to the host, not to a window.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { compilePolicy } from './policy/engine';
import { ApprovalBroker, type ApprovalEvent } from './approvals/broker';
import { openAuditStore, type AuditStore } from './audit/store';
import { loadAuditSigner, type AuditSigner } from './audit/audit-key';
import { nativeLoadProblem } from './native/abi-mismatch';
import { auditLimitsFromEnv } from './audit/budget';
import { httpLimitsFromEnv } from './gateway/http-limits';
import { durableAuditSink, isAgentAnswer } from './audit/durable';
import { DEFAULT_RETENTION } from './audit/retention';
import type { PruneOptions } from './audit/types';
import { resolveProfileRef } from './profiles/resolve-ref';
import type { ResolvedProfile, ToolSurface } from './profiles/types';
import type { SecretProvider } from './secrets/provider';
import { StoreSecretProvider } from './auth/store-provider';
import { AuthManager, type SignInStarted } from './auth/auth-manager';
import type { SecretStore } from './auth/secret-store';
import { StderrBus, TrafficTap } from './protocol/traffic-tap';
import { Supervisor } from './supervisor/supervisor';
import type { ServerStatus } from './supervisor/types';
import { decisionPayload } from './gateway/decision-event';
import { Gateway, type DecisionEvent } from './gateway/gateway';
import { exchangeRecord, type Exchange } from './gateway/exchanges';
import { screenRecord } from './data/traffic-screen';
import { generateToken, startHttpEndpoint, type HttpEndpoint } from './gateway/http-endpoint';
import { portTaken, rememberedPort, rememberedToken, rememberPort } from './gateway/remembered-endpoint';
import { agentTokenLookup, agentTokens, mintAgentToken } from './gateway/agent-tokens';
import { appRoot, auditWriterEntry, dataDir as defaultDataDir } from './paths';
import path from 'node:path';
import { TerminalManager, type OpenTerminalOptions, type TerminalRecord } from './agents/terminal-manager';
import { resolveSearchPath } from './sandbox/shell-path';
import { sandboxAvailability } from './sandbox/availability';
import { TrustStore } from './trust/pin-store';
import { TrustGuard } from './trust/trust-guard';
import { cgroupsRemoved } from './sandbox/limits';
import { launchTrustInputs } from './trust/protected-paths';
import { fileDigest } from './trust/file-hash';
import { attachTelemetry } from './telemetry/launch-telemetry';
import type { ExchangeTelemetry } from './telemetry/exchange-telemetry';
import { preparePackages } from './packages/prepare-packages';
import { launchSearchPath } from './trust/program-identity';

export interface HostOptions {
  dataDir?: string;
  /** Where the host's own warnings and progress lines go (default stderr); `gateway --quiet` passes one that drops them. */
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  secrets?: SecretProvider;
  /** Where tokens and `${secret:…}` values live (default: the OS keychain, else an encrypted file). */
  secretStore?: SecretStore;
  /** Open the audit store (default true). */
  audit?: boolean;
  /** Shutdown grace periods handed to every server. */
  stdinGraceMs?: number;
  termGraceMs?: number;
  /** The approvals broker (default a plain ApprovalBroker); the gateway command passes a relaying one. */
  broker?: ApprovalBroker;
  /**
   * Traffic records the tap keeps for a window that attaches late (default DEFAULT_BUS_CAPACITY).
   * A host no window can reach (the headless `gateway` command) keeps a few: held records outlive
   * V8's young generation and die in the old one, which is most of such a gateway's memory under
   * load (bench/RESULTS.md).
   */
  trafficReplay?: number;
}

export interface LaunchOptions {
  toolSurface?: ToolSurface;
  /**
   * Serve the gateway over Streamable HTTP on this port. 0: the port this profile had last time
   * (main/gateway/remembered-endpoint.ts), else any free one; `gateway` launches take any free one.
   */
  httpPort?: number;
  /**
   * Bearer token for the HTTP endpoint; default GATEHOUSE_TOKEN, else (httpPort 0, not a
   * `gateway` launch) the profile's remembered token, else a fresh random one.
   */
  token?: string;
  /** Start the profile's agent in a terminal when it has one with `autostart` (needs httpPort). */
  startAgent?: boolean;
  kind?: 'launch' | 'gateway' | 'serve';
  /**
   * Resolve once every server is ready or has failed (default). `false`: resolve as soon as
   * the gateway can answer (HTTP listening); servers come up behind it and are announced with
   * list_changed (docs/gateway.md "Servers that are slow to start": one slow server never holds up the gateway).
   */
  waitForServers?: boolean;
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
  /** What a person should know about this launch (the gateway moved to another port…). */
  readonly notices: string[] = [];
  /** sha256 of the profile file as it was resolved; the window's "changed — Relaunch" compares against it (main/api/profile-watch.ts). */
  profileDigest: string | undefined;
  /** OTLP export of this launch's exchanges, when a collector is configured (docs/telemetry.md). */
  telemetry: ExchangeTelemetry | undefined;

  constructor(
    readonly id: string,
    readonly profile: ResolvedProfile,
    readonly supervisor: Supervisor,
    readonly gateway: Gateway,
    /** Launch consent and tool pinning of this launch (main/trust/). */
    readonly trust: TrustGuard,
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
  exchange: ['opened' | 'updated' | 'closed', Exchange];
  approval: [ApprovalEvent];
  /** An `auth: oauth` server's sign-in expired and could not be refreshed. */
  'auth-expired': [launchId: string, serverId: string, reason: string];
  /** A launch's trust reviews changed (a server waits for approval, a tool was held or accepted). */
  trust: [Launch];
  /** Something a person should know about a launch (also on stderr and in `launch.notices`). */
  'launch-notice': [Launch, string];
};

export class Host extends EventEmitter<HostEvents> {
  readonly tap: TrafficTap;
  /** Per launch: audit rows put off to the next turn. */
  private readonly deferredAudit = new Map<string, Set<() => void>>();
  /** The same closing rows by exchange id, so the answer's arrival at the audit sink writes its own. */
  private readonly closingRows = new Map<string, () => void>();
  private readonly stopping = new Map<string, Promise<void>>();
  readonly stderrBus = new StderrBus();
  readonly broker: ApprovalBroker;
  readonly dataDir: string;
  readonly audit: AuditStore | undefined;
  /** Why the audit store is off although it was asked for (a native-module mismatch), if it is. */
  auditOff: string | undefined;
  readonly launches = new Map<string, Launch>();
  readonly terminals: TerminalManager;
  /** Pins in the data directory; every change is recorded in the audit store. */
  readonly trust: TrustStore;
  /** The environment the host resolves profiles and folders against (process.env unless given). */
  readonly env: NodeJS.ProcessEnv;
  /** Upstream OAuth and the secret store (main/auth/). */
  readonly auth: AuthManager;
  private readonly secrets: SecretProvider;
  private readonly unsubscribe: Array<() => void> = [];
  private closed = false;

  /** One line for a person (the host's log option, else stderr). */
  private readonly say: (line: string) => void;

  constructor(private readonly opts: HostOptions = {}) {
    super();
    this.say = opts.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.tap = new TrafficTap(opts.trafficReplay !== undefined ? { capacity: opts.trafficReplay } : {});
    // Detected credentials are masked in stored and shown traffic, whatever policy.data says (docs/data.md).
    this.tap.screen = screenRecord;
    this.env = opts.env ?? process.env;
    this.broker = opts.broker ?? new ApprovalBroker();
    this.dataDir = opts.dataDir ?? defaultDataDir(this.env);
    this.auth = new AuthManager({ dataDir: this.dataDir, env: this.env, log: this.say, ...(opts.secretStore ? { store: opts.secretStore } : {}) });
    this.auth.on('expired', (launchId, serverId, reason) => this.emit('auth-expired', launchId, serverId, reason));
    this.secrets = opts.secrets ?? new StoreSecretProvider(() => this.auth.store, this.env);
    if (opts.audit !== false) {
      this.audit = this.openAudit();
    }
    if (this.audit) {
      const writer = this.audit.writer;
      // The audit writer drains the buses in batches; the protocol path never waits for it,
      // except for an agent's answer, written (with everything before it) before it leaves.
      // GATEHOUSE_AUDIT_DURABLE_ANSWERS=0 goes back to batching answers too (a crash may then
      // lose the last ~50 ms of answered calls; the protocol path never touches the disk).
      const durable = this.env.GATEHOUSE_AUDIT_DURABLE_ANSWERS !== '0';
      this.unsubscribe.push(
        this.tap.subscribe(
          durableAuditSink(
            {
              trafficBatch: (b) => {
                // An answer's exchange closing row goes with the answer (the row was waiting for the
                // answer's wire size, known now): a SIGKILL right after it leaves keeps the call's
                // outcome too, not only its messages (tests/faults/host-kill.test.ts).
                for (const ev of b) if (ev.exchange !== undefined && isAgentAnswer(ev)) this.closingRows.get(ev.exchange)?.();
                writer.trafficBatch(b);
              },
              flush: () => writer.commitPoint(),
            },
            durable,
          ),
          durable ? { flushOn: isAgentAnswer } : {},
        ),
      );
      this.unsubscribe.push(this.stderrBus.subscribe((batch) => writer.stderrBatch(batch)));
    }
    const audit = this.audit;
    this.trust = new TrustStore(this.dataDir, audit ? (d) => audit.recordTrustDecision(d) : undefined);
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
  /** The per-install key that signs the audit chain (audit/audit-key.ts); GATEHOUSE_AUDIT_SIGN=0 chains unsigned. */
  private auditSigner(): AuditSigner | undefined {
    if (this.env.GATEHOUSE_AUDIT_SIGN === '0') return undefined;
    try {
      return loadAuditSigner(this.auth.store);
    } catch (err) {
      this.say(`gatehouse: the audit is chained but not signed: ${(err as Error)?.message ?? String(err)}`);
      return undefined;
    }
  }

  private openAudit(): AuditStore | undefined {
    try {
      return openAuditStore({
        dataDir: this.dataDir,
        retention: retentionFromEnv(this.env),
        limits: auditLimitsFromEnv(this.env),
        signer: this.auditSigner(),
        // SQLite off the protocol thread (docs/audit.md "Audit store"); GATEHOUSE_AUDIT_THREAD=0 keeps it in this one.
        ...(this.env.GATEHOUSE_AUDIT_THREAD === '0' ? {} : { thread: { entry: auditWriterEntry() } }),
      });
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
    return resolveProfileRef(ref, { dataDir: this.dataDir, env: this.env, secrets: this.secrets });
  }

  /** Launch a profile: resolve it fully first (nothing starts half-way), then start its servers. */
  async launch(ref: string | ResolvedProfile, opts: LaunchOptions = {}): Promise<Launch> {
    if (this.closed) throw new Error('host is shutting down');
    const resolved = typeof ref === 'string' ? this.resolve(ref) : ref;
    // Package launchers (npx, uvx…) run from the package cache, installed now when missing (docs/packages.md).
    const packages = await preparePackages(resolved, { env: this.env, searchPath: await launchSearchPath(this.env), log: (line) => this.say(`gatehouse: ${line}`) });
    const profile = packages.profile;
    const profileDigest = fileDigest(profile.file);
    const id = randomUUID();
    const policy = compilePolicy(profile.policy, { workspace: profile.workspace });
    for (const problem of policy.problems) process.stderr.write(`gatehouse: policy: ${problem}\n`);
    // Program hashes warmed off the event loop, the paths no sandbox may write (trust/protected-paths.ts).
    const inputs = await launchTrustInputs(profile, this.env);
    const trust = new TrustGuard(profile, this.trust, id, inputs.searchPath, () => {
      const avail = sandboxAvailability(this.env);
      return avail.ok ? avail.kind : undefined;
    });
    // The OpenTelemetry SDK loads only for a launch that names a collector, before anything runs.
    const telemetry = await attachTelemetry(profile, this.env);
    const gateway = new Gateway({ session: id, profile, policy, broker: this.broker, toolSurface: opts.toolSurface, trust });
    const supervisor = new Supervisor(profile, {
      session: id,
      tap: this.tap,
      stderrBus: this.stderrBus,
      hostEnv: this.env,
      clientFactory: (serverId) => gateway.createUpstreamClient(serverId),
      oauthFor: (spec) => this.auth.providerFor(id, spec, profile.redactor, profile.file),
      channelRoutes: (serverId, era) => gateway.upstreamRoutes(serverId, era),
      stdinGraceMs: this.opts.stdinGraceMs,
      termGraceMs: this.opts.termGraceMs,
      startGate: (spec) => packages.problems.get(spec.id) ?? trust.startGate(spec),
      protectedRead: inputs.protectedRead,
    });
    trust.attach(supervisor);
    const launch = new Launch(id, profile, supervisor, gateway, trust);
    launch.profileDigest = profileDigest;
    launch.notices.push(...packages.notes);
    trust.on('changed', () => this.emit('trust', launch));
    this.launches.set(id, launch);
    this.wireAudit(launch, opts.kind ?? 'launch');
    launch.telemetry = telemetry?.(id, gateway, this.broker, (line) => this.say(`gatehouse: ${line}`));
    if (launch.telemetry) launch.notices.push(`Exchanges and call metrics are exported to ${profile.redactor.redactString(launch.telemetry.endpoint)} (telemetry).`);
    supervisor.on('status', (s) => this.emit('server-status', id, s));
    gateway.on('decision', (d) => this.emit('decision', d));
    for (const phase of ['opened', 'updated', 'closed'] as const) gateway.exchanges.on(phase, (ex) => this.emit('exchange', phase, ex));
    gateway.attach(supervisor);
    // The endpoint listens before the servers are up: initialize is answered at once.
    const started = supervisor.startAll();
    if (opts.httpPort !== undefined) {
      const remember = opts.httpPort === 0 && opts.kind !== 'gateway';
      launch.token = opts.token ?? (this.env.GATEHOUSE_TOKEN || undefined) ?? (remember ? this.keptToken(profile.file) : generateToken());
      launch.endpoint = await this.listen(launch, opts.httpPort, remember);
    }
    if (opts.waitForServers !== false) await started;
    else void started.catch(() => {});
    this.emit('launched', launch);
    if (opts.startAgent && profile.agent?.autostart && launch.endpoint) {
      const opened = await this.openTerminal(id).catch((err: Error) => ({ unavailable: err.message }));
      if ('unavailable' in opened) process.stderr.write(`gatehouse: agent not started: ${opened.unavailable}\n`);
    }
    return launch;
  }

  /** A per-agent gateway token for this profile (`gatehouse connect --agent NAME`; agent-tokens.ts). */
  mintAgentToken(profileFile: string, name: string): string {
    return mintAgentToken(this.auth.store, profileFile, name);
  }

  /** The profile's remembered token; a fresh one when the secret store cannot be opened. */
  private keptToken(profileFile: string): string {
    try {
      return rememberedToken(this.auth.store, profileFile);
    } catch (err) {
      process.stderr.write(`gatehouse: the gateway token cannot be kept for the next launch (${(err as Error).message}); using a new one\n`);
      return generateToken();
    }
  }

  /** The HTTP endpoint: on the port this profile had last time when `remember`, said when it moved. */
  private async listen(launch: Launch, port: number, remember: boolean): Promise<HttpEndpoint> {
    const { profile, gateway } = launch;
    const start = (p: number) =>
      startHttpEndpoint({ gateway, tap: this.tap, redactor: profile.redactor, port: p, token: launch.token!, limits: httpLimitsFromEnv(this.env), agentToken: agentTokenLookup(() => agentTokens(this.auth.store, profile.file)) });
    const kept = remember ? rememberedPort(this.dataDir, profile.file) : undefined;
    let endpoint: HttpEndpoint;
    if (kept === undefined) endpoint = await start(port);
    else {
      try {
        endpoint = await start(kept);
      } catch (err) {
        if (!portTaken(err)) throw err;
        endpoint = await start(0);
        this.notice(launch, `the gateway's port ${kept} (kept from the last launch of ${profile.name}) is taken; it listens on ${endpoint.port} now and keeps that one: copy the configuration from Connect again`);
      }
    }
    if (remember) {
      try {
        rememberPort(this.dataDir, profile.file, endpoint.port);
      } catch (err) {
        process.stderr.write(`gatehouse: cannot keep the gateway port for the next launch: ${(err as Error).message}\n`);
      }
    }
    return endpoint;
  }

  private notice(launch: Launch, message: string): void {
    launch.notices.push(message);
    process.stderr.write(`gatehouse: ${message}\n`);
    this.emit('launch-notice', launch, message);
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
    gateway.on('decision', (d) => writer.decision(decisionPayload(d)));
    // One row per call, from arrival (pending) to its end: calls that never reached a server too.
    gateway.exchanges.on('opened', (ex) => writer.exchange(exchangeRecord(ex)));
    // On the next turn: the answer's wire size is known once the channel has written it. A row
    // still waiting when the launch stops or the store closes is written then (flushDeferredAudit).
    const deferred = new Set<() => void>();
    this.deferredAudit.set(id, deferred);
    gateway.exchanges.on('closed', (ex) => {
      const write = () => {
        clearImmediate(timer);
        deferred.delete(write);
        this.closingRows.delete(ex.id);
        writer.exchange(exchangeRecord(ex));
      };
      const timer = setImmediate(write);
      deferred.add(write);
      this.closingRows.set(ex.id, write);
    });
    // Findings the downstream screen made after the call's closing row went out (the answer is
    // screened as it is sent): the row again, whose findings are new rows; the call's own row stays as chained.
    gateway.exchanges.on('found', (ex) => {
      if (ex.outcome !== undefined && !this.closingRows.has(ex.id)) writer.exchange(exchangeRecord(ex));
    });
    gateway.on('agent-session', (a) => {
      if (a.ended) writer.agentSessionEnded(a.id, { endedAt: a.ended });
      else
        writer.agentSessionStarted({ id: a.id, session: id, clientName: a.client?.name, clientVersion: a.client?.version, transport: a.transport, terminal: a.terminal, startedAt: a.startedAt });
    });
  }

  /** Sign in to an `auth: oauth` server of a launch; the server restarts once signed in. */
  signIn(launchId: string, serverId: string): Promise<SignInStarted> {
    const server = this.launches.get(launchId)?.supervisor.get(serverId);
    if (!server) throw new Error(`no server '${serverId}' in launch ${launchId}`);
    return this.auth.signIn(launchId, serverId, () => server.restart());
  }

  /** Remove its tokens from the secret store; the server restarts and shows "sign-in needed". */
  async signOut(launchId: string, serverId: string): Promise<boolean> {
    const server = this.launches.get(launchId)?.supervisor.get(serverId);
    if (!server) throw new Error(`no server '${serverId}' in launch ${launchId}`);
    const removed = this.auth.signOut(launchId, serverId);
    await server.restart();
    return removed;
  }

  /** Stops a launch; a second call while it stops gets the same promise (shutdown waits for it). */
  stop(launchId: string, reason = 'stopped'): Promise<void> {
    const stopping = this.stopping.get(launchId);
    if (stopping) return stopping;
    const launch = this.launches.get(launchId);
    if (!launch || launch.stopped) return Promise.resolve();
    const done = this.stopLaunch(launch, reason).finally(() => this.stopping.delete(launchId));
    this.stopping.set(launchId, done);
    return done;
  }

  private async stopLaunch(launch: Launch, reason: string): Promise<void> {
    const launchId = launch.id;
    launch.stopped = true;
    this.terminals.closeLaunch(launchId);
    await launch.endpoint?.close();
    await launch.gateway.close();
    await launch.supervisor.stopAll(reason);
    await launch.telemetry?.shutdown();
    launch.trust.close();
    this.broker.clearLaunch(launchId);
    this.auth.releaseLaunch(launchId);
    this.flushDeferredAudit(launchId);
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
    // Each run's cgroup goes once its processes have (main/sandbox/limits.ts): none left behind.
    await cgroupsRemoved();
    // Closing the buses hands every subscriber (the audit writer first of all) what it still had
    // waiting; the host's own subscriptions are removed after that.
    this.tap.close();
    this.stderrBus.close();
    for (const u of this.unsubscribe) u();
    this.flushDeferredAudit();
    this.audit?.close();
  }

  /** Audit rows put off to the next turn (an exchange's closing row), written now: one launch's, or all. */
  private flushDeferredAudit(launchId?: string): void {
    const sets = launchId === undefined ? [...this.deferredAudit.values()] : [this.deferredAudit.get(launchId) ?? new Set<() => void>()];
    for (const set of sets) for (const write of [...set]) write();
  }
}
