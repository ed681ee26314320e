// Issue 5, end to end: call a tool of the demo profile from the Tool console and see its request
// and response in Traffic (the console's "exchange" link selects it there and opens the pair).
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile();

test('read_file from the Tool console: the result, then the exchange in Traffic', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openApp(page, serve());
  await launchFromProfiles(page, 'demo', 3);
  await gotoView(page, 'Tool console');

  // The friendly `read_file` is the built-in fs.read (allowed by the demo policy).
  await page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name: /^read_file/ }).click();
  const panel = page.getByRole('region', { name: 'Call read_file' });
  await expect(panel).toContainText('fs.read');
  await panel.getByRole('button', { name: 'Edit as JSON' }).click();
  await panel.getByRole('textbox', { name: 'Arguments as JSON' }).fill(JSON.stringify({ file_path: 'README.md' }));
  await panel.getByRole('button', { name: 'Call', exact: true }).click();

  const result = panel.getByRole('region', { name: 'Result' });
  // workspace-profiles/demo-workspace/README.md
  await expect(result).toContainText('# Demo workspace');
  await expect(result).toContainText('ok');
  await shot(page, testInfo, 'tool-console');

  // The exchange link opens Traffic on that call: its row selected, the pair in the detail pane.
  const link = result.getByRole('button', { name: /^exchange / });
  const exchange = ((await link.textContent()) ?? '').replace(/^exchange\s*/, '').trim();
  expect(exchange).toMatch(/#/);
  await link.click();
  await expect(page.getByRole('main', { name: 'Traffic' })).toBeVisible();

  const grid = page.getByRole('grid', { name: 'Traffic' });
  const selected = grid.getByRole('row', { selected: true });
  await expect(selected).toContainText('tools/call');
  await expect(selected).toContainText('fs.read');

  const detail = page.getByRole('region', { name: /^Details of tools\/call/ });
  await expect(detail).toBeVisible();
  const hops = detail.getByRole('list', { name: 'Messages of this exchange' });
  // The console calls the gateway in-process, so the wire it shows is the server's: the request
  // to the server and its response.
  await expect(hops.getByRole('button').filter({ hasText: 'gateway to server' }).filter({ hasText: 'tools/call' })).toHaveCount(1);
  await expect(hops.getByRole('button').filter({ hasText: 'server to gateway' })).toHaveCount(1);
  await expect(detail.getByRole('heading', { name: 'Request', exact: true })).toBeVisible();
  await expect(detail.getByRole('heading', { name: 'Response', exact: true })).toBeVisible();
  await expect(detail).toContainText('README.md');
  await expect(detail).toContainText('Demo workspace');
  await shot(page, testInfo, 'traffic');

  // The selected row is the gateway's call to the server, allowed by the policy.
  await expect(selected.getByRole('gridcell', { name: 'gateway to server' })).toBeVisible();
  await expect(selected).toContainText('ALLOW');
  expect(errors).toEqual([]);
});
