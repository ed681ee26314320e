// Traffic's memory (docs/ui-layout.md), end to end: a live row keeps no message in the window. Its body is the host's — the
// tap's ring for recent traffic, the audit store (SQLite) once the ring has let it go — fetched
// for the detail pane, and searched there by the text filter. Real gateway load (SDK clients over
// Streamable HTTP) pushes the call out of the ring first.
import { randomBytes } from 'node:crypto';
import { callFromPage } from './support/page-api';
import { startLoad } from './support/load';
import { ensureLaunched, expect, gotoView, openApp, serveForFile, shot, trafficLimits as limits } from './support/app';

const TOKEN = randomBytes(24).toString('hex');
const { test, serve } = serveForFile({ env: { GATEHOUSE_TOKEN: TOKEN } });

test('a body the ring let go comes from the audit store: found by search, shown in the detail pane', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await openApp(page, serve());
  await ensureLaunched(page, 'demo', 3);
  await gotoView(page, 'Traffic');
  await page.getByRole('combobox', { name: 'Buffer size (events held in memory)' }).selectOption('25000');
  const [launch] = await callFromPage(page, 'launches:list', {});

  // The call to find later: README.md ends in "edit freely", beyond what its row's summary shows.
  const call = await callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'read_file', arguments: { file_path: 'README.md' } });
  expect(JSON.stringify(call.result)).toContain('edit freely');
  const first = await callFromPage(page, 'host:snapshot', { trafficLimit: 100_000, stderrLimit: 0 });
  const ours = first.traffic.filter((e) => e.exchange === call.exchange);
  expect(ours.length).toBeGreaterThanOrEqual(2); // the upstream request and its response

  // Other calls (notes.txt never says "edit freely") until the host's ring has let ours go.
  const load = await startLoad({ url: launch!.gatewayUrl!, token: TOKEN, clients: 4, args: { file_path: 'notes.txt' } });
  try {
    await expect
      .poll(async () => (await callFromPage(page, 'host:snapshot', { trafficLimit: 1, stderrLimit: 0 })).trafficStats.evicted, { timeout: 180_000, intervals: [1000] })
      .toBeGreaterThan(Math.max(...ours.map((e) => e.seq)));
  } finally {
    await load.stop();
  }
  expect((await limits(page)).held).toBeLessThan(25_000); // the window still holds our rows

  // The bodies are still the host's to give: from SQLite now.
  const bodies = await callFromPage(page, 'traffic:bodies', { refs: ours.map((e) => ({ session: e.session, seq: e.seq, ts: e.ts })) });
  expect(bodies.map((b) => b.found)).toEqual(ours.map(() => true));
  expect(JSON.stringify(bodies.map((b) => b.message))).toContain('edit freely');

  // The text filter finds it by its body (not in any row's own fields), among thousands of calls.
  await page.getByRole('searchbox', { name: 'Search traffic' }).fill('edit freely');
  const grid = page.getByRole('grid', { name: 'Traffic' });
  const row = grid.getByRole('row').filter({ hasText: 'README.md' });
  await expect(row).toHaveCount(1);
  await expect(grid.getByRole('row').filter({ hasText: 'notes.txt' })).toHaveCount(0);
  await row.click();
  await page.keyboard.press('Enter'); // opens the detail pane on the selected row
  const detail = page.getByRole('region', { name: /^Details of tools\/call/ });
  await expect(detail.getByRole('heading', { name: 'Response', exact: true })).toBeVisible();
  await expect(detail).toContainText('edit freely');
  await expect(detail).not.toContainText('Loading…');
  await shot(page, testInfo, 'traffic-body-from-audit');
});
