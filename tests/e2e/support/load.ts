// Load through the real gateway: several MCP SDK clients over Streamable HTTP, each calling a tool
// back to back, as agents would. Used by the Pause e2e test (to fill the window's buffer while the
// list is paused) and by `npm run bench:ui` (bench/ui/run.ts).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface LoadOptions {
  url: string;
  token: string;
  clients?: number;
  /** The tool to call and its arguments (an allowed, cheap one: the demo's `read_file`). */
  tool?: string;
  args?: Record<string, unknown>;
  /** Calls in flight per client (1 = back to back). */
  inFlight?: number;
  /**
   * Sequential SDK clients: each client slot connects a new SDK client, makes this many calls,
   * closes it and starts the next (agents that come and go: one initialize per few calls).
   */
  callsPerClient?: number;
}

export interface Load {
  /** Calls answered so far (ok or error). */
  readonly calls: () => number;
  readonly errors: () => number;
  stop(): Promise<void>;
}

/**
 * A fetch for one SDK client transport that gives every request its own abort signal. The
 * transport passes one long-lived signal to every fetch, and undici adds an abort listener to it
 * per request that is dropped only when the request is collected: thousands of back-to-back calls
 * trip Node's leak warning on every call (undici sets that signal's limit to 1500 itself, so no
 * limit set here holds). Here the long-lived signal gets one listener, which aborts the requests
 * still open (an event stream until the transport closes; a JSON answer once it has arrived).
 */
function ownSignals(): typeof fetch {
  const open = new Set<AbortController>();
  let outer: AbortSignal | undefined;
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    if (!signal) return fetch(input, init);
    if (signal !== outer) {
      outer = signal;
      signal.addEventListener('abort', () => {
        for (const c of open) c.abort(signal.reason);
        open.clear();
      }, { once: true });
    }
    const own = new AbortController();
    if (signal.aborted) own.abort(signal.reason);
    else open.add(own);
    try {
      const res = await fetch(input, { ...init, signal: own.signal });
      if (!res.headers.get('content-type')?.includes('text/event-stream')) open.delete(own);
      return res;
    } catch (e) {
      open.delete(own);
      throw e;
    }
  };
}

export async function startLoad(opts: LoadOptions): Promise<Load> {
  const clients: Client[] = [];
  let calls = 0;
  let errors = 0;
  let running = true;
  const loops: Promise<void>[] = [];
  const connect = async (name: string) => {
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(opts.url), { fetch: ownSignals(), requestInit: { headers: { Authorization: `Bearer ${opts.token}` } } });
    await client.connect(transport);
    return client;
  };
  const call = async (client: Client) => {
    try {
      await client.callTool({ name: opts.tool ?? 'read_file', arguments: opts.args ?? { file_path: 'README.md' } });
    } catch {
      errors++;
    }
    calls++;
  };
  if (opts.callsPerClient !== undefined) {
    const per = Math.max(1, opts.callsPerClient);
    for (let c = 0; c < (opts.clients ?? 1); c++) {
      loops.push(
        (async () => {
          for (let n = 0; running; n++) {
            const client = await connect(`gatehouse-seq-${c}-${n}`).catch(() => undefined);
            if (!client) {
              errors++;
              continue;
            }
            for (let k = 0; k < per && running; k++) await call(client);
            await client.close().catch(() => {});
          }
        })(),
      );
    }
  }
  for (let c = 0; c < (opts.callsPerClient !== undefined ? 0 : (opts.clients ?? 4)); c++) {
    const client = new Client({ name: `gatehouse-load-${c}`, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(opts.url), { fetch: ownSignals(), requestInit: { headers: { Authorization: `Bearer ${opts.token}` } } });
    await client.connect(transport);
    clients.push(client);
    for (let k = 0; k < (opts.inFlight ?? 1); k++) {
      loops.push(
        (async () => {
          while (running) {
            try {
              await client.callTool({ name: opts.tool ?? 'read_file', arguments: opts.args ?? { file_path: 'README.md' } });
            } catch {
              errors++;
              if (!running) return;
            }
            calls++;
          }
        })(),
      );
    }
  }
  return {
    calls: () => calls,
    errors: () => errors,
    stop: async () => {
      running = false;
      await Promise.allSettled(loops);
      await Promise.allSettled(clients.map((c) => c.close()));
    },
  };
}
