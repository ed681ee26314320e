// Session grants in the window, end to end in Chromium against the real host: "Allow tool for
// session" on an approval card creates a grant that the Approvals view lists under "Session
// grants"; Revoke removes it, and the next call of that tool asks a person again.
import type { Page } from '@playwright/test';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile } from './support/app';

const PROFILE = `
name: e2e-grants
workspace: \${scratch}
tool_surface: friendly
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: deny
  approval_timeout_s: 120
  rules:
    - match: fs.write
      decision: approve
`;

const { test, serve } = serveForFile({ profiles: { 'e2e-grants.yaml': PROFILE } });

async function callWriteFile(page: Page, file: string) {
  await gotoView(page, 'Tool console');
  await page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name: /^write_file/ }).click();
  const panel = page.getByRole('region', { name: 'Call write_file' });
  // The console remembers the JSON editor between calls of one tool.
  const asJson = panel.getByRole('button', { name: 'Edit as JSON' });
  await expect(panel.getByRole('button', { name: 'Call', exact: true })).toBeVisible();
  if (await asJson.isVisible()) await asJson.click();
  await panel.getByRole('textbox', { name: 'Arguments as JSON' }).fill(JSON.stringify({ file_path: file, content: 'x\n' }));
  await panel.getByRole('button', { name: 'Call', exact: true }).click();
  return panel;
}

const trayCard = (page: Page) => page.getByRole('complementary', { name: 'Approvals tray' }).getByRole('dialog', { name: /Approval request: write_file/ });

test('a session grant is listed in the Approvals view and revoked from it', async ({ page }) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-grants', 1);
  await callWriteFile(page, 'one.txt');
  await trayCard(page).getByRole('button', { name: /Allow tool for session/ }).click();
  await expect(trayCard(page)).toHaveCount(0);

  await gotoView(page, 'Approvals');
  const grants = page.getByRole('region', { name: 'Session grants' });
  const row = grants.getByTestId('session-grant');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('fs.write');
  await expect(row).toContainText('every call of this tool');

  await row.getByRole('button', { name: 'Revoke the grant for fs.write' }).click();
  await expect(row).toHaveCount(0);
  await expect(grants).toContainText('No call is allowed for a session right now.');

  // Revoked: the same tool asks a person again.
  await callWriteFile(page, 'two.txt');
  await expect(trayCard(page)).toBeVisible();
  await trayCard(page).getByRole('button', { name: 'Deny', exact: true }).click();
});
