// The sign-in redirect listener: only the armed, one-time state gets through.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { followAuthorizationHeadless, startLoopbackRedirect } from './loopback-redirect';

describe('loopback redirect', () => {
  it('accepts the armed state once (even before anyone waits), refuses others, and listens on 127.0.0.1 only', async () => {
    const r = await startLoopbackRedirect();
    try {
      expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      r.expect('state-1');
      const wrong = await fetch(`${r.url}?code=evil&state=state-2`);
      expect(wrong.status).toBe(400);
      expect((await fetch(`http://127.0.0.1:${r.port}/other?state=state-1`)).status).toBe(404);
      const ok = await fetch(`${r.url}?code=good&state=state-1&iss=${encodeURIComponent('https://as.example')}`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('You can close this tab');
      await expect(r.wait('state-1', 5000)).resolves.toEqual({ state: 'state-1', code: 'good', iss: 'https://as.example' });
      // Used up: a replay is refused.
      expect((await fetch(`${r.url}?code=again&state=state-1`)).status).toBe(400);
      await expect(fetch(r.url.replace('127.0.0.1', '[::1]'))).rejects.toThrow();
    } finally {
      await r.close();
    }
  });

  it('reports an error response, and rejects waiters on close', async () => {
    const r = await startLoopbackRedirect();
    const pending = r.wait('s', 10_000);
    const res = await fetch(`${r.url}?error=access_denied&error_description=${encodeURIComponent('<b>no</b>')}&state=s`);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('<b>');
    await expect(pending).resolves.toMatchObject({ error: 'access_denied' });
    const never = r.wait('t', 10_000);
    await r.close();
    await expect(never).rejects.toThrow(/cancelled/);
  });

  it('headless: follows redirects to the callback, and says so when the server shows a page instead', async () => {
    const r = await startLoopbackRedirect();
    r.expect('abc');
    const as = createServer((req, res) => {
      if (req.url?.startsWith('/authorize')) res.writeHead(302, { location: '/step2' }).end();
      else if (req.url === '/step2') res.writeHead(302, { location: `${r.url}?code=c1&state=abc` }).end();
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<form>log in</form>');
    });
    await new Promise<void>((resolve) => as.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;
    try {
      await followAuthorizationHeadless(new URL(`${base}/authorize?x=1`), r.url);
      await expect(r.wait('abc', 5000)).resolves.toMatchObject({ code: 'c1' });
      await expect(followAuthorizationHeadless(new URL(`${base}/login`), r.url)).rejects.toThrow(/answered 200 without redirecting back .*without --headless/);
    } finally {
      as.close();
      await r.close();
    }
  });
});
