// What the command palette (components/command-palette.tsx) offers: every view, launching a
// profile, the approvals tray and its answers, Traffic's filters, the theme. Allow is not offered:
// it waits until every argument has been on screen (approval-card.tsx), which only the card can
// tell; Deny never waits, so "Deny the oldest request" is here.
import { useMemo } from 'react';
import type { HostApi } from '../common/host-api';
import type { PaletteCommand } from './components/palette-search';
import { shortcutLabel, VIEW_KEY_COUNT } from './components/shortcuts';
import type { useToast } from './components/toasts';
import type { TrafficStore } from './lib/traffic-store';
import type { AppState } from './state/app-state';
import { navigate, type ViewId } from './state/nav-store';
import { setTheme } from './state/theme';
import type { ProfileSummary } from './state/types';

export interface AppCommandDeps {
  api: HostApi;
  state: AppState;
  toast: ReturnType<typeof useToast>;
  traffic: TrafficStore;
  views: ReadonlyArray<{ id: ViewId; label: string }>;
  profiles: readonly ProfileSummary[];
  runningProfiles: ReadonlySet<string>;
  focusTray: () => void;
  toggleTray: () => void;
  showShortcuts: () => void;
}

export function useAppCommands(d: AppCommandDeps): PaletteCommand[] {
  const { api, state, toast, traffic, views, profiles, runningProfiles, focusTray, toggleTray, showShortcuts } = d;
  return useMemo(() => {
    const launch = async (p: ProfileSummary): Promise<void> => {
      try {
        const l = await api.call('profiles:launch', { ref: p.file });
        state.launches.applyLaunchChanged(l);
        state.launches.setActive(l.id);
        toast.show({ tone: 'ok', title: `Launched ${l.profile}` });
      } catch (e) {
        toast.error(`Could not launch ${p.name}`, e);
      }
    };
    const denyOldest = async (): Promise<void> => {
      const oldest = state.approvals.get().pending[0];
      if (!oldest) {
        toast.show({ tone: 'info', title: 'Nothing waits for an answer' });
        return;
      }
      try {
        const res = await api.call('approvals:answer', { id: oldest.id, choice: 'deny' });
        if (!res.ok) toast.show({ tone: 'warn', title: 'That request is no longer pending' });
      } catch (e) {
        toast.error(`Could not deny ${oldest.advertisedName ?? oldest.tool}`, e);
      }
    };
    return [
      ...views.map((v, i): PaletteCommand => ({ id: `view:${v.id}`, group: 'View', title: `Open ${v.label}`, ...(i < VIEW_KEY_COUNT ? { keys: shortcutLabel(`alt+${i + 1}`) } : {}), run: () => navigate(v.id) })),
      ...profiles
        .filter((p) => !p.error && !runningProfiles.has(p.name))
        .map((p): PaletteCommand => ({ id: `launch:${p.file}`, group: 'Launch', title: `Launch ${p.name}`, run: () => void launch(p) })),
      { id: 'approvals:focus', group: 'Approvals', title: 'Answer approvals: focus the tray', keys: shortcutLabel('alt+a'), run: focusTray },
      { id: 'approvals:deny-oldest', group: 'Approvals', title: 'Deny the oldest pending request', run: () => void denyOldest() },
      { id: 'approvals:tray', group: 'Approvals', title: 'Show or hide the approvals tray', keys: shortcutLabel('alt+t'), run: toggleTray },
      {
        id: 'traffic:clear-filters',
        group: 'Traffic',
        title: 'Clear Traffic filters',
        run: () => {
          traffic.setFilter({});
          navigate('traffic');
        },
      },
      { id: 'theme:light', group: 'Theme', title: 'Light theme', run: () => setTheme('light') },
      { id: 'theme:dark', group: 'Theme', title: 'Dark theme', run: () => setTheme('dark') },
      { id: 'theme:system', group: 'Theme', title: 'System theme', run: () => setTheme('system') },
      { id: 'help:shortcuts', group: 'Help', title: 'Keyboard shortcuts', keys: '?', run: showShortcuts },
    ];
  }, [api, state, toast, traffic, views, profiles, runningProfiles, focusTray, toggleTray, showShortcuts]);
}
