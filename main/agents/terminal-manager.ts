// Terminals belong to the host, not to a window (ARCHITECTURE.md): closing and reopening the
// window keeps them, and a window that attaches late gets their scrollback. Each terminal of a
// launch gets its own gateway token, so the gateway can attribute its agent's calls to it.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { AgentSpec, ResolvedProfile } from '../profiles/types';
import { protectedPaths } from '../trust/protected-paths';
import { prepareAgent, type PreparedAgent } from './presets';
import { sandboxAgent } from './sandboxed-agent';
import { isPermanentSandboxError, type SandboxedRun } from '../sandbox/spawn-sandboxed';
import type { SandboxSummary } from '../sandbox/types';
import { nodePtyBackend, type PtyBackend } from './pty-backend';
import { nativeLoadProblem } from '../native/abi-mismatch';
import { TerminalSession, type TerminalInfo } from './terminal-session';

export interface TokenIssuer {
  /** A fresh bearer token for the gateway, tagged with `label` (the terminal id). */
  issue(label: string): { token: string; revoke(): void };
}

export interface TerminalLaunchInfo {
  launchId: string;
  profile: ResolvedProfile;
  url: string | undefined;
  tokens: TokenIssuer | undefined;
}

export interface OpenTerminalOptions {
  /** Override the profile's agent (e.g. open a plain shell next to it). */
  agent?: Partial<AgentSpec>;
  cols?: number;
  rows?: number;
}

export interface TerminalRecord extends TerminalInfo {
  launchId: string;
  preset: string;
  /** The agent's OS sandbox; `off` is shown as a warning. */
  sandbox?: SandboxSummary;
}

type Events = {
  opened: [TerminalRecord];
  data: [string, string];
  exit: [TerminalRecord];
  closed: [string];
};

interface Entry {
  launchId: string;
  preset: string;
  session: TerminalSession;
  sandbox: SandboxSummary;
  cleanup: () => void;
}

export class TerminalManager extends EventEmitter<Events> {
  private readonly terminals = new Map<string, Entry>();
  private backend: PtyBackend | undefined;

  constructor(
    private readonly opts: {
      dataDir: string;
      searchPath: () => Promise<string>;
      hostEnv: NodeJS.ProcessEnv;
      backend?: PtyBackend;
      /** Loads the pty backend on first use (default node-pty); a test seam for a module that cannot load. */
      loadBackend?: () => PtyBackend;
    },
  ) {
    super();
    this.backend = opts.backend;
  }

  /** Resolve what `open` would start, without starting it (availability for the UI). */
  async describe(launch: TerminalLaunchInfo, options: OpenTerminalOptions = {}): Promise<PreparedAgent> {
    const spec = this.specFor(launch, options);
    const runDir = path.join(this.opts.dataDir, 'run', `probe-${randomUUID()}`);
    try {
      return prepareAgent(spec, { url: launch.url ?? '', token: '', runDir, searchPath: await this.opts.searchPath(), hostEnv: this.opts.hostEnv });
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  }

  async open(launch: TerminalLaunchInfo, options: OpenTerminalOptions = {}): Promise<TerminalRecord | { unavailable: string; install?: string }> {
    if (!launch.url || !launch.tokens) return { unavailable: 'this launch has no gateway endpoint for an agent to reach' };
    const spec = this.specFor(launch, options);
    const id = `t-${randomUUID().slice(0, 8)}`;
    const runDir = path.join(this.opts.dataDir, 'run', id);
    const grant = launch.tokens.issue(id);
    let prepared: PreparedAgent;
    try {
      prepared = prepareAgent(spec, { url: launch.url, token: grant.token, runDir, searchPath: await this.opts.searchPath(), hostEnv: this.opts.hostEnv });
    } catch (err) {
      grant.revoke();
      rmSync(runDir, { recursive: true, force: true });
      throw err;
    }
    const cleanup = () => {
      grant.revoke();
      // The generated config holds the terminal's token: it goes when the terminal does.
      rmSync(runDir, { recursive: true, force: true });
    };
    if (!prepared.available) {
      cleanup();
      return { unavailable: prepared.reason, install: prepared.install };
    }
    try {
      this.backend ??= (this.opts.loadBackend ?? nodePtyBackend)();
    } catch (err) {
      // node-pty built for another Node (or Electron): terminals are off, the rest keeps working.
      const problem = nativeLoadProblem(err, 'node-pty', 'terminals are unavailable');
      if (!problem) throw err;
      cleanup();
      return { unavailable: problem, install: process.versions.electron ? 'npx electron-builder install-app-deps' : 'npm rebuild node-pty' };
    }
    let session: TerminalSession;
    let boxed: SandboxedRun | undefined;
    let summary: SandboxSummary;
    try {
      // The agent's OS sandbox (main/sandbox/): it reaches the gateway port and nothing else of the host.
      const searchPath = await this.opts.searchPath();
      ({ run: boxed, summary } = sandboxAgent(spec, prepared, {
        gatewayUrl: launch.url,
        workspace: launch.profile.workspace,
        dataDir: this.opts.dataDir,
        hostEnv: this.opts.hostEnv,
        searchPath,
        runDir,
        limitsGroup: { launch: launch.launchId, name: `terminal-${id}` },
        // An agent in the workspace must not rewrite the profile or a server's program either.
        protectedRead: protectedPaths(launch.profile, searchPath, this.opts.hostEnv),
      }));
      session = new TerminalSession(this.backend, {
        id,
        title: prepared.title,
        command: boxed.command,
        args: boxed.args,
        env: boxed.env,
        cwd: prepared.cwd,
        cols: options.cols,
        rows: options.rows,
        shownCommand: [prepared.command, ...prepared.args].join(' '),
      });
    } catch (err) {
      boxed?.dispose();
      cleanup();
      if (isPermanentSandboxError(err)) return { unavailable: (err as Error).message };
      throw err;
    }
    const sandboxRun = boxed;
    // At a cap (limits.ts) the terminal ends, saying why in it: no restart, a person opens another.
    if (session.pid !== undefined) {
      boxed.watch?.(session.pid, (why) => {
        this.emit('data', id, `\r\n[gatehouse] stopped: ${why}\r\n`);
        session.kill('SIGKILL');
      });
    }
    const entry: Entry = {
      launchId: launch.launchId,
      preset: spec.preset,
      session,
      sandbox: summary,
      cleanup: () => {
        sandboxRun.dispose();
        cleanup();
      },
    };
    this.terminals.set(id, entry);
    session.on('data', (data) => this.emit('data', id, data));
    session.on('exit', () => {
      entry.cleanup();
      this.emit('exit', this.record(entry));
    });
    const record = this.record(entry);
    this.emit('opened', record);
    return record;
  }

  private specFor(launch: TerminalLaunchInfo, options: OpenTerminalOptions): AgentSpec {
    const base: AgentSpec = launch.profile.agent ?? { preset: 'shell', args: [], env: {}, inheritEnv: [], cwd: launch.profile.workspace, autostart: false };
    return { ...base, ...options.agent, cwd: options.agent?.cwd ?? base.cwd };
  }

  private record(entry: Entry): TerminalRecord {
    return { ...entry.session.status(), launchId: entry.launchId, preset: entry.preset, sandbox: entry.sandbox };
  }

  list(launchId?: string): TerminalRecord[] {
    return [...this.terminals.values()].filter((e) => !launchId || e.launchId === launchId).map((e) => this.record(e));
  }

  get(id: string): TerminalSession | undefined {
    return this.terminals.get(id)?.session;
  }

  /** Ends a terminal (SIGHUP, like closing a terminal window) and forgets it. */
  close(id: string): void {
    const entry = this.terminals.get(id);
    if (!entry) return;
    this.terminals.delete(id);
    entry.session.kill('SIGHUP');
    // A program that ignores SIGHUP still goes.
    const pid = entry.session.pid;
    setTimeout(() => {
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }, 2000).unref();
    entry.cleanup();
    this.emit('closed', id);
  }

  closeLaunch(launchId: string): void {
    for (const [id, e] of this.terminals) if (e.launchId === launchId) this.close(id);
  }

  closeAll(): void {
    for (const id of [...this.terminals.keys()]) this.close(id);
  }
}
