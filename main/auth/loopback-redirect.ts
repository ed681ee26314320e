// The redirect URI of a sign-in: a one-shot HTTP listener on 127.0.0.1 (RFC 8252 §7.3: a
// native app's loopback redirect), which accepts exactly one callback carrying the one-time
// `state` of each authorization it waits for (one at a time). A request with another state (a stale tab, a page
// trying to inject its own code) gets 400 and changes nothing.
import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export const CALLBACK_PATH = '/callback';

export interface CallbackParams {
  code?: string;
  state: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

export interface LoopbackRedirect {
  readonly url: string;
  readonly port: number;
  /** Arms a state: its callback is kept even when it arrives before wait(). */
  expect(state: string): void;
  /** Resolves with the one callback whose state matches, rejects on timeout or close(). */
  wait(state: string, timeoutMs: number): Promise<CallbackParams>;
  close(): Promise<void>;
}

function sameState(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui;margin:3rem"><h1>${title}</h1><p>${text}</p></body>`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startLoopbackRedirect(port = 0): Promise<LoopbackRedirect> {
  // Each authorization arms its state before the browser leaves (the redirect may come back
  // before anyone waits for it); a state is consumed by its first callback.
  const armed = new Map<string, { promise: Promise<CallbackParams>; resolve: (p: CallbackParams) => void; reject: (e: Error) => void; used: boolean }>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const state = url.searchParams.get('state') ?? '';
    const entry = [...armed].find(([s, e]) => !e.used && sameState(state, s))?.[1];
    if (!entry) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('Sign-in not accepted', 'This link does not belong to a sign-in Gatehouse is waiting for (it may have been used already). Start the sign-in again from Gatehouse.'));
      return;
    }
    entry.used = true;
    const params: CallbackParams = {
      state,
      ...(url.searchParams.has('code') ? { code: url.searchParams.get('code')! } : {}),
      ...(url.searchParams.has('iss') ? { iss: url.searchParams.get('iss')! } : {}),
      ...(url.searchParams.has('error') ? { error: url.searchParams.get('error')! } : {}),
      ...(url.searchParams.has('error_description') ? { errorDescription: url.searchParams.get('error_description')! } : {}),
    };
    const ok = params.code !== undefined && params.error === undefined;
    res
      .writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
      .end(ok ? page('Signed in', 'Gatehouse received the sign-in. You can close this tab.') : page('Sign-in failed', escapeHtml(params.errorDescription ?? params.error ?? 'no authorization code')));
    entry.resolve(params);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const arm = (state: string) => {
    let entry = armed.get(state);
    if (!entry) {
      let resolve!: (p: CallbackParams) => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<CallbackParams>((a, b) => {
        resolve = a;
        reject = b;
      });
      promise.catch(() => {});
      entry = { promise, resolve, reject, used: false };
      armed.set(state, entry);
    }
    return entry;
  };
  return {
    url: `http://127.0.0.1:${actual}${CALLBACK_PATH}`,
    port: actual,
    expect(state) {
      arm(state);
    },
    wait(state, timeoutMs) {
      const entry = arm(state);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no sign-in arrived within ${Math.round(timeoutMs / 1000)}s`)), timeoutMs);
        timer.unref();
      });
      return Promise.race([entry.promise, timeout]).finally(() => {
        clearTimeout(timer);
        armed.delete(state);
      });
    },
    async close() {
      for (const e of armed.values()) e.reject(new Error('sign-in cancelled'));
      armed.clear();
      await new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}

/**
 * `--headless`: follow the authorization server's redirects without a browser until they reach
 * our redirect URI, then deliver that request to the loopback listener, as a browser would.
 * Only for authorization servers that approve without a person (test servers).
 */
export async function followAuthorizationHeadless(authorizationUrl: URL, redirectUri: string, fetchFn: typeof fetch = fetch): Promise<void> {
  let next = authorizationUrl.href;
  for (let hop = 0; hop < 10; hop++) {
    if (next.startsWith(`${redirectUri}?`) || next === redirectUri) {
      const res = await fetchFn(next, { redirect: 'manual' });
      await res.body?.cancel().catch(() => {});
      return;
    }
    const res = await fetchFn(next, { redirect: 'manual' });
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      next = new URL(location, next).href;
      continue;
    }
    throw new Error(
      `the authorization server answered ${res.status} without redirecting back (it wants a person to sign in); run without --headless to sign in in a browser`,
    );
  }
  throw new Error('the authorization server redirected more than 10 times');
}
