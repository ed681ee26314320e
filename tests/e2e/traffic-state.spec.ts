// What Traffic keeps (docs/ui-layout.md), end to end in Chromium against the real host: pins and replay links survive a reload
// (the host keeps them); Pause with a full buffer freezes exactly the rows on screen while several
// SDK clients keep calling through the HTTP gateway, and nothing newer shows up; Following stays at
// the true bottom under that load (no empty band below the last row).
import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { startLoad, type Load } from './support/load';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot, trafficLimits as limits } from './support/app';

// The gateway's bearer token for the load clients (an agent would get it from Connect).
const TOKEN = randomBytes(24).toString('hex');
const { test, serve } = serveForFile({ env: { GATEHOUSE_TOKEN: TOKEN } });

test.describe.configure({ mode: 'serial' });

const grid = (page: Page) => page.getByRole('grid', { name: 'Traffic' });

/** The identity of the rows on screen: time, direction, agent, id and method (not a status that settles). */
async function rowsOnScreen(page: Page): Promise<string[]> {
  return grid(page).evaluate((g: any) =>
    [...g.querySelectorAll('.vl-row:not(.vl-header)')]
      .filter((r: any) => {
        const b = r.getBoundingClientRect();
        const gb = g.getBoundingClientRect();
        return b.bottom > gb.top + 22 && b.top < gb.bottom;
      })
      // In screen order: the virtualizer keeps row elements in DOM order of their index, which
      // is not always the order they are drawn in while rows come and go.
      .sort((a: any, b: any) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
      .map((r: any) => ['.traffic-c-time', '.traffic-c-dir', '.traffic-c-agent', '.traffic-c-id', '.traffic-method'].map((c) => r.querySelector(c)?.textContent ?? '').join(' ')),
  );
}

async function gatewayLoad(page: Page): Promise<Load> {
  const [launch] = await callFromPage(page, 'launches:list', {});
  return startLoad({ url: launch!.gatewayUrl!, token: TOKEN, clients: 4 });
}

test('pins and replay links survive a reload', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'demo', 3);
  const [launch] = await callFromPage(page, 'launches:list', {});
  await callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'read_file', arguments: { file_path: 'README.md' } });
  await gotoView(page, 'Traffic');
  const call = grid(page).getByRole('row').filter({ hasText: 'tools/call' }).first();
  await call.getByRole('button', { name: 'Pin row' }).click();
  await expect(call.getByRole('button', { name: 'Unpin row' })).toBeVisible();
  // The pin key matches what the tooltip says: P on the focused row pins, and again unpins.
  const other = grid(page).getByRole('row').filter({ hasText: 'tools/list' }).first();
  await other.click();
  await page.keyboard.press('p');
  await expect(other.getByRole('button', { name: 'Unpin row' })).toBeVisible();
  expect(await other.getByRole('button', { name: 'Unpin row' }).getAttribute('title')).toContain('(P ');
  await page.keyboard.press('p');
  await expect(other.getByRole('button', { name: 'Pin row' })).toBeVisible();

  await call.dblclick();
  await page.getByRole('region', { name: /^Details of tools\/call/ }).getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Replay 1' })).toBeVisible();
  const replayRow = grid(page).getByRole('row').filter({ has: page.locator('.traffic-tag', { hasText: 'replay' }) });
  await expect(replayRow).toHaveCount(1);

  await page.reload();
  await expect(page.getByRole('status', { name: 'Host connection: Connected' })).toBeVisible();
  await gotoView(page, 'Traffic');
  await expect(grid(page).getByRole('button', { name: 'Unpin row' })).toHaveCount(1);
  await expect(grid(page).getByRole('row').filter({ has: page.getByRole('button', { name: 'Unpin row' }) })).toContainText('tools/call');
  await expect(grid(page).getByRole('row').filter({ has: page.locator('.traffic-tag', { hasText: 'replay' }) })).toHaveCount(1);
  await expect(page.locator('.traffic-limits')).toContainText('1 pinned');
  await shot(page, testInfo, 'traffic-pins-after-reload');
});

test('Following stays at the true bottom under load; Pause with a full buffer freezes the rows on screen', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await openApp(page, serve());
  if ((await callFromPage(page, 'launches:list', {})).length === 0) await launchFromProfiles(page, 'demo', 3);
  await gotoView(page, 'Traffic');
  await page.getByRole('combobox', { name: 'Buffer size (events held in memory)' }).selectOption('10000');
  const load = await gatewayLoad(page);
  try {
    // Fill the window's buffer.
    await expect.poll(async () => (await limits(page)).held, { timeout: 180_000, intervals: [500] }).toBe(10_000);
    await expect(page.locator('.traffic-follow')).toHaveText('Following');

    // Following: the last row sits on the grid's bottom edge, sample after sample.
    for (let i = 0; i < 10; i++) {
      const gap = await grid(page).evaluate((g: any) => {
        const rows = [...g.querySelectorAll('.vl-row:not(.vl-header)')];
        const last = rows.reduce((a: any, r: any) => (r.getBoundingClientRect().bottom > a.getBoundingClientRect().bottom ? r : a), rows[0]);
        return g.getBoundingClientRect().top + g.clientHeight - last.getBoundingClientRect().bottom;
      });
      expect(Math.abs(gap), `sample ${i}: gap below the last row while following`).toBeLessThanOrEqual(23);
      await page.waitForTimeout(150);
    }

    // The scrollbar spans the rows held, not also the rows evicted while following (a drag to
    // its middle lands on the middle row, not on rows long gone).
    await expect.poll(async () => (await limits(page)).total, { timeout: 180_000, intervals: [500] }).toBeGreaterThan(20_000);
    const span = await grid(page).evaluate((g: any) => ({ byHeight: (g.scrollHeight - 22) / 22, rows: Number(g.getAttribute('aria-rowcount')) - 1 }));
    expect(span.byHeight, `a scroll height of ${span.byHeight} rows for ${span.rows} rows held`).toBeLessThan(span.rows * 1.05 + 2);
    // Scrolled to the middle, the rows in view are evicted in a second or two and the view is
    // put on the oldest row left: the list moved under a still view, which is not the user
    // scrolling up, and loads no older history (it used to: the buffer then held more than its size).
    await grid(page).evaluate((g: any) => {
      g.scrollTop = (g.scrollHeight - g.clientHeight) / 2;
    });
    await expect(page.locator('.traffic-follow')).toHaveText('Scrolled');
    await page.waitForTimeout(4000);
    expect((await limits(page)).held).toBe(10_000);
    await expect(page.getByRole('button', { name: /older/ })).toHaveText('Load older');
    await page.getByRole('button', { name: /new ↓$/ }).click();
    await expect(page.locator('.traffic-follow')).toHaveText('Following');

    await page.getByRole('button', { name: '❚❚ Pause' }).click();
    // The time of day just after the click, formatted as the TIME column is (local HH:MM:SS.mmm).
    const clickedAt = await page.evaluate(() => {
      const d = new Date();
      const p = (n: number, w = 2) => String(n).padStart(w, '0');
      return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
    });
    await expect(page.locator('.traffic-follow')).toHaveText('Paused');
    const frozen = await rowsOnScreen(page);
    expect(frozen.length).toBeGreaterThan(20);
    const atPause = await limits(page);
    await shot(page, testInfo, 'traffic-paused');

    // Traffic keeps flowing until the whole buffer has turned over at least once.
    await expect.poll(async () => (await limits(page)).total - atPause.total, { timeout: 180_000, intervals: [500] }).toBeGreaterThan(10_000);
    expect(await rowsOnScreen(page)).toEqual(frozen);
    await expect(page.getByRole('button', { name: /new ↓$/ })).toBeVisible();
    // The end of the paused list holds nothing that arrived after Pause was pressed (it may show
    // a row or two that had arrived but not yet been scrolled into view when the click came).
    await grid(page).focus();
    await page.keyboard.press('End');
    const endRow = (await rowsOnScreen(page)).at(-1)!;
    expect(endRow.slice(0, 12) <= clickedAt, `${endRow} arrived after the pause at ${clickedAt}`).toBe(true);
    expect(endRow.slice(0, 12) >= frozen.at(-1)!.slice(0, 12), `${endRow} is older than the last row on screen at the pause`).toBe(true);
    await shot(page, testInfo, 'traffic-paused-after-turnover');

    await page.getByRole('button', { name: '▶ Resume' }).click();
    await expect(page.locator('.traffic-follow')).toHaveText('Following');
    await expect.poll(async () => (await rowsOnScreen(page)).at(-1)).not.toBe(frozen.at(-1));
  } finally {
    await load.stop();
  }
  expect(load.calls()).toBeGreaterThan(0);
});
