// Exchanges (docs/gateway.md "Every call is an exchange"), end to end: every call is an exchange, and the window shows each with its decision and
// who decided, whatever became of it. From the Tool console: a call denied by the policy, one
// pending for a person and then denied by them, one left to the timeout, one allowed. Traffic
// shows them all (none of the denied ones ever reached a server); the Denials chip finds the
// three denials and not the allowed call; a direction option lists only that direction; the
// Audit view lists the calls with who decided. Real host, real built-in tools server, Chromium.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';
import { workspaceToolsProfile } from './support/keys-profile';

const PROFILE = workspaceToolsProfile('e2e-exchanges', 6);

const { test, serve } = serveForFile({ profiles: { 'e2e-exchanges.yaml': PROFILE } });

async function consoleCall(page: Page, tool: string, args: Record<string, unknown>) {
  await gotoView(page, 'Tool console');
  await page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name: new RegExp(`^${tool}`) }).click();
  const panel = page.getByRole('region', { name: `Call ${tool}` });
  await panel.getByRole('button', { name: 'Edit as JSON' }).click();
  await panel.getByRole('textbox', { name: 'Arguments as JSON' }).fill(JSON.stringify(args));
  await panel.getByRole('button', { name: 'Call', exact: true }).click();
  return panel;
}

test('denied, pending, timed-out and allowed calls: Traffic, the Denials chip and the Audit view', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  writeFileSync(path.join(serve().scratchDir, 'hello.txt'), 'hello exchanges\n');
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-exchanges', 1);

  // 1. Denied by the policy (default: deny): never reaches the server.
  const exec = await consoleCall(page, 'run_command', { command: 'true' });
  await expect(exec.getByRole('region', { name: 'Result' })).toContainText('DENY:');

  // 2. Pending for a person: Traffic shows the call while it waits.
  await consoleCall(page, 'write_file', { file_path: 'by-person.txt', content: 'x\n' });
  const card = page.getByRole('complementary', { name: 'Approvals tray' }).getByRole('dialog', { name: /Approval request: write_file/ });
  await expect(card).toBeVisible();
  await gotoView(page, 'Traffic');
  const grid = page.getByRole('grid', { name: 'Traffic' });
  const pendingRow = grid.getByRole('row').filter({ hasText: 'fs.write' });
  await expect(pendingRow).toHaveCount(1);
  await expect(pendingRow).toContainText('APPROVAL');
  await expect(pendingRow).toContainText('pending');
  await shot(page, testInfo, 'traffic-pending');
  // …then denied by that person.
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(pendingRow).toContainText('DENIED');

  // 3. Left to the timeout (another session's call, over the page's socket).
  const [launch] = await callFromPage(page, 'launches:list', {});
  const late = await callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'write_file', arguments: { file_path: 'too-late.txt', content: 'x\n' } });
  expect(JSON.stringify(late.result)).toContain('DENY: no answer within 6s');

  // 4. Allowed.
  const read = await consoleCall(page, 'read_file', { file_path: 'hello.txt' });
  await expect(read.getByRole('region', { name: 'Result' })).toContainText('hello exchanges');

  await gotoView(page, 'Traffic');
  await expect(grid.getByRole('row').filter({ hasText: 'fs.write' })).toHaveCount(2);
  await expect(grid.getByRole('row').filter({ hasText: /TIMEOUT/ })).toHaveCount(1);
  await expect(grid.getByRole('row').filter({ hasText: 'process.exec' })).toContainText('DENY');

  // The Denials chip: by the policy, by a person, by the timeout; not the allowed read.
  await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Denials' }).click();
  const denials = grid.getByRole('row').filter({ hasText: /process\.exec|fs\.write|fs\.read/ });
  await expect(denials).toHaveCount(3);
  await expect(grid.getByRole('row').filter({ hasText: 'process.exec' })).toHaveCount(1);
  await expect(grid.getByRole('row').filter({ hasText: /DENIED/ })).toHaveCount(1);
  await expect(grid.getByRole('row').filter({ hasText: /TIMEOUT/ })).toHaveCount(1);
  await expect(grid.getByRole('row').filter({ hasText: 'fs.read' })).toHaveCount(0);
  await shot(page, testInfo, 'traffic-denials');
  await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Denials' }).click();

  // A direction option lists only that direction: the allowed read's upstream leg, and nothing agent-side.
  await page.getByRole('combobox', { name: 'Direction' }).selectOption('gateway_to_server');
  const upstream = grid.getByRole('row').filter({ hasText: 'tools/call' });
  await expect(upstream).toHaveCount(1);
  await expect(upstream.getByRole('gridcell', { name: 'gateway to server' })).toBeVisible();
  await page.getByRole('combobox', { name: 'Direction' }).selectOption('');

  // The Audit view: the calls, each with who decided.
  await gotoView(page, 'Audit');
  await page.getByRole('search', { name: 'Search the audit trail' }).getByRole('button', { name: 'Search' }).click();
  const calls = page.getByRole('table', { name: 'Calls' });
  await expect(calls.getByRole('row').filter({ hasText: 'process.exec' })).toContainText('rule');
  await expect(calls.getByRole('row').filter({ hasText: 'fs.write' }).filter({ hasText: 'person' })).toHaveCount(1);
  await expect(calls.getByRole('row').filter({ hasText: 'fs.write' }).filter({ hasText: 'timeout' })).toHaveCount(1);
  await expect(calls.getByRole('row').filter({ hasText: 'fs.read' })).toContainText('ok');
  await shot(page, testInfo, 'audit-calls');
  expect(errors).toEqual([]);
});
