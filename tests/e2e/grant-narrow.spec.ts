// Narrowing "Allow tool for session" from the approval card, end to end in Chromium against the
// real host (docs/ui-layout.md "Approval cards"): the person limits the grant to write_file
// calls whose file_path matches docs/.*; a call inside the pattern goes through unasked, one
// outside it asks a person again; a pattern that would not cover the call cannot be sent.
import { expect, gotoView } from './support/app';
import { approveWritesFixture, callWriteFile, writeCardInTray as trayCard } from './support/approve-writes';

const { test, open } = approveWritesFixture('e2e-narrow');

test('a grant narrowed to docs/ lets docs/ writes through and asks again for a write outside it', async ({ page }) => {
  await open(page);
  await callWriteFile(page, 'docs/a.md');
  await expect(trayCard(page)).toBeVisible();

  await gotoView(page, 'Approvals');
  const card = page.getByRole('region', { name: 'Pending approvals' }).getByRole('dialog', { name: /Approval request: write_file/ });
  await card.getByRole('button', { name: 'Narrow…' }).click();
  const form = card.getByRole('form', { name: 'Allow tool for session, narrowed' });
  await expect(form.getByRole('combobox', { name: 'Only where' })).toHaveValue('file_path');
  const pattern = form.getByRole('textbox', { name: 'matches' });
  await expect(pattern).toHaveValue('docs/.*');
  const allow = form.getByRole('button', { name: 'Allow tool for session where file_path matches' });

  // A pattern that would not allow the very call being answered is refused before it is sent.
  await pattern.fill('src/.*');
  await expect(form).toContainText('does not match this call');
  await expect(allow).toBeDisabled();
  await pattern.fill('(');
  await expect(form).toContainText('not a valid regular expression');
  await pattern.fill('docs/.*');
  await allow.click();
  await expect(card).toHaveCount(0);

  const row = page.getByRole('region', { name: 'Session grants' }).getByTestId('session-grant');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('calls whose file_path matches docs/.*');

  // Inside the pattern: answered by the grant, no one is asked (the write itself may fail: docs/ need not exist).
  const panel = await callWriteFile(page, 'docs/b.md');
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('ui-web#console-2');
  await expect(trayCard(page)).toHaveCount(0);

  // Outside it: a person is asked again.
  await callWriteFile(page, 'src/c.md');
  await expect(trayCard(page)).toBeVisible();
  await expect(trayCard(page)).toContainText('src/c.md');
  await trayCard(page).getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(trayCard(page)).toHaveCount(0);
});
