// Crash history (docs/ui-layout.md "What survives a reload, a second window or navigation"), end to end: a crashed server's history outlives its restart (Servers lists every
// exit with its signal and uptime, Logs has a line for it, a reload keeps both), and stderr with
// colour codes is shown in colour in the crash banner, never as raw escapes.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { expect, gotoView, openApp, serveForFile, shot } from './support/app';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const RAW = JSON.stringify(path.join(ROOT, 'tests', 'fixtures', 'servers', 'raw-server.mjs'));
const NODE = JSON.stringify(process.execPath);

// `colour` prints an ANSI-coloured line on stderr and exits 1 before answering anything, and is
// never restarted (failed: its banner stays). `steady` is a healthy server we SIGKILL.
const PROFILE = `
name: e2e-crash
workspace: \${scratch}
servers:
  steady:
    command: ${NODE}
    args: [${RAW}]
    restart: { initial_backoff_ms: 200, max_backoff_ms: 400 }
  colour:
    command: ${NODE}
    args: [${RAW}, "--crash", "\\x1b[31mfatal:\\x1b[0m \\x1b[1;34mconfig\\x1b[0m not found"]
    restart: { max_restarts: 0 }
`;

const { test, serve } = serveForFile({ profiles: { 'e2e-crash.yaml': PROFILE } });

test.describe.configure({ mode: 'serial' });

async function launch(page: Page) {
  await gotoView(page, 'Profiles');
  const card = page.getByRole('region', { name: 'e2e-crash', exact: true });
  await card.getByRole('button', { name: 'Launch', exact: true }).click();
  await expect(card.getByRole('button', { name: 'Stop', exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('banner', { name: 'Top bar' }).getByRole('button', { name: /1\/2 ready · 1 failed/ })).toBeVisible({ timeout: 60_000 });
}

test('the crash banner renders stderr colour codes instead of showing them raw', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launch(page);
  await gotoView(page, 'Servers');
  await page.getByRole('button', { name: 'Details of colour', exact: true }).click();
  await expect(page.getByText(/colour exited with code 1 after/)).toBeVisible();
  const tail = page.getByLabel('Last stderr lines of colour');
  await expect(tail).toContainText('fatal: config not found');
  // No escape code reaches the page as text (neither ESC itself nor the "[31m" left after it).
  const text = (await tail.textContent()) ?? '';
  expect(text.includes(String.fromCharCode(27))).toBe(false);
  expect(text).not.toMatch(/\[\d+(;\d+)*m/);
  // The colours are there: "fatal:" in red (ANSI 31), "config" in bold.
  const fatal = tail.getByText('fatal:', { exact: true });
  const colour = await fatal.evaluate((el: any) => (globalThis as any).getComputedStyle(el).color);
  expect(colour).not.toBe(await tail.evaluate((el: any) => (globalThis as any).getComputedStyle(el).color));
  const weight = await tail.getByText('config', { exact: true }).evaluate((el: any) => (globalThis as any).getComputedStyle(el).fontWeight);
  expect(Number(weight)).toBeGreaterThanOrEqual(600);
  await shot(page, testInfo, 'crash-banner-ansi');
});

test('a SIGKILLed server that restarted keeps its exit in Servers and in Logs, across a reload', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await gotoView(page, 'Servers');
  const before = (await callFromPage(page, 'launches:list', {}))[0]!.servers.find((s) => s.id === 'steady')!;
  expect(before.state).toBe('ready');
  process.kill(before.pid!, 'SIGKILL');
  const row = page.getByRole('table', { name: 'Servers of e2e-crash' }).getByRole('row').filter({ has: page.getByRole('button', { name: 'Details of steady', exact: true }) });
  await expect.poll(async () => (await callFromPage(page, 'launches:list', {}))[0]!.servers.find((s) => s.id === 'steady')!.run, { timeout: 30_000 }).toBe(2);
  await expect(row).toContainText('ready', { timeout: 30_000 });

  for (const step of ['before reload', 'after reload']) {
    if (step === 'after reload') {
      await page.reload();
      await expect(page.getByRole('status', { name: 'Host connection: Connected' })).toBeVisible();
      await gotoView(page, 'Servers');
    }
    await page.getByRole('button', { name: 'Details of steady', exact: true }).click();
    const exits = page.getByRole('table', { name: 'Exits of steady' });
    await expect(exits, step).toBeVisible();
    const first = exits.getByRole('row').nth(1);
    await expect(first, step).toContainText('killed by SIGKILL');
    await expect(first, step).toContainText('1'); // run 1
    if (step === 'before reload') await shot(page, testInfo, 'servers-exit-history');

    await page.getByRole('button', { name: 'Open logs' }).click();
    await expect(page.getByRole('grid', { name: 'Logs' }), step).toContainText(/gatehouse: exited by SIGKILL after \d+(\.\d)? (s|ms) \(run 1/);
    if (step === 'before reload') await shot(page, testInfo, 'logs-exit-line');
    await gotoView(page, 'Servers');
  }

  // All servers: the exit line and the other server's stderr in one list, with server names.
  await gotoView(page, 'Logs');
  await page.getByRole('combobox', { name: 'Server', exact: true }).selectOption({ label: 'All servers' });
  const grid = page.getByRole('grid', { name: 'Logs' });
  await expect(grid).toContainText('fatal: config not found');
  await expect(grid).toContainText('gatehouse: exited by SIGKILL');
  await expect(grid.getByRole('gridcell', { name: /steady/ }).first()).toBeVisible();
  await shot(page, testInfo, 'logs-all-servers');
});
