// Session grants in the window, end to end in Chromium against the real host: "Allow tool for
// session" on an approval card creates a grant that the Approvals view lists under "Session
// grants"; Revoke removes it, and the next call of that tool asks a person again.
import { expect, gotoView } from './support/app';
import { approveWritesFixture, callWriteFile, writeCardInTray as trayCard } from './support/approve-writes';

const { test, open } = approveWritesFixture('e2e-grants');

test('a session grant is listed in the Approvals view and revoked from it', async ({ page }) => {
  await open(page);
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
