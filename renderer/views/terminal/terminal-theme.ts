// xterm colours from the app's theme tokens (renderer/styles/tokens.css plus the terminal's own
// ANSI palette in terminal.css), read from the computed style of <html> so light and dark
// follow `data-theme` without a second source of truth.
import type { ITheme } from '@xterm/xterm';

const ANSI = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'] as const;

export function terminalTheme(root: Element = document.documentElement): ITheme {
  const css = getComputedStyle(root);
  const v = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback;
  const theme: ITheme = {
    background: v('--term-bg', '#ffffff'),
    foreground: v('--term-fg', '#1d1d22'),
    cursor: v('--term-cursor', '#3b5bdb'),
    cursorAccent: v('--term-bg', '#ffffff'),
    selectionBackground: v('--term-selection', '#c5d0fa'),
    scrollbarSliderBackground: v('--term-scrollbar', 'rgba(128,128,140,0.35)'),
    scrollbarSliderHoverBackground: v('--term-scrollbar-hover', 'rgba(128,128,140,0.55)'),
    scrollbarSliderActiveBackground: v('--term-scrollbar-hover', 'rgba(128,128,140,0.55)'),
  };
  const out = theme as Record<string, string>;
  for (const name of ANSI) {
    out[name] = v(`--term-${name}`, '');
    out[`bright${name[0]!.toUpperCase()}${name.slice(1)}`] = v(`--term-bright-${name}`, '');
  }
  for (const k of Object.keys(out)) if (!out[k]) delete out[k];
  return theme;
}

/** Calls `onChange` when the app switches light/dark (data-theme on <html>); returns a stop function. */
export function watchTheme(onChange: () => void): () => void {
  const mo = new MutationObserver(onChange);
  mo.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => mo.disconnect();
}

export function monoFont(): string {
  return getComputedStyle(document.documentElement).getPropertyValue('--font-mono').trim() || 'monospace';
}
