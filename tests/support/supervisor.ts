// Helpers for the supervisor and launch integration tests: polling waits (never timed
// assertions), pid probes, free ports, and profiles that run the fixture servers on this node.
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute path of a fixture server in tests/fixtures/servers/. */
export function serverFixture(name: string): string {
  return path.join(repoRoot, 'tests', 'fixtures', 'servers', name);
}

/** Polls `cond` until it returns a truthy value (which is returned) or the time is up. */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await cond();
      if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs}ms waiting for ${opts.what ?? 'a condition'}${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}

/** True while a process with this pid exists (signal 0 probes without signalling). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The errno of probing `pid` with signal 0: 'ESRCH' once the process is gone. */
export function probePid(pid: number): string {
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'unknown';
  }
}

/** A port the OS says is free right now (for servers that take a port, not a listening socket). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** YAML (flow style, via JSON) for one stdio server that runs `args` on this node. */
export function nodeServerYaml(args: string[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ command: process.execPath, args, ...extra });
}

/** Small backoffs so restart tests run quickly; counts stay what the test says. */
export const FAST_RESTART = { initial_backoff_ms: 50, max_backoff_ms: 200, max_restarts: 3 };

/** A whole profile (YAML is a superset of JSON) with the given servers. */
export function profileYaml(name: string, servers: Record<string, Record<string, unknown>>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ name, workspace: './ws', servers, policy: { default: 'allow' }, ...extra }, null, 2);
}
