// Traffic's layout (docs/ui-layout.md), end to end in Chromium at 1400×900: the Traffic view with the approvals tray AND the
// detail pane open keeps TIME, DIR, SERVER, METHOD, SUMMARY, DECISION, STATUS and LATENCY
// readable (each header fully visible, none cut), the footer on one line; the tray opens for a
// new approval and closes itself once nothing is pending (unless pinned open by hand).
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile();

const REQUIRED = ['Time', 'Dir', 'Server', 'Method', 'Summary', 'Decision', 'Status', 'Latency'];

test('tray and detail pane open: the required columns stay readable', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'demo', 3);
  const [launch] = await callFromPage(page, 'launches:list', {});
  // Some traffic with latencies and sizes, then a call that waits for a person (write_file).
  for (let i = 0; i < 3; i++) await callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'read_file', arguments: { file_path: 'README.md' } });
  const waiting = callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'write_file', arguments: { path: 'layout-test.txt', content: 'x' } }).catch(() => undefined);

  await gotoView(page, 'Traffic');
  const tray = page.getByRole('complementary', { name: /Approvals/ });
  await expect(tray).toBeVisible();
  const grid = page.getByRole('grid', { name: 'Traffic' });
  await grid.getByRole('row').filter({ hasText: 'tools/call' }).first().dblclick();
  await expect(page.getByRole('region', { name: /^Details of / })).toBeVisible();

  const gridBox = (await grid.boundingBox())!;
  for (const name of REQUIRED) {
    const header = grid.getByRole('columnheader', { name, exact: true });
    await expect(header).toBeVisible();
    const box = (await header.boundingBox())!;
    // Inside the grid's visible area (not scrolled away, not under the pane or the tray).
    expect(box.x, `${name} header starts inside the list`).toBeGreaterThanOrEqual(gridBox.x - 1);
    expect(box.x + box.width, `${name} header ends inside the list`).toBeLessThanOrEqual(gridBox.x + gridBox.width + 1);
    // Not truncated: its text fits its cell.
    const fits = await header.evaluate((el) => el.scrollWidth <= el.clientWidth);
    expect(fits, `${name} header is not cut`).toBe(true);
  }
  // The cells of those columns are not cut either (latency like "2.6 s", statuses, decisions).
  const cut = await grid.evaluate((g: any) =>
    [...g.querySelectorAll('.vl-row:not(.vl-header) .traffic-c-latency, .vl-row:not(.vl-header) .traffic-c-status, .vl-row:not(.vl-header) .traffic-c-decision, .vl-row:not(.vl-header) .traffic-c-time')]
      .filter((c: any) => c.offsetParent !== null && c.scrollWidth > c.clientWidth + 1)
      .map((c: any) => `${c.className}: ${c.textContent}`),
  );
  expect(cut).toEqual([]);
  // The footer is one line.
  const footer = page.locator('footer[aria-label="Traffic status"]');
  const fbox = (await footer.boundingBox())!;
  expect(fbox.height).toBeLessThan(40);
  // The pane's latency and size pills do not wrap.
  const pills = await page.getByRole('region', { name: /^Details of / }).evaluate((d: any) =>
    [...d.querySelectorAll('.traffic-detail-head > *')].filter((e: any) => e.getClientRects().length > 1 || e.offsetHeight > 28).map((e) => e.textContent),
  );
  expect(pills).toEqual([]);
  await shot(page, testInfo, 'traffic-tray-and-pane');

  // Answer the approval: nothing is pending any more, the tray closes itself.
  await tray.getByRole('button', { name: /^Deny/ }).first().click();
  await waiting;
  await expect(tray).toBeHidden();
  await shot(page, testInfo, 'traffic-pane-only');
});
