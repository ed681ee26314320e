// Navigation, new windows, external links and permissions (Electron security checklist items
// 5, 13, 14 and 15). Pure, so the decisions are unit-tested; main.ts only wires them to events.
import { isAppUrl } from './app-origin';

/** `will-navigate` / `will-redirect`: only within our own origin (a reload, a hash route). */
export function allowNavigation(url: string): boolean {
  return isAppUrl(url);
}

/**
 * A link the renderer asked to open (window.open or target=_blank): the window is always denied;
 * an http(s) URL may be handed to the OS browser. Returns the URL to pass to
 * `shell.openExternal`, or undefined. Anything else (file:, javascript:, smb:, custom schemes
 * that launch local programs) is dropped: openExternal with those is a known RCE vector.
 */
export function externalUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.hostname === '' || parsed.username !== '' || parsed.password !== '') return undefined;
  return parsed.href;
}

/** Web permissions the window may have: desktop notifications for approvals, nothing else. */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['notifications']);

export function allowPermission(permission: string, requestingUrl: string | undefined): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingUrl);
}
