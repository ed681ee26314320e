// Load through the real gateway: several MCP SDK clients over Streamable HTTP, each calling a tool
// back to back, as agents would. Used by the Pause e2e test (to fill the window's buffer while the
// list is paused) and by `npm run bench:ui` (bench/ui/run.ts).
import { setMaxListeners } from 'node:events';
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

export async function startLoad(opts: LoadOptions): Promise<Load> {
  // The SDK's HTTP client transport adds an abort listener per request to one long-lived signal
  // and drops them lazily: thousands of back-to-back calls trip Node's leak warning on every call.
  setMaxListeners(100_000);
  const clients: Client[] = [];
  let calls = 0;
  let errors = 0;
  let running = true;
  const loops: Promise<void>[] = [];
  const connect = async (name: string) => {
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: { Authorization: `Bearer ${opts.token}` } } });
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
    const transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: { Authorization: `Bearer ${opts.token}` } } });
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
