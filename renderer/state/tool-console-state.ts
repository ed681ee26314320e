// The Tool console's state, kept outside its components: the tool picked per launch, the filter,
// and per tool its draft (form value or raw JSON) and its last result. A call runs here, not in
// the view, so going to Approvals to answer the call's own approval and coming back finds the
// call still pending and then its result. Drafts (not results) are also written to localStorage,
// so a reload keeps them; the calls themselves the host keeps (main/api/console-calls.ts), and
// `adopt` takes them back after a reload: still pending, or answered while the window was away.
import type { CommandOutput, EventPayload, HostApi } from '../../common/host-api';
import type { FormValue } from '../lib/schema-form/model';
import { Store } from './store';

export interface CallResultState {
  out?: CommandOutput<'tools:call'>;
  error?: string;
  ms: number;
  args: unknown;
}

export interface ToolDraft {
  value?: FormValue;
  /** The JSON editor's text while it is open (null: the form). */
  raw?: string | null;
  calling?: boolean;
  result?: CallResultState;
  /** When the latest call the host told of started (host clock): an older call's record never replaces it. */
  callStartedAt?: number;
}

export type ConsoleCall = EventPayload<'console:call'>['call'];

export interface ToolConsoleSnapshot {
  query: string;
  /** launch id → tool name */
  selected: Record<string, string>;
  /** `<launch id>\u0000<tool name>` → draft */
  drafts: Record<string, ToolDraft>;
}

const STORAGE_KEY = 'gatehouse.toolConsole';
/** Drafts kept across reloads; the oldest go first. */
const MAX_STORED_DRAFTS = 100;

export const draftKey = (launchId: string, tool: string): string => `${launchId}\u0000${tool}`;

export class ToolConsoleState {
  readonly store: Store<ToolConsoleSnapshot>;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = safeStorage()) {
    this.store = new Store<ToolConsoleSnapshot>(this.restore());
    // A reload within the save delay would lose what was just typed: write it as the page goes.
    globalThis.addEventListener?.('pagehide', () => this.flush());
  }

  setQuery(query: string): void {
    this.store.update((s) => ({ ...s, query }));
    this.persist();
  }

  select(launchId: string, tool: string): void {
    this.store.update((s) => ({ ...s, selected: { ...s.selected, [launchId]: tool } }));
    this.persist();
  }

  draft(launchId: string, tool: string): ToolDraft | undefined {
    return this.store.get().drafts[draftKey(launchId, tool)];
  }

  patch(launchId: string, tool: string, patch: Partial<ToolDraft>): void {
    const key = draftKey(launchId, tool);
    this.store.update((s) => ({ ...s, drafts: { ...s.drafts, [key]: { ...s.drafts[key], ...patch } } }));
    if ('value' in patch || 'raw' in patch) this.persist();
  }

  /** Calls the tool; the result lands in the draft whether or not the view is still open. */
  async call(api: Pick<HostApi, 'call'>, launchId: string, tool: string, args: Record<string, unknown>): Promise<void> {
    if (this.draft(launchId, tool)?.calling) return;
    this.patch(launchId, tool, { calling: true });
    // The arguments of a call are kept at once, not after the save delay.
    this.flush();
    const t0 = performance.now();
    let result: CallResultState;
    try {
      const out = await api.call('tools:call', { launchId, name: tool, arguments: args });
      result = { out, ms: performance.now() - t0, args };
    } catch (e) {
      result = { error: e instanceof Error ? e.message : String(e), ms: performance.now() - t0, args };
    }
    this.patch(launchId, tool, { calling: false, result });
  }

  /**
   * The host's record of a call (`host:snapshot` after a reload, `console:call` live): the tool's
   * draft shows it pending, or its result, unless it already shows a later call.
   */
  adopt(call: ConsoleCall): void {
    const d = this.draft(call.launchId, call.tool);
    if (d?.callStartedAt !== undefined && call.startedAt < d.callStartedAt) return;
    if (!call.output) {
      this.patch(call.launchId, call.tool, { calling: true, callStartedAt: call.startedAt });
      return;
    }
    if (d?.result?.out?.exchange === call.exchange && !d.calling) return;
    this.patch(call.launchId, call.tool, { calling: false, callStartedAt: call.startedAt, result: { out: call.output, ms: call.ms ?? 0, args: call.args } });
  }

  private restore(): ToolConsoleSnapshot {
    const empty: ToolConsoleSnapshot = { query: '', selected: {}, drafts: {} };
    try {
      const text = this.storage?.getItem(STORAGE_KEY);
      if (!text) return empty;
      const parsed = JSON.parse(text) as Partial<ToolConsoleSnapshot>;
      const drafts: Record<string, ToolDraft> = {};
      for (const [k, d] of Object.entries(parsed.drafts ?? {})) {
        if (d && typeof d === 'object') drafts[k] = { ...(d.value !== undefined ? { value: d.value } : {}), ...(typeof d.raw === 'string' ? { raw: d.raw } : {}) };
      }
      return { query: typeof parsed.query === 'string' ? parsed.query : '', selected: { ...(parsed.selected ?? {}) }, drafts };
    } catch {
      return empty;
    }
  }

  /** Writes a pending save now. */
  flush(): void {
    if (!this.saveTimer) return;
    clearTimeout(this.saveTimer);
    this.save();
  }

  private persist(): void {
    if (!this.storage || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.save(), 250);
  }

  private save(): void {
    this.saveTimer = undefined;
    const s = this.store.get();
    const drafts: Record<string, ToolDraft> = {};
    for (const [k, d] of Object.entries(s.drafts).slice(-MAX_STORED_DRAFTS)) drafts[k] = { value: d.value, raw: d.raw ?? null };
    try {
      this.storage?.setItem(STORAGE_KEY, JSON.stringify({ query: s.query, selected: s.selected, drafts }));
    } catch {
      // Storage full or off: drafts then last as long as the window.
    }
  }
}

function safeStorage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/** The one instance (created at first import, like the other app stores). */
export const toolConsoleState = new ToolConsoleState();
