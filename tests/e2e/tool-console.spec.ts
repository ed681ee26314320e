// The Tool console, end to end: call a tool of the demo profile from the Tool console and see its request
// and response in Traffic (the console's "exchange" link selects it there and opens the pair).
import { ensureLaunched, expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

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

  // The selected row is the console's own call to the gateway (its leg is recorded in full), allowed by the policy.
  await expect(selected.getByRole('gridcell', { name: 'agent to gateway' })).toBeVisible();
  await expect(selected).toContainText('ALLOW');
  expect(errors).toEqual([]);
});

test('the Tool console keeps its tool, draft and pending call while its approval is answered elsewhere', async ({ page }, testInfo) => {
  await openApp(page, serve());
  // The first test launched demo; this one does only when run alone. (It used to look for the top
  // bar's "3/3 ready" at once: under load the freshly opened window had not shown it yet, so it
  // launched again and waited 90 s for a Launch button the running profile no longer has.)
  await ensureLaunched(page, 'demo', 3);
  await gotoView(page, 'Tool console');
  const tools = page.getByRole('navigation', { name: 'Tools' });
  // The filter matches names and titles, not descriptions ("read" is not in create_directory's name).
  await tools.getByRole('searchbox', { name: 'Filter tools' }).fill('read');
  await expect(tools.getByRole('button', { name: /^read_file/ })).toBeVisible();
  await expect(tools.getByRole('button', { name: /^create_directory/ })).toHaveCount(0);
  await tools.getByRole('searchbox', { name: 'Filter tools' }).fill('');

  // A draft in one tool, then a call that needs a person in another.
  await tools.getByRole('button', { name: /^read_file/ }).click();
  let panel = page.getByRole('region', { name: 'Call read_file' });
  await panel.getByRole('button', { name: 'Edit as JSON' }).click();
  await panel.getByRole('textbox', { name: 'Arguments as JSON' }).fill('{"file_path": "notes.txt"}');
  await tools.getByRole('button', { name: /^write_file/ }).click();
  panel = page.getByRole('region', { name: 'Call write_file' });
  await panel.getByRole('button', { name: 'Edit as JSON' }).click();
  const args = JSON.stringify({ file_path: 'console-state.txt', content: 'kept across navigation' });
  await panel.getByRole('textbox', { name: 'Arguments as JSON' }).fill(args);
  await panel.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(panel).toContainText('Waiting for the gateway');

  // Answer it from the Approvals view, as a person would, then come back.
  // (With one pending, the link reads "Approvals 1 pending".)
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: /^Approvals/ }).click();
  const card = page.getByRole('main', { name: 'Approvals' }).locator('[data-approval-id]').filter({ hasText: 'write_file' });
  // Denied, so the demo workspace (a folder of this repository) is never written to.
  await card.getByRole('button', { name: /^Deny/ }).click();
  await gotoView(page, 'Tool console');
  panel = page.getByRole('region', { name: 'Call write_file' });
  await expect(panel).toBeVisible();
  await expect(panel.getByRole('textbox', { name: 'Arguments as JSON' })).toHaveValue(args);
  const result = panel.getByRole('region', { name: 'Result' });
  await expect(result).toContainText(/denied/i);
  await expect(panel).not.toContainText('Waiting for the gateway');
  await shot(page, testInfo, 'tool-console-after-approvals');

  // The other tool's draft is still there, and both survive a reload.
  await page.reload();
  await expect(page.getByRole('status', { name: 'Host connection: Connected' })).toBeVisible();
  await gotoView(page, 'Tool console');
  await expect(page.getByRole('region', { name: 'Call write_file' }).getByRole('textbox', { name: 'Arguments as JSON' })).toHaveValue(args);
  await page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name: /^read_file/ }).click();
  await expect(page.getByRole('region', { name: 'Call read_file' }).getByRole('textbox', { name: 'Arguments as JSON' })).toHaveValue('{"file_path": "notes.txt"}');
});

test('a pending Tool console call survives a reload, and its result answered while the window is away is there after it', async ({ page, context }, testInfo) => {
  await openApp(page, serve());
  await ensureLaunched(page, 'demo', 3);
  await gotoView(page, 'Tool console');
  await page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name: /^write_file/ }).click();
  let panel = page.getByRole('region', { name: 'Call write_file' });
  await panel.getByRole('button', { name: 'Edit as JSON' }).click();
  const args = JSON.stringify({ file_path: 'console-reload.txt', content: 'kept across a reload' });
  await panel.getByRole('textbox', { name: 'Arguments as JSON' }).fill(args);
  await panel.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(panel).toContainText('Waiting for the gateway');

  // A reload drops the window's own promise of the answer: the host's record brings the call back.
  await page.reload();
  await expect(page.getByRole('status', { name: 'Host connection: Connected' })).toBeVisible();
  await gotoView(page, 'Tool console');
  panel = page.getByRole('region', { name: 'Call write_file' });
  await expect(panel).toContainText('Waiting for the gateway');
  await expect(panel.getByRole('button', { name: 'Call', exact: true })).toBeDisabled();

  // The window goes away; a second one answers the approval (Deny: the demo workspace is never written).
  await page.goto('about:blank');
  const other = await context.newPage();
  await openApp(other, serve());
  await other.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: /^Approvals/ }).click();
  const card = other.getByRole('main', { name: 'Approvals' }).locator('[data-approval-id]').filter({ hasText: 'console-reload.txt' });
  await card.getByRole('button', { name: /^Deny/ }).click();
  await expect(card).toHaveCount(0);
  await other.close();

  // Back: the answer that came while it was away is shown, with its exchange and arguments.
  await page.goBack();
  await expect(page.getByRole('status', { name: 'Host connection: Connected' })).toBeVisible();
  await gotoView(page, 'Tool console');
  panel = page.getByRole('region', { name: 'Call write_file' });
  await expect(panel.getByRole('textbox', { name: 'Arguments as JSON' })).toHaveValue(args);
  const result = panel.getByRole('region', { name: 'Result' });
  await expect(result).toContainText(/denied/i);
  await expect(result.getByRole('button', { name: /^exchange / })).toBeVisible();
  await expect(panel).not.toContainText('Waiting for the gateway');
  await shot(page, testInfo, 'tool-console-after-reload');
});
