// The Tool console's calls, kept by the host (docs/ui-layout.md "What survives a reload, a second window or navigation"): a call runs in the host, so it outlives
// the window that started it. A reload (or a second window) finds it still pending, then its
// result, by its exchange id — the window itself keeps only drafts.
//
// In memory, bounded: the calls of this host process (a restart ends every call anyway).
import type { CommandOutput, EventPayload } from '../../common/host-api';

export type ConsoleCall = EventPayload<'console:call'>['call'];

/** A person makes a handful of calls; this only stops a runaway script from growing the list. */
const MAX_CALLS = 200;

export class ConsoleCalls {
  private readonly calls = new Map<string, ConsoleCall>();
  private readonly listeners = new Set<(call: ConsoleCall) => void>();

  start(exchange: string, launchId: string, tool: string, args: Record<string, unknown>): void {
    this.put({ exchange, launchId, tool, args: { ...args }, startedAt: Date.now() });
  }

  finish(exchange: string, output: CommandOutput<'tools:call'>): void {
    const call = this.calls.get(exchange);
    if (!call) return;
    this.put({ ...call, output, ms: Math.max(0, Date.now() - call.startedAt) });
  }

  /** Oldest first (a window applies them in order, so each tool ends on its latest call). */
  list(): ConsoleCall[] {
    return [...this.calls.values()].sort((a, b) => a.startedAt - b.startedAt);
  }

  onChange(listener: (call: ConsoleCall) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private put(call: ConsoleCall): void {
    this.calls.set(call.exchange, call);
    while (this.calls.size > MAX_CALLS) this.calls.delete(this.calls.keys().next().value!);
    for (const l of this.listeners) l(call);
  }
}
