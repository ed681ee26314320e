// Sign-in (docs/auth.md "Signing in") in a real Chromium against the real headless shell: a local OAuth authorization
// server and an MCP server it protects (tests/support/oauth-servers.ts, on loopback), a profile
// with `auth: oauth`. The Servers view shows "sign-in needed"; Sign in gives the authorization
// link (the headless shell cannot open a browser itself), which the test's page follows through
// the authorization server's redirect to Gatehouse's loopback callback; calls then work; a
// forced expiry is refreshed without a second sign-in; Sign out removes the tokens from the
// store. Finally the data dir and the shell's output are searched for every token and secret.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { gotoView, openApp, shot } from './support/app';
import { startServe, type ServeHandle } from './support/serve';
import { startOAuthServers, type OAuthServers } from '../support/oauth-servers';
import { EncryptedFileStore } from '../../main/auth/encrypted-file-store';

test.describe.configure({ mode: 'serial' });

let servers: OAuthServers;
let serve: ServeHandle;

test.beforeAll(async () => {
  servers = await startOAuthServers({ accessTokenTtlS: 3600 });
  serve = await startServe({
    env: { GATEHOUSE_SECRET_STORE: 'file' },
    profiles: {
      'oauth-e2e.yaml': `name: oauth-e2e
workspace: \${scratch}
servers:
  remote:
    url: ${servers.mcpUrl}
    transport: streamable-http
    auth: oauth
policy:
  default: allow
`,
    },
  });
});

test.afterAll(async () => {
  await serve?.stop();
  await servers?.close();
});

const callText = async (page: import('@playwright/test').Page, launchId: string, name: string, args: Record<string, unknown> = {}) => {
  const r = await callFromPage(page, 'tools:call', { launchId, name, arguments: args });
  if (r.error) return `error: ${r.error}`;
  return (r.result?.content ?? []).map((c) => String((c as { text?: string }).text ?? '')).join('\n');
};

test('sign-in needed → Sign in through the redirect → calls work → refresh after a forced expiry → Sign out; no token anywhere', async ({ page, context }, testInfo) => {
  await openApp(page, serve);
  await gotoView(page, 'Profiles');
  const card = page.getByRole('region', { name: 'oauth-e2e', exact: true });
  await card.getByRole('button', { name: 'Launch', exact: true }).click();
  await expect(card.getByRole('button', { name: 'Stop', exact: true })).toBeVisible({ timeout: 60_000 });

  await gotoView(page, 'Servers');
  const banner = page.getByRole('status').filter({ hasText: 'Sign-in needed for remote' });
  await expect(banner).toBeVisible({ timeout: 30_000 });
  const row = page.getByRole('table', { name: 'Servers of oauth-e2e' }).getByRole('row').filter({ has: page.getByRole('button', { name: 'Details of remote', exact: true }) });
  await expect(row).toContainText('sign-in needed');
  expect(servers.counts.authorizations).toBe(0);
  await shot(page, testInfo, 'sign-in-needed');

  // Sign in: the headless shell hands the window the authorization link.
  await banner.getByRole('button', { name: 'Sign in' }).click();
  const link = page.getByTestId('sign-in-link');
  await expect(link).toBeVisible();
  const href = (await link.getAttribute('href'))!;
  expect(href.startsWith(`${servers.asUrl}/authorize?`)).toBe(true);
  // The shell printed the same link on its stderr (for a person without a window).
  expect(serve.stderr()).toContain(href);
  // The person's browser: follows the authorization server's redirect to the loopback callback.
  const browser = await context.newPage();
  await browser.goto(href);
  await expect(browser.getByRole('heading', { name: 'Signed in' })).toBeVisible();
  expect(new URL(browser.url()).origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  await browser.close();

  await expect(page.getByText('Signed in', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(row).toContainText('ready', { timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await shot(page, testInfo, 'signed-in');

  const [launch] = await callFromPage(page, 'launches:list', {});
  expect(launch!.servers[0]!.auth).toMatchObject({ state: 'signed-in', issuer: servers.asUrl });
  expect(await callText(page, launch!.id, 'whoami')).toMatch(/^hello client_/);

  // Forced expiry: the token dies upstream; the next call refreshes it, no second sign-in.
  servers.expireAccessTokens();
  expect(await callText(page, launch!.id, 'echo', { text: 'still signed in' })).toBe('still signed in');
  expect(servers.counts.refreshes).toBeGreaterThanOrEqual(1);
  expect(servers.counts.authorizations).toBe(1);

  // Sign out: the tokens leave the store; the server shows sign-in needed again.
  const store = new EncryptedFileStore({ dataDir: serve.dataDir, kind: 'encrypted-file' });
  expect(store.keys().some((k) => k.startsWith('oauth:tokens:'))).toBe(true);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Sign-in needed for remote' })).toBeVisible({ timeout: 30_000 });
  expect(store.keys().some((k) => k.startsWith('oauth:tokens:'))).toBe(false);

  // The leak search: every file of the shell's data dir (audit store, WAL, secret store) and
  // everything it printed, for every token and client secret the authorization server issued.
  const secrets = servers.issuedSecrets();
  expect(secrets.length).toBeGreaterThanOrEqual(5);
  const texts: Array<[string, string]> = [['stderr', serve.stderr()]];
  for (const name of readdirSync(serve.dataDir, { recursive: true }) as string[]) {
    const file = path.join(serve.dataDir, name);
    if (statSync(file).isFile()) texts.push([name, readFileSync(file).toString('latin1')]);
  }
  expect(texts.some(([n, t]) => n.startsWith('gatehouse.db') && t.includes('still signed in'))).toBe(true);
  for (const s of secrets) for (const [where, text] of texts) expect(text.includes(s), `${s.slice(0, 6)}… in ${where}`).toBe(false);
});
