// Running launches and their servers, kept current by `launch:changed` and `server:status`.
// The active launch is the one the top bar selects; views that need "the" launch read it.
import { Store } from './store';
import type { LaunchSummary, ServerStatus } from './types';

export interface LaunchesState {
  launches: LaunchSummary[];
  activeId: string | null;
  /** Set once the first snapshot arrived, so views can tell "none" from "not loaded yet". */
  loaded: boolean;
}

const ACTIVE_KEY = 'gatehouse.activeLaunch';

export class LaunchesStore extends Store<LaunchesState> {
  constructor() {
    super({ launches: [], activeId: null, loaded: false });
  }

  replace(launches: LaunchSummary[]): void {
    this.update((s) => ({ launches, activeId: pickActive(launches, s.activeId), loaded: true }));
  }

  applyLaunchChanged(launch: LaunchSummary, stopped?: boolean): void {
    this.update((s) => {
      const rest = s.launches.filter((l) => l.id !== launch.id);
      const exists = rest.length !== s.launches.length;
      let launches: LaunchSummary[];
      if (stopped) launches = rest;
      else if (exists) launches = s.launches.map((l) => (l.id === launch.id ? launch : l));
      else launches = [...s.launches, launch];
      // A launch that just started becomes active: that is what the user clicked Launch for.
      const activeId = !stopped && !exists ? launch.id : pickActive(launches, s.activeId);
      return { ...s, launches, activeId };
    });
  }

  applyServerStatus(launchId: string, status: ServerStatus): void {
    this.update((s) => {
      const i = s.launches.findIndex((l) => l.id === launchId);
      const launch = s.launches[i];
      if (!launch) return s;
      const servers = launch.servers.some((x) => x.id === status.id)
        ? launch.servers.map((x) => (x.id === status.id ? status : x))
        : [...launch.servers, status];
      const launches = s.launches.slice();
      launches[i] = { ...launch, servers };
      return { ...s, launches };
    });
  }

  setActive(id: string | null): void {
    this.update((s) => ({ ...s, activeId: id }));
    try {
      if (id) globalThis.localStorage?.setItem(ACTIVE_KEY, id);
    } catch {}
  }

  active(): LaunchSummary | undefined {
    const s = this.get();
    return s.launches.find((l) => l.id === s.activeId);
  }
}

function pickActive(launches: LaunchSummary[], current: string | null): string | null {
  if (current && launches.some((l) => l.id === current)) return current;
  let remembered: string | null = null;
  try {
    remembered = globalThis.localStorage?.getItem(ACTIVE_KEY) ?? null;
  } catch {}
  if (remembered && launches.some((l) => l.id === remembered)) return remembered;
  return launches.at(-1)?.id ?? null;
}

/** The launch (if any) running a given profile, matched by file first, then by name. */
export function launchForProfile(launches: LaunchSummary[], profile: { name: string; file: string }): LaunchSummary | undefined {
  return launches.find((l) => l.profileFile === profile.file) ?? launches.find((l) => l.profile === profile.name);
}
