// The one origin the window's content comes from. Pure (no electron import) so the policies
// built on it run under vitest on plain Node.
export const APP_SCHEME = 'app';
export const APP_HOST = 'gatehouse';
/** `app://gatehouse` (a standard scheme, so it has a real origin). */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_START_URL = `${APP_ORIGIN}/index.html`;

/** True when `url` parses and is on our origin (scheme and host, nothing else counts). */
export function isAppUrl(url: string | undefined | null): boolean {
  if (typeof url !== 'string' || url.length === 0) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  // `host` (not `hostname`) so `app://gatehouse:1234/` is refused; userinfo is refused too.
  return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
}
