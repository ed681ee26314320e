// Which view is shown, kept in the URL hash (`#/servers`) so a reload lands where you were.
// A view may be opened with a focus (e.g. Traffic on one exchange, from the tool console).
import { Store } from './store';

export const VIEW_IDS = ['profiles', 'servers', 'traffic', 'logs', 'terminal', 'approvals', 'tools', 'connect', 'audit', 'secrets', 'resources', 'prompts'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export interface NavState {
  view: ViewId;
  /** An exchange the Traffic view should reveal; a server the Logs/Servers view should select. */
  focus?: { exchange?: string; server?: string };
}

function fromHash(): ViewId {
  const h = globalThis.location?.hash?.replace(/^#\/?/, '') ?? '';
  return (VIEW_IDS as readonly string[]).includes(h) ? (h as ViewId) : 'profiles';
}

export const navStore = new Store<NavState>({ view: fromHash() });

export function navigate(view: ViewId, focus?: NavState['focus']): void {
  navStore.set({ view, focus });
  try {
    if (globalThis.location && globalThis.location.hash !== `#/${view}`) globalThis.history?.replaceState(null, '', `#/${view}`);
  } catch {}
}

export function installNavigation(): void {
  globalThis.addEventListener?.('hashchange', () => {
    const view = fromHash();
    if (view !== navStore.get().view) navStore.set({ view });
  });
}
