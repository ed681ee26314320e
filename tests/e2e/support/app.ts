// Driving the app as a person would: the navigation, a profile's Launch button, the views.
// Each spec file starts its own `gatehouse serve` (own data dir, own profiles) with `serveForFile`.
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { startServe, type ServeHandle, type ServeOptions } from './serve';
import { callFromPage } from './page-api';

export type ViewName = 'Profiles' | 'Servers' | 'Traffic' | 'Logs' | 'Terminal' | 'Approvals' | 'Tool console' | 'Connect an agent' | 'Audit';

/**
 * A `gatehouse serve` for this spec file only (a worker-scoped fixture would be shared with the
 * next file the worker runs): started before its first test, stopped after its last.
 */
export function serveForFile(opts: ServeOptions = {}): { test: typeof base; serve: () => ServeHandle } {
  let handle: ServeHandle | undefined;
  base.beforeAll(async () => {
    handle = await startServe(opts);
  });
  base.afterAll(async () => {
    await handle?.stop();
  });
  return {
    test: base,
    serve: () => {
      if (!handle) throw new Error('gatehouse serve did not start');
      return handle;
    },
  };
}

/** Logs in with a fresh one-time URL and waits for the app to connect to the host. */
export async function openApp(page: Page, serve: ServeHandle): Promise<void> {
  await page.goto(await serve.freshLoginUrl());
  await expect(page.getByRole('status', { name: 'Host connection: Connected' })).toBeVisible();
}

export async function gotoView(page: Page, view: ViewName): Promise<void> {
  // The link's name is the view's, plus its badge when it has one ("Approvals 1 pending").
  const escaped = view.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: new RegExp(`^${escaped}( \\d+ pending)?$`) }).click();
  await expect(page.getByRole('main', { name: view })).toBeVisible();
}

/** Profiles → the profile's card → Launch; waits until every server of the launch is ready. */
export async function launchFromProfiles(page: Page, profile: string, servers: number): Promise<void> {
  await gotoView(page, 'Profiles');
  const card = page.getByRole('region', { name: profile, exact: true });
  await card.getByRole('button', { name: 'Launch', exact: true }).click();
  await expect(card.getByRole('button', { name: 'Stop', exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('banner', { name: 'Top bar' }).getByRole('button', { name: `${servers}/${servers} ready` })).toBeVisible({ timeout: 60_000 });
}

/**
 * The profile launched, whether an earlier test of this file launched it or not. Asks the host,
 * not the window: right after a (re)load the top bar has not heard of the launch yet, and a
 * "ready" button that is not there *yet* is no proof that nothing runs.
 */
export async function ensureLaunched(page: Page, profile: string, servers: number): Promise<void> {
  const launches = await callFromPage(page, 'launches:list', {});
  if (!launches.some((l) => l.profile === profile)) return launchFromProfiles(page, profile, servers);
  await expect(page.getByRole('banner', { name: 'Top bar' }).getByRole('button', { name: `${servers}/${servers} ready` })).toBeVisible({ timeout: 60_000 });
}

/** Stops every running launch (so the next spec starts clean even on a shared host). */
export async function stopAllLaunches(page: Page): Promise<void> {
  const launches = await callFromPage(page, 'launches:list', {});
  for (const l of launches) await callFromPage(page, 'profiles:stop', { launchId: l.id });
}

/** Saves a screenshot under test-results/ and attaches it to the report. */
export async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

export { expect };

/** The Traffic footer's "last N of M": events held in the window, and events the host has seen. */
export async function trafficLimits(page: Page): Promise<{ held: number; total: number }> {
  const text = (await page.locator('.traffic-limits').textContent()) ?? '';
  const m = /last ([\d,]+) of ([\d,]+)/.exec(text);
  if (!m) throw new Error(`unexpected footer text: ${text}`);
  return { held: Number(m[1]!.replace(/,/g, '')), total: Number(m[2]!.replace(/,/g, '')) };
}
