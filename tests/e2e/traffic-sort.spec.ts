// Traffic answers the obvious questions (docs/ui-layout.md "Traffic"), end to end in Chromium
// against the real host and server-everything: sorting by latency puts the slowest call first
// (mouse and keyboard, aria-sort says so), `latency>N ms` in the search box keeps the slow ones,
// one click opens a call, the Tool console's calls are named by their client, and "Clear filters"
// leaves every filter input empty.
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const PROFILE = `
name: e2e-traffic-sort
workspace: \${scratch}
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
`;

const { test, serve } = serveForFile({ profiles: { 'e2e-traffic-sort.yaml': PROFILE } });

test('sort by latency puts the slowest call first; latency filter; one click opens; clear filters', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-traffic-sort', 1);
  const [launch] = await callFromPage(page, 'launches:list', {});
  const call = (name: string, args: Record<string, unknown>) => callFromPage(page, 'tools:call', { launchId: launch!.id, name, arguments: args });
  await call('echo', { message: 'fast one' });
  // The slow call sits between fast ones: arrival order does not put it first or last.
  await call('trigger-long-running-operation', { duration: 1.5, steps: 1 });
  await call('echo', { message: 'fast two' });
  await call('get-sum', { a: 1, b: 2 });

  await gotoView(page, 'Traffic');
  const grid = page.getByRole('grid', { name: 'Traffic' });
  const calls = grid.getByRole('row').filter({ hasText: 'tools/call' });
  await expect(calls).toHaveCount(4);
  // The console's own leg, in full: named by its client, with a response size.
  await expect(calls.first()).toContainText('Gatehouse Tool console');

  const latency = grid.getByRole('columnheader', { name: 'Latency', exact: true });
  await expect(latency).toHaveAttribute('aria-sort', 'none');
  await latency.getByRole('button').click();
  await expect(latency).toHaveAttribute('aria-sort', 'descending');
  await expect(calls.first()).toContainText('trigger-long-running-operation');
  await shot(page, testInfo, 'traffic-sorted-by-latency');
  // Keyboard: Enter on the header button sorts the other way; the slow call goes last.
  await latency.getByRole('button').focus();
  await page.keyboard.press('Enter');
  await expect(latency).toHaveAttribute('aria-sort', 'ascending');
  await expect(calls.last()).toContainText('trigger-long-running-operation');
  await page.keyboard.press('Enter');
  await expect(latency).toHaveAttribute('aria-sort', 'none');

  // latency > 1 s in the search box: only the slow call.
  const search = page.getByRole('searchbox', { name: 'Search traffic' });
  await search.fill('latency>1000ms');
  await expect(calls).toHaveCount(1);
  await expect(calls.first()).toContainText('trigger-long-running-operation');
  await expect(page.getByRole('list', { name: 'Method filters' })).toContainText('latency > 1000 ms');

  // One click opens the call's detail.
  await calls.first().click();
  await expect(page.getByRole('region', { name: /^Details of / })).toBeVisible();

  // Clear filters: every input shows what is applied (nothing), the method box too.
  const method = page.getByRole('combobox', { name: 'Method to include or exclude' });
  await method.fill('tools/call');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(search).toHaveValue('');
  await expect(method).toHaveValue('');
  await expect(calls).toHaveCount(4);
});
