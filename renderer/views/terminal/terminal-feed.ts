// The window's side of the terminals: their list (kept current by `terminal:changed`) and the
// routing of `terminal:data` to whichever xterm is showing that terminal. Created once at
// bootstrap (mountApp), so it outlives the Terminal view.
//
// Flow control (after VS Code's terminal): the host counts output it sent to this window
// and pauses the pty above a high watermark until the window acknowledges it. A terminal shown in
// an xterm acknowledges in xterm's write callback (what xterm has parsed); a terminal nobody
// shows right now is acknowledged at once and its output dropped here: the host keeps the
// scrollback and replays it when a view attaches, so a hidden agent is never paused.
import type { EventPayload } from '../../../common/host-api';
import type { AppHostApi } from '../../state/app-state';
import { Store } from '../../state/store';

export type TerminalSummary = EventPayload<'terminal:changed'>['terminal'];

export interface TerminalsState {
  terminals: TerminalSummary[];
  loaded: boolean;
  error?: string;
}

type Sink = (data: string) => void;

export class TerminalFeed {
  readonly store = new Store<TerminalsState>({ terminals: [], loaded: false });
  private readonly sinks = new Map<string, Sink>();
  private readonly reattachListeners = new Set<() => void>();
  private offs: Array<() => void> = [];

  constructor(private readonly api: AppHostApi) {}

  start(): void {
    this.offs.push(
      this.api.on('terminal:changed', ({ terminal, closed }) => {
        this.store.update((s) => {
          const rest = s.terminals.filter((t) => t.id !== terminal.id);
          if (closed) return { ...s, terminals: rest };
          const known = rest.length !== s.terminals.length;
          return { ...s, terminals: known ? s.terminals.map((t) => (t.id === terminal.id ? terminal : t)) : [...s.terminals, terminal] };
        });
      }),
      this.api.on('terminal:data', ({ id, data }) => {
        const sink = this.sinks.get(id);
        if (sink) sink(data);
        else this.ack(id, data.length);
      }),
    );
    if (this.api.onConnectionChange) {
      // Output sent while the socket was down is gone; the host's scrollback is not: reload the
      // list and let every attached view reset and replay.
      this.offs.push(
        this.api.onConnectionChange((info) => {
          if (info.state !== 'open' || !info.reconnected) return;
          void this.refresh();
          for (const l of [...this.reattachListeners]) l();
        }),
      );
    }
    void this.refresh();
  }

  dispose(): void {
    for (const off of this.offs) off();
    this.offs = [];
    this.sinks.clear();
  }

  async refresh(): Promise<void> {
    try {
      const terminals = await this.api.call('terminals:list', {});
      this.store.set({ terminals, loaded: true });
    } catch (e) {
      this.store.update((s) => ({ ...s, loaded: true, error: e instanceof Error ? e.message : String(e) }));
    }
  }

  /** Route this terminal's output to `sink` (which must acknowledge it) until the returned function runs. */
  attach(id: string, sink: Sink, onReattach?: () => void): () => void {
    this.sinks.set(id, sink);
    if (onReattach) this.reattachListeners.add(onReattach);
    return () => {
      if (this.sinks.get(id) === sink) this.sinks.delete(id);
      if (onReattach) this.reattachListeners.delete(onReattach);
    };
  }

  ack(id: string, chars: number): void {
    if (chars <= 0) return;
    // A terminal closed meanwhile answers "no terminal": nothing left to acknowledge.
    this.api.call('terminals:ack', { id, chars }).catch(() => {});
  }
}
