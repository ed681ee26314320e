// Who may use the headless shell: whoever can read the login URL that `gatehouse serve` shows
// only where the person alone can read it (./login-code-sink.ts: its terminal, the browser it
// opens, or a 0600 file in the data dir that the sandbox hides from agents).
//
// The URL carries a one-time code. GET /login exchanges the code (once, within ten minutes) for
// an HttpOnly, SameSite=Strict cookie holding a random session secret, and redirects to `/`, so
// the code is not what stays in the address bar or history, and the secret itself is never
// printed or put in a URL. After each use (or expiry) a fresh code is published, so a second
// browser can log in without restarting.
//
// These credentials are not the gateway token: an agent holding GATEHOUSE_TOKEN can call
// tools but can never answer an approval, which needs this cookie.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const CODE_TTL_MS = 10 * 60_000;

export interface WebAuthOptions {
  /** Called with each fresh code (print the login URL). */
  onCode?: (code: string) => void;
  now?: () => number;
}

export class WebAuth {
  /** Cookie name; carries the port so two shells on one machine do not overwrite each other. */
  readonly cookieName: string;
  private readonly secret = randomBytes(32).toString('base64url');
  private code = '';
  private codeExpiresAt = 0;
  private readonly now: () => number;

  constructor(
    port: number,
    private readonly opts: WebAuthOptions = {},
  ) {
    this.cookieName = `gatehouse_${port}`;
    this.now = opts.now ?? Date.now;
  }

  /** A new one-time code (the previous one stops working). */
  rotate(): string {
    this.code = randomBytes(24).toString('base64url');
    this.codeExpiresAt = this.now() + CODE_TTL_MS;
    this.opts.onCode?.(this.code);
    return this.code;
  }

  /**
   * The session secret for a valid, unused, unexpired code; undefined otherwise. A used or
   * expired code makes a fresh one (printed), so the terminal always holds a URL that works.
   */
  exchange(code: string | null): string | undefined {
    if (!this.code) return undefined;
    if (this.now() > this.codeExpiresAt) {
      this.rotate();
      return undefined;
    }
    if (typeof code !== 'string' || !sameSecret(code, this.code)) return undefined;
    this.rotate();
    return this.secret;
  }

  setCookieHeader(secret: string): string {
    // No Secure flag: the shell is plain http on 127.0.0.1. Path=/ covers the app and /api.
    return `${this.cookieName}=${secret}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** True when the Cookie header carries this run's session secret. */
  authorized(cookieHeader: string | undefined): boolean {
    if (!cookieHeader) return false;
    for (const part of cookieHeader.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      if (part.slice(0, eq).trim() !== this.cookieName) continue;
      if (sameSecret(part.slice(eq + 1).trim(), this.secret)) return true;
    }
    return false;
  }
}

/** Constant-time comparison; hashing first makes the lengths equal (timingSafeEqual needs that). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
