import type { Implementation, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ExitInfoSchema, ExitRecordSchema, ServerStateSchema, ServerStatusSchema } from '../../common/host-api-shapes';

/**
 * starting → ready (after `initialize` succeeds) → restarting / failed / stopped.
 * `stopping` is shown while an orderly shutdown is in progress.
 */
export type ServerState = z.infer<typeof ServerStateSchema>;

/** How a run ended; `reason` is why we think so: 'exited', 'crashed', 'startup timeout', 'stopped', 'connection lost'... */
export type ExitInfo = z.infer<typeof ExitInfoSchema>;

/** One exit of a server's process (main/supervisor/exit-history.ts), with the last stderr lines of that run (redacted). */
export type ExitRecord = z.infer<typeof ExitRecordSchema>;

/**
 * A server as the Servers view shows it (common/host-api-shapes.ts declares it): `run` is 1 for
 * the first start and +1 on each restart, `command` is the command line (redacted) or URL,
 * `stderrTail` the last stderr lines (redacted). Main keeps the SDK's own types for what the
 * server told about itself (the wire carries them as loose records).
 */
export type ServerStatus = Omit<z.infer<typeof ServerStatusSchema>, 'serverInfo' | 'capabilities'> & {
  serverInfo?: Implementation;
  capabilities?: ServerCapabilities;
};

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

/** The era a server's run speaks (main/supervisor/upstream-era.ts), shown in the Servers view, and how it was known. */
export type ServerEraInfo = NonNullable<ServerStatus['era']>;

export type { Tool };
