// Keyboard shortcuts. A shortcut is a key description like `mod+1`, `shift+?`, `a`;
// `mod` is Cmd on macOS and Ctrl elsewhere. Single-letter shortcuts never fire while the user
// types in a field, so `A` in an approval card cannot eat a letter meant for a form.
import { useEffect, useRef } from 'react';

export interface ShortcutSpec {
  key: string;
  mod?: boolean;
  shift?: boolean;
  alt?: boolean;
}

export function parseShortcut(text: string): ShortcutSpec {
  const parts = text.toLowerCase().split('+');
  const key = parts.pop() ?? '';
  return { key, mod: parts.includes('mod'), shift: parts.includes('shift'), alt: parts.includes('alt') };
}

const isMac = (): boolean => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

export function matchesShortcut(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>, spec: ShortcutSpec, mac = isMac()): boolean {
  const mod = mac ? e.metaKey : e.ctrlKey;
  const otherMod = mac ? e.ctrlKey : e.metaKey;
  if (Boolean(spec.mod) !== mod || otherMod) return false;
  if (Boolean(spec.alt) !== e.altKey) return false;
  const key = e.key.toLowerCase();
  // `?` arrives with shift held on most layouts; do not demand the user declare it.
  if (spec.key.length === 1 && !/[a-z0-9]/.test(spec.key)) return key === spec.key;
  if (Boolean(spec.shift) !== e.shiftKey) return false;
  return key === spec.key;
}

/** A label for a shortcut as this platform writes it: `⌘1` / `Ctrl+1`. */
export function shortcutLabel(text: string, mac = isMac()): string {
  const s = parseShortcut(text);
  const key = s.key.length === 1 ? s.key.toUpperCase() : s.key[0]?.toUpperCase() + s.key.slice(1);
  if (mac) return `${s.mod ? '⌘' : ''}${s.alt ? '⌥' : ''}${s.shift ? '⇧' : ''}${key}`;
  return [s.mod ? 'Ctrl' : '', s.alt ? 'Alt' : '', s.shift ? 'Shift' : '', key].filter(Boolean).join('+');
}

export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as HTMLElement).closest !== 'function') return false;
  const el = target as HTMLElement;
  if (el.isContentEditable) return true;
  return Boolean(el.closest('input, textarea, select, [contenteditable="true"], [role="textbox"]'));
}

export type ShortcutMap = Record<string, (e: KeyboardEvent) => void>;

/**
 * Binds shortcuts on `document` (or only while focus is inside `scope`). Handlers are read
 * through a ref, so passing a fresh object each render does not rebind listeners.
 */
export function useShortcuts(map: ShortcutMap, opts: { scope?: { current: HTMLElement | null }; enabled?: boolean } = {}): void {
  const ref = useRef(map);
  ref.current = map;
  const { scope, enabled = true } = opts;
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.repeat) return;
      if (scope && !(scope.current && e.target instanceof Node && scope.current.contains(e.target))) return;
      for (const [text, handler] of Object.entries(ref.current)) {
        const spec = parseShortcut(text);
        // A letter typed in a field is text; F6 or Escape is not, so those still reach the app.
        const plain = !spec.mod && !spec.alt && spec.key.length === 1;
        if (plain && isTypingTarget(e.target)) continue;
        if (matchesShortcut(e, spec)) {
          e.preventDefault();
          handler(e);
          return;
        }
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [scope, enabled]);
}

/** Alt+1…9 open the first nine views; the rest are in the command palette (a tenth digit key does not exist). */
export const VIEW_KEY_COUNT = 9;

/**
 * The keys that leave the Terminal for the app: F6 / Shift+F6 (the next / previous region, as in
 * browsers), Alt+A (the approvals tray), Alt+T (show or hide it) and Alt+1…9 (a view). xterm hands
 * them back to the page instead of sending them to the shell (terminal-pane.tsx). Esc, Tab and
 * Ctrl+letters stay in the shell: shells and editors need them.
 */
export const TERMINAL_PASSTHROUGH: readonly string[] = ['f6', 'shift+f6', 'alt+a', 'alt+t', ...Array.from({ length: VIEW_KEY_COUNT }, (_, i) => `alt+${i + 1}`)];

export function leavesTerminal(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>, mac = isMac()): boolean {
  return TERMINAL_PASSTHROUGH.some((text) => matchesShortcut(e, parseShortcut(text), mac));
}

/** What the shortcut list (the `?` dialog) shows, in order; the command palette lists the same actions. */
export interface ShortcutRow {
  keys: string[];
  does: string;
}

export function shortcutRows(views: ReadonlyArray<{ label: string }>, mac = isMac()): ShortcutRow[] {
  const l = (t: string) => shortcutLabel(t, mac);
  return [
    ...views.slice(0, VIEW_KEY_COUNT).map((v, i) => ({ keys: [l(`mod+${i + 1}`), l(`alt+${i + 1}`)], does: `Open ${v.label}` })),
    { keys: [l('mod+k')], does: 'Command palette: every view and action by name' },
    { keys: ['F6', l('shift+f6')], does: 'Move focus to the next / previous region (navigation, view, approvals tray); leaves the Terminal' },
    { keys: [l('alt+r')], does: 'Open Resources' },
    { keys: [l('alt+p')], does: 'Open Prompts' },
    { keys: [l('alt+a')], does: 'Focus the approvals tray (works inside the Terminal too)' },
    { keys: [l('alt+t')], does: 'Show or hide the approvals tray' },
    { keys: ['A'], does: 'Allow once (approval focused)' },
    { keys: ['S'], does: 'Allow for session (approval focused)' },
    { keys: ['D'], does: 'Deny (approval focused)' },
    { keys: ['T'], does: 'Allow the tool for the session (approval focused)' },
    { keys: ['J'], does: 'Next approval (approvals focused)' },
    { keys: ['K'], does: 'Previous approval (approvals focused)' },
    { keys: ['E'], does: "Show the approval's exchange in Traffic (approval focused)" },
    { keys: ['Esc'], does: 'Leave the approvals tray, back to where you were' },
    { keys: [l('mod+enter')], does: 'Call the tool (Tool console); send a reply (question card)' },
    { keys: ['?'], does: 'This list' },
  ];
}
