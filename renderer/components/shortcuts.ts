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
        const plain = !spec.mod && !spec.alt;
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
