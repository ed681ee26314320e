// Light / dark / system, remembered in localStorage and applied as data-theme on <html>.
import { Store } from './store';

export type ThemePreference = 'light' | 'dark' | 'system';
const KEY = 'gatehouse.theme';

function readPreference(): ThemePreference {
  try {
    const v = globalThis.localStorage?.getItem(KEY);
    if (v === 'light' || v === 'dark' || v === 'system') return v;
  } catch {}
  return 'system';
}

function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

export const themeStore = new Store<ThemePreference>(readPreference());

export function resolvedTheme(pref: ThemePreference): 'light' | 'dark' {
  if (pref === 'system') return systemDark() ? 'dark' : 'light';
  return pref;
}

function apply(): void {
  if (typeof document === 'undefined') return;
  document.documentElement.dataset.theme = resolvedTheme(themeStore.get());
}

export function setTheme(pref: ThemePreference): void {
  themeStore.set(pref);
  try {
    globalThis.localStorage?.setItem(KEY, pref);
  } catch {}
  apply();
}

/** Call once before the first render, so the page never flashes the wrong theme. */
export function installTheme(): void {
  apply();
  if (typeof matchMedia === 'function') {
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      if (themeStore.get() === 'system') apply();
    });
  }
}

export function nextTheme(pref: ThemePreference): ThemePreference {
  return pref === 'system' ? 'light' : pref === 'light' ? 'dark' : 'system';
}
