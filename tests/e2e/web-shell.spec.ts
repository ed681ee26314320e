// The headless shell in a real Chromium: login, the guards on /api, the app, and the demo
// profile launched against the real host.
import http from 'node:http';
import WebSocket from 'ws';
import { test, expect } from './support/serve';
import { callFromPage } from './support/page-api';

/** Status of a WebSocket upgrade to /api with the given headers (101 = accepted). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.on('error', reject);
  });
}

function rawGet(origin: string, pathname: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}${pathname}`, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

test.describe('web shell', () => {
  test('without logging in, the app and /api are closed', async ({ serve, request }) => {
    const res = await request.get(`${serve.origin}/`);
    expect(res.status()).toBe(401);
    expect(await res.text()).toContain('Open the login URL printed in the terminal');
    expect(res.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers()['x-content-type-options']).toBe('nosniff');
    expect(await upgradeStatus(`${serve.origin.replace('http', 'ws')}/api`, { Origin: serve.origin })).toBe(403);
    const wrong = await request.get(`${serve.origin}/login?code=not-the-code`, { maxRedirects: 0 });
    expect(wrong.status()).toBe(403);
    // Neither the session secret nor a login code reaches a stderr that is not a terminal.
    expect(serve.stderr()).not.toMatch(/gatehouse_\d+=/);
    expect(serve.stderr()).not.toMatch(/code=/);
    expect(serve.stderr()).toContain('the login URL is not printed here');
  });

  test('the login code works once, sets an HttpOnly SameSite=Strict cookie and leaves no code in the URL', async ({ serve, page, context, request }) => {
    const login = await serve.freshLoginUrl();
    await page.goto(login);
    await expect(page).toHaveURL(`${serve.origin}/`);
    const cookies = await context.cookies(serve.origin);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    // Used once: the same code no longer works.
    const again = await request.get(login, { maxRedirects: 0 });
    expect(again.status()).toBe(403);
    await page.screenshot({ path: test.info().outputPath('after-login.png') });
  });

  test('/api refuses a foreign Origin or a wrong Host even with the cookie; accepts its own', async ({ serve, page, context }) => {
    await page.goto(await serve.freshLoginUrl());
    const [cookie] = await context.cookies(serve.origin);
    const cookieHeader = `${cookie!.name}=${cookie!.value}`;
    const wsUrl = `${serve.origin.replace('http', 'ws')}/api`;
    expect(await upgradeStatus(wsUrl, { Cookie: cookieHeader, Origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus(wsUrl, { Cookie: cookieHeader })).toBe(403);
    expect(await upgradeStatus(wsUrl, { Cookie: `${cookie!.name}=forged`, Origin: serve.origin })).toBe(403);
    expect(await upgradeStatus(wsUrl, { Cookie: cookieHeader, Origin: serve.origin })).toBe(101);
    // DNS rebinding: a page on another name that resolves to 127.0.0.1 is refused by Host.
    const rebound = await rawGet(serve.origin, '/', { Host: `evil.example:${new URL(serve.origin).port}`, Cookie: cookieHeader });
    expect(rebound.status).toBe(421);
    // Path traversal finds nothing outside the renderer folder, and folders are not listed.
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/assets/', '/..%2fpackage.json']) {
      const r = await rawGet(serve.origin, p, { Cookie: cookieHeader });
      expect.soft(r.status, p).toBeGreaterThanOrEqual(400);
      expect.soft(r.body, p).not.toContain('"name": "gatehouse"');
    }
  });

  test('the app loads under the strict CSP', async ({ serve, page }) => {
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(await serve.freshLoginUrl());
    await expect(page).toHaveTitle(/Gatehouse/);
    await expect(page.locator('#root > *').first()).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('app.png'), fullPage: true });
    expect(problems.filter((p) => /Content Security Policy|Refused to/i.test(p))).toEqual([]);
  });

  test('profiles:list shows the demo, and launching it makes its servers ready', async ({ serve, page }) => {
    await page.goto(await serve.freshLoginUrl());
    const profiles = await callFromPage(page, 'profiles:list', {});
    const demo = profiles.find((p) => p.name === 'demo');
    expect(demo, JSON.stringify(profiles)).toBeTruthy();
    expect(demo!.error).toBeUndefined();
    expect(demo!.servers).toEqual(['workspace', 'files', 'memory']);

    const launch = await callFromPage(page, 'profiles:launch', { ref: 'demo' });
    expect(launch.servers.map((s) => [s.id, s.state])).toEqual([
      ['workspace', 'ready'],
      ['files', 'ready'],
      ['memory', 'ready'],
    ]);
    expect(launch.gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const info = await callFromPage(page, 'host:info', {});
    expect(info).toMatchObject({ shell: 'web', dataDir: serve.dataDir });
    // The app (its own WebSocket client) shows the launched demo after a reload.
    await page.reload();
    await expect(page.getByRole('list', { name: 'Profiles' })).toContainText('demo');
    await page.screenshot({ path: test.info().outputPath('demo-launched.png'), fullPage: true });
    expect(await callFromPage(page, 'profiles:stop', { launchId: launch.id })).toEqual({ ok: true });
  });
});
