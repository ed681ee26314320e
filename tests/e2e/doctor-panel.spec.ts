// The first-run panel (renderer/views/doctor/doctor-panel.tsx) on a machine where bwrap is refused
// user namespaces the way Ubuntu's AppArmor refuses them: GATEHOUSE_BWRAP points at a stand-in
// that answers as the real bwrap does there ("setting up uid map: Permission denied"), and
// GATEHOUSE_LANDLOCK at no launcher, so no sandbox kind is left (with the landlock kind the same
// problems are warnings: servers still start, reduced). Real Chromium, real host, the real doctor
// checks behind `doctor:run`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, openApp, serveForFile, shot } from './support/app';
import { callFromPage } from './support/page-api';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-doctor-e2e-'));
const refused = path.join(dir, 'bwrap');
writeFileSync(refused, '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.9.0"; exit 0; }\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });

const { test, serve } = serveForFile({ env: { GATEHOUSE_BWRAP: refused, GATEHOUSE_LANDLOCK: path.join(dir, 'no-landlock-launcher') } });
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a failing check shows the panel with the problem and its fix; dismissed, it stays away', async ({ page }, testInfo) => {
  await openApp(page, serve());
  const panel = page.getByRole('region', { name: 'Machine check' });
  await expect(panel).toContainText('This machine is not ready for Gatehouse');
  const item = panel.locator('[data-check="sandbox.userns"]');
  await expect(item).toContainText('setting up uid map: Permission denied');
  await expect(item).toContainText('kernel.apparmor_restrict_unprivileged_userns');
  await expect(item.locator('.doctor-fix')).toContainText('gatehouse doctor --fix');
  await shot(page, testInfo, 'doctor-panel');
  await panel.getByRole('button', { name: 'Dismiss' }).click();
  await expect(panel).toHaveCount(0);
  // The same problems after a reload: still dismissed.
  await openApp(page, serve());
  // The panel's own doctor:run went out first on the same connection: once this one is answered,
  // so was that one, and a frame later the panel would be on screen.
  await callFromPage(page, 'doctor:run', {});
  // In the page (the root tsconfig has no DOM types, hence the cast).
  await page.evaluate(() => new Promise((r) => (globalThis as unknown as { requestAnimationFrame(cb: () => void): void }).requestAnimationFrame(() => r(null))));
  await expect(page.getByRole('region', { name: 'Machine check' })).toHaveCount(0);
});
