// The `app://gatehouse/` protocol: what a request URL maps to under out/renderer/, and the
// headers every response carries. Pure (path arithmetic only, no electron, no disk), so path
// traversal and the CSP are unit-tested on plain Node; main.ts does the reading.
import path from 'node:path';
import { APP_HOST, APP_SCHEME } from './app-origin';
import { contentTypeFor } from '../web/content-types';

/**
 * The window's Content-Security-Policy. Unlike the web shell's, `connect-src` is `'self'` only:
 * the Electron window reaches the host over IPC, never over a socket. `'unsafe-inline'` styles
 * are for React's style attributes; scripts are never inline.
 */
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'";

export type AppRequestResolution =
  | { ok: true; file: string; contentType: string }
  | { ok: false; status: 400 | 403 | 404 | 405; reason: string };

/**
 * Maps a request on `app://gatehouse/…` to a file inside `rootDir` (an absolute path), or says
 * why not. `/` is the app; hash routes never reach here. Encoded separators (`%2f`, `%5c`), NUL,
 * dot segments that survive URL parsing and anything resolving outside the root are refused.
 * The caller still has to find a regular file there (404 otherwise; folders are never listed).
 */
export function resolveAppRequest(requestUrl: string, rootDir: string, method = 'GET'): AppRequestResolution {
  if (method !== 'GET' && method !== 'HEAD') return { ok: false, status: 405, reason: `method ${method} not allowed` };
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { ok: false, status: 400, reason: 'unparsable URL' };
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return { ok: false, status: 403, reason: `not on ${APP_SCHEME}://${APP_HOST}/` };
  // WHATWG URL parsing has already removed `.`/`..` segments (also as %2e). What is left is
  // decoded segment by segment, so an encoded slash cannot make a new segment.
  const segments: string[] = [];
  for (const raw of url.pathname.split('/')) {
    if (raw === '') continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return { ok: false, status: 400, reason: 'bad percent-encoding in path' };
    }
    if (seg === '.' || seg === '..' || /[/\\\0]/.test(seg) || /^[A-Za-z]:/.test(seg)) return { ok: false, status: 400, reason: 'bad path segment' };
    segments.push(seg);
  }
  if (segments.length === 0 || url.pathname.endsWith('/')) segments.push('index.html');
  const root = path.resolve(rootDir);
  const file = path.resolve(root, ...segments);
  const inside = path.relative(root, file);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return { ok: false, status: 403, reason: 'outside the app folder' };
  return { ok: true, file, contentType: contentTypeFor(file) };
}

/** Headers on every response of the protocol, errors included. */
export function appResponseHeaders(contentType: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Security-Policy': APP_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
}
