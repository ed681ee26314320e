// The approve-writes fixture of the session-grant specs (session-grants, grant-narrow): the
// workspace tools in a temp workspace, every write_file asks a person, nothing else is allowed;
// the app launched with it; write_file called from the Tool console; the tray's write_file card.
import type { Page } from '@playwright/test';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile } from './app';
import { workspaceToolsProfile } from './keys-profile';

export const approveWritesProfile = (name: string) => workspaceToolsProfile(name, 120, '    - match: fs.write\n      decision: approve\n');

/** A spec file's `test` and server with the profile `name`, and `open(page)` that launches it. */
export function approveWritesFixture(name: string) {
  const { test, serve } = serveForFile({ profiles: { [`${name}.yaml`]: approveWritesProfile(name) } });
  const open = async (page: Page): Promise<void> => {
    await openApp(page, serve());
    await launchFromProfiles(page, name, 1);
  };
  return { test, serve, open };
}

/** Calls write_file from the Tool console; returns its panel (the result shows there). */
export async function callWriteFile(page: Page, file: string) {
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

export const writeCardInTray = (page: Page) => page.getByRole('complementary', { name: 'Approvals tray' }).getByRole('dialog', { name: /Approval request: write_file/ });
