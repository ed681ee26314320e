// Approvals, end to end: a call that needs approval, triggered from the Tool console and answered
// in the approvals tray (allow, deny) or in the Approvals view, and one left unanswered until the
// profile's timeout denies it. Test profiles with their own temp workspace (the demo workspace
// is in the repository, and writes must not land there).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';
import { workspaceToolsProfile } from './support/keys-profile';

const profile = (name: string, timeout: number) => workspaceToolsProfile(name, timeout);

// The flow gate (docs/data.md "The trifecta guard") with write_file as all three legs: the first
// write is allowed and gives the session both labels, so each later write asks a person per call.
const FLOW_PROFILE = `
name: e2e-flow
workspace: \${scratch}
tool_surface: friendly
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: allow
  approval_timeout_s: 120
  marks:
    private: [fs.write]
    untrusted: [fs.write]
    exfil: [fs.write]
`;

const { test, serve } = serveForFile({
  profiles: { 'e2e-approvals.yaml': profile('e2e-approvals', 120), 'e2e-timeout.yaml': profile('e2e-timeout', 2), 'e2e-flow.yaml': FLOW_PROFILE },
});

test.describe.configure({ mode: 'serial' });

async function callWriteFile(page: Page, file: string, content: string) {
  await gotoView(page, 'Tool console');
  await page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name: /^write_file/ }).click();
  const panel = page.getByRole('region', { name: 'Call write_file' });
  // The console remembers the JSON editor between calls of one tool.
  const asJson = panel.getByRole('button', { name: 'Edit as JSON' });
  await expect(panel.getByRole('button', { name: 'Call', exact: true })).toBeVisible();
  if (await asJson.isVisible()) await asJson.click();
  await panel.getByRole('textbox', { name: 'Arguments as JSON' }).fill(JSON.stringify({ file_path: file, content }));
  await panel.getByRole('button', { name: 'Call', exact: true }).click();
  return panel;
}

const card = (page: Page, scope: 'tray' | 'view') =>
  (scope === 'tray' ? page.getByRole('complementary', { name: 'Approvals tray' }) : page.getByRole('main', { name: 'Approvals' })).getByRole('dialog', {
    name: /Approval request: write_file/,
  });

test('allow once: the call goes through and the file is written', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-approvals', 1);
  const panel = await callWriteFile(page, 'allowed.txt', 'written after approval\n');
  const request = card(page, 'tray');
  await expect(request).toBeVisible();
  await expect(request).toContainText("Changes to the workspace need a person's OK.");
  await expect(request).toContainText('allowed.txt');
  await shot(page, testInfo, 'tool-console-approval-pending');
  await request.getByRole('button', { name: 'Allow once', exact: true }).click();

  const result = panel.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('bytes_written');
  await expect(result.getByText('ok', { exact: true })).toBeVisible();
  await expect(request).toHaveCount(0);
  expect(readFileSync(path.join(serve().scratchDir, 'allowed.txt'), 'utf8')).toBe('written after approval\n');
});

test('deny: the result is a DENY with isError, and nothing is written', async ({ page }) => {
  await openApp(page, serve());
  const panel = await callWriteFile(page, 'denied.txt', 'should never be written\n');
  const request = card(page, 'tray');
  await request.getByRole('button', { name: 'Deny', exact: true }).click();
  const result = panel.getByRole('region', { name: 'Result' });
  await expect(result).toContainText(/DENY: /);
  await expect(result.getByText('isError', { exact: true })).toBeVisible();
  await expect(request).toHaveCount(0);
  expect(existsSync(path.join(serve().scratchDir, 'denied.txt'))).toBe(false);
});

test('the Approvals view lists a pending request and answers it', async ({ page }, testInfo) => {
  await openApp(page, serve());
  const [launch] = await callFromPage(page, 'launches:list', {});
  // Another client's call (its own session over the page's socket), answered from the view.
  const pending = callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'write_file', arguments: { file_path: 'from-view.txt', content: 'ok\n' } });
  await gotoView(page, 'Approvals');
  const request = card(page, 'view');
  await expect(request).toBeVisible();
  await expect(request.getByRole('timer')).toBeVisible();
  await shot(page, testInfo, 'approvals');
  await request.getByRole('button', { name: 'Allow for session', exact: true }).click();
  const out = await pending;
  expect(out.result?.isError).toBeFalsy();
  await expect(request).toHaveCount(0);
  expect(existsSync(path.join(serve().scratchDir, 'from-view.txt'))).toBe(true);
});

test('unanswered, the request times out: denied with the timeout reason, and the card goes', async ({ page }) => {
  await openApp(page, serve());
  await callFromPage(page, 'profiles:stop', { launchId: (await callFromPage(page, 'launches:list', {}))[0]!.id });
  await launchFromProfiles(page, 'e2e-timeout', 1);
  const panel = await callWriteFile(page, 'late.txt', 'too late\n');
  const request = card(page, 'tray');
  await expect(request).toBeVisible();
  const result = panel.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('DENY: no answer within 2s', { timeout: 30_000 });
  await expect(result.getByText('isError', { exact: true })).toBeVisible();
  await expect(request).toHaveCount(0);
  expect(existsSync(path.join(serve().scratchDir, 'late.txt'))).toBe(false);
});

test('a per-call card (the flow gate) offers no session grant, and S / T do nothing on it', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-flow', 1);
  // Allowed by the default, and the session takes both labels from its result.
  const first = await callWriteFile(page, 'first.txt', 'one\n');
  await expect(first.getByRole('region', { name: 'Result' })).toContainText('bytes_written');
  await expect(card(page, 'tray')).toHaveCount(0);

  await callWriteFile(page, 'second.txt', 'two\n');
  const tray = card(page, 'tray');
  await expect(tray).toBeVisible();
  await expect(tray).toContainText('policy.flow');
  await expect(tray.getByTestId('approval-per-call')).toContainText('Asked for each call');
  await expect(tray.getByRole('button', { name: 'Allow once' })).toBeVisible();
  await expect(tray.getByRole('button', { name: /Allow for session/ })).toHaveCount(0);
  await expect(tray.getByRole('button', { name: /Allow tool for session/ })).toHaveCount(0);
  await shot(page, testInfo, 'approval-card-per-call');

  // S and T from inside the tray: nothing is answered (the card stays, nothing is written).
  await tray.focus();
  await page.keyboard.press('s');
  await page.keyboard.press('t');
  await expect(tray.getByRole('button', { name: 'Allow once' })).toBeEnabled();
  await expect(tray).toHaveCount(1);
  const scratch = serve().scratchDir;
  expect(existsSync(path.join(scratch, 'second.txt'))).toBe(false);

  // The roomy card in the Approvals view has no Narrow… either.
  await gotoView(page, 'Approvals');
  const roomy = card(page, 'view');
  await expect(roomy.getByTestId('approval-per-call')).toBeVisible();
  await expect(roomy.getByRole('button', { name: 'Narrow…' })).toHaveCount(0);
  await expect(roomy.getByRole('button', { name: /Allow for session|Allow tool for session/ })).toHaveCount(0);
  await roomy.getByRole('button', { name: 'Allow once' }).click();
  await expect(roomy).toHaveCount(0);
  await expect.poll(() => existsSync(path.join(scratch, 'second.txt'))).toBe(true);

  // Asked again: the next write is another card.
  await callWriteFile(page, 'third.txt', 'three\n');
  await expect(card(page, 'tray')).toBeVisible();
  await card(page, 'tray').getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(card(page, 'tray')).toHaveCount(0);
});
