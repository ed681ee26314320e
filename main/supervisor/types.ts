import type { Implementation, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AuthStatusInfo } from '../auth/upstream-oauth';
import type { SandboxSummary } from '../sandbox/types';

/**
 * starting → ready (after `initialize` succeeds) → restarting / failed / stopped.
 * `stopping` is shown while an orderly shutdown is in progress.
 */
export type ServerState = 'starting' | 'ready' | 'restarting' | 'stopping' | 'stopped' | 'failed';

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  at: number;
  uptimeMs: number;
  /** Why we think it ended: 'exited', 'crashed', 'startup timeout', 'stopped', 'connection lost'... */
  reason: string;
}

/** One exit of a server's process (main/supervisor/exit-history.ts). */
export interface ExitRecord extends ExitInfo {
  run: number;
  /** The last stderr lines of that run (redacted). */
  stderrTail: string[];
}

export interface ServerStatus {
  id: string;
  kind: 'stdio' | 'http' | 'builtin';
  state: ServerState;
  reason: string;
  /** Which run (1 for the first start; +1 on each restart). */
  run: number;
  restarts: number;
  pid?: number;
  /** The command line (redacted) or URL. */
  command: string;
  cwd?: string;
  startedAt?: number;
  readyAt?: number;
  /** When the next restart attempt is due (state `restarting`). */
  nextRestartAt?: number;
  lastExit?: ExitInfo;
  /** Every exit of this launch, oldest first (crashes, restarts, stops). */
  exits?: ExitRecord[];
  /** Last stderr lines (redacted), attached when the server failed or crashed. */
  stderrTail: string[];
  protocolFaults: number;
  serverInfo?: Implementation;
  protocolVersion?: string;
  /** The protocol era of the ready run (new: 2026-07-28 and later, stateless). */
  era?: ServerEraInfo;
  capabilities?: ServerCapabilities;
  toolCount?: number;
  instructions?: string;
  /** `auth: oauth` servers: signed in or not, until when (never a token). */
  auth?: AuthStatusInfo;
  /** The OS sandbox of a process server (absent for HTTP upstreams); `off` is shown as a warning. */
  sandbox?: SandboxSummary;
}

/**
 * The SDK client of a server's run as the gateway uses it (lists, lifecycle requests, ping):
 * the SDK v1 client for an old-era server, the SDK v2 client (new-era-client.ts) for a new one.
 */
export interface UpstreamClient {
  request(req: { method: string; params?: Record<string, unknown> }, schema: unknown, options?: { timeout?: number; signal?: AbortSignal }): Promise<unknown>;
  getServerCapabilities(): ServerCapabilities | undefined;
  getServerVersion(): Implementation | undefined;
  getInstructions(): string | undefined;
  ping(options?: { timeout?: number }): Promise<unknown>;
  close(): Promise<void>;
  /**
   * New era only: the log level rides in each request's `_meta` (there is no logging/setLevel),
   * and a resource subscription is a `subscriptions/listen` stream (there is no resources/subscribe).
   */
  setLogLevel?(level: string): void;
  listenResource?(uri: string): Promise<void>;
  unlistenResource?(uri: string): Promise<void>;
}

/** The era a server's run speaks (main/supervisor/upstream-era.ts), shown in the Servers view. */
export interface ServerEraInfo {
  era: 'old' | 'new';
  /** How it was known: remembered from an earlier start, probed now, or learnt from this run's handshake. */
  how: 'remembered' | 'probed' | 'handshake';
}

export type { Tool };
