// The first hour in the window (docs/ui-layout.md, "The Profiles view while a profile runs"):
// a running profile's card says how many servers wait for trust review and links to them; a
// profile edited on disk while it runs says "changed — Relaunch", and Relaunch runs the new file;
// Stop asks before it closes a running terminal (Cancel keeps it, confirming stops); after
// Launch a dismissible panel says what to do next, with links that open those views.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot, stopAllLaunches } from './support/app';

const HOUR = `
name: e2e-hour
workspace: \${scratch}
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: allow
`;
const FIXTURE = path.resolve('tests/fixtures/servers/trust-server.mjs');
const REVIEW = `
name: e2e-review
workspace: \${scratch}
servers:
  newcomer: ${JSON.stringify({ command: process.execPath, args: [FIXTURE] })}
policy:
  default: allow
`;

const { test, serve } = serveForFile({ profiles: { 'e2e-hour.yaml': HOUR, 'e2e-review.yaml': REVIEW }, unapproved: ['e2e-review.yaml'] });
test.describe.configure({ mode: 'serial' });

const card = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const launchIds = async (page: Page) => (await callFromPage(page, 'launches:list', {})).map((l) => l.id);

test('after Launch, a dismissible panel says what to do next, and its links open those views', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-hour', 1);
  const panel = page.getByRole('region', { name: 'Next steps' });
  await expect(panel).toContainText('e2e-hour is running. Next:');
  await shot(page, testInfo, 'next-steps');
  await panel.getByRole('button', { name: 'Connect an agent' }).click();
  await expect(page.getByRole('main', { name: 'Connect an agent' })).toBeVisible();
  await gotoView(page, 'Profiles');
  await panel.getByRole('button', { name: 'Open the Tool console' }).click();
  await expect(page.getByRole('main', { name: 'Tool console' })).toBeVisible();
  await gotoView(page, 'Profiles');
  await panel.getByRole('button', { name: 'Dismiss next steps' }).click();
  await expect(panel).toHaveCount(0);
  await stopAllLaunches(page);
});

test('Stop with a running terminal asks first, naming it: Cancel keeps it, confirming stops', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-hour', 1);
  const [launchId] = await launchIds(page);
  const opened = await callFromPage(page, 'terminals:open', { launchId: launchId!, preset: 'shell' });
  expect(opened.terminal, opened.unavailable).toBeDefined();

  await card(page, 'e2e-hour').getByRole('button', { name: 'Stop', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Stop e2e-hour?' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Terminals that will close' })).toContainText(opened.terminal!.title);
  // Keyboard: the focus starts on Cancel, the safe answer.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await shot(page, testInfo, 'stop-confirm');
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  expect(await launchIds(page)).toEqual([launchId]);
  expect((await callFromPage(page, 'terminals:list', { launchId: launchId! })).filter((t) => !t.exit)).toHaveLength(1);

  // Escape cancels too.
  await card(page, 'e2e-hour').getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  expect(await launchIds(page)).toEqual([launchId]);

  await card(page, 'e2e-hour').getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Stop and close the terminal' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(card(page, 'e2e-hour').getByRole('button', { name: 'Launch', exact: true })).toBeVisible({ timeout: 30_000 });
  expect(await launchIds(page)).toEqual([]);
  expect(await callFromPage(page, 'terminals:list', { launchId: launchId! })).toHaveLength(0);
});

test('a profile edited on disk while it runs says "changed — Relaunch", and Relaunch runs the new file', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-hour', 1);
  const [before] = await launchIds(page);
  const hint = card(page, 'e2e-hour').getByRole('status').filter({ hasText: 'changed on disk' });
  await expect(card(page, 'e2e-hour').getByRole('button', { name: 'Stop', exact: true })).toBeVisible();
  await expect(hint).toHaveCount(0);

  const file = path.join(serve().profilesDir, 'e2e-hour.yaml');
  appendFileSync(file, '# edited on disk while it ran\n');
  await expect(hint).toBeVisible({ timeout: 30_000 });
  await shot(page, testInfo, 'profile-changed');
  // A window that attaches late hears of it too.
  await page.reload();
  await expect(hint).toBeVisible({ timeout: 30_000 });

  await hint.getByRole('button', { name: 'Relaunch' }).click();
  await expect.poll(() => launchIds(page), { timeout: 60_000 }).toEqual([expect.not.stringMatching(`^${before}$`)]);
  await expect(card(page, 'e2e-hour').getByRole('button', { name: 'Stop', exact: true })).toBeVisible();
  await expect(hint).toHaveCount(0);
  const [launch] = await callFromPage(page, 'launches:list', {});
  expect(launch!.profileFile).toBe(file);
  expect(readFileSync(file, 'utf8')).toContain('# edited on disk');
  await stopAllLaunches(page);
});

test('a server waiting for trust review is counted on the profile card, and the count links to its review', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await gotoView(page, 'Profiles');
  await card(page, 'e2e-review').getByRole('button', { name: 'Launch', exact: true }).click();
  const link = card(page, 'e2e-review').getByRole('button', { name: '1 server waits for review' });
  await expect(link).toBeVisible({ timeout: 30_000 });
  await shot(page, testInfo, 'profile-review-count');
  await link.click();
  await expect(page.getByRole('main', { name: 'Servers' })).toBeVisible();
  const review = page.getByRole('article', { name: 'Launch review of newcomer' });
  await expect(review).toBeVisible();
  await review.getByRole('button', { name: 'Approve' }).click();
  await gotoView(page, 'Profiles');
  await expect(card(page, 'e2e-review').getByRole('button', { name: 'Stop', exact: true })).toBeVisible();
  await expect(link).toHaveCount(0);
  await stopAllLaunches(page);
});
