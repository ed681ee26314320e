// The approvals inbox (docs/gateway.md "Questions from servers"): a server's elicitation and sampling requests that no agent client can
// answer come to the inbox, and a person answers them from the tray. server-everything's
// trigger tools are called as the window's own session (which declares neither capability).
import type { Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { expect, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const PROFILE = `
name: e2e-inbox
workspace: \${scratch}
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
  approval_timeout_s: 120
  sampling: allow
`;

const { test, serve } = serveForFile({ profiles: { 'e2e-inbox.yaml': PROFILE } });

test.describe.configure({ mode: 'serial' });

const tray = (page: Page) => page.getByRole('complementary', { name: 'Approvals tray' });

async function call(page: Page, name: string, args: Record<string, unknown>) {
  const [launch] = await callFromPage(page, 'launches:list', {});
  return callFromPage(page, 'tools:call', { launchId: launch!.id, name, arguments: args });
}

const text = (out: Awaited<ReturnType<typeof call>>) => (out.result?.content ?? []).map((c) => String(c.text ?? '')).join('\n');

test('an elicitation is answered from its form in the tray', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-inbox', 1);
  const pending = call(page, 'trigger-elicitation-request', {});
  const card = tray(page).getByRole('dialog', { name: /Approval request: Elicitation request from everything/ });
  await expect(card).toBeVisible();
  await expect(card).toContainText('Please provide inputs for the following fields:');
  await expect(card).toContainText('everything.trigger-elicitation-request');
  // Accept with the required field empty: the form says what is missing and sends nothing.
  await card.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(card.getByRole('alert')).toContainText('1 field needs attention');
  await card.getByRole('textbox', { name: /^String\b(?! with)/ }).fill('Ada Lovelace');
  await shot(page, testInfo, 'inbox-elicitation');
  await card.getByRole('button', { name: 'Accept', exact: true }).click();
  const out = await pending;
  expect(text(out)).toContain('User provided the requested information');
  expect(text(out)).toContain('- Name: Ada Lovelace');
  await expect(card).toHaveCount(0);
});

test('an elicitation declined from the tray takes the server decline path', async ({ page }) => {
  await openApp(page, serve());
  const pending = call(page, 'trigger-elicitation-request', {});
  const card = tray(page).getByRole('dialog', { name: /Elicitation request from everything/ });
  await card.getByRole('button', { name: 'Decline', exact: true }).click();
  expect(text(await pending)).toContain('User declined to provide the requested information');
});

test('a sampling request is answered by writing the reply (Ctrl+Enter sends)', async ({ page }, testInfo) => {
  await openApp(page, serve());
  const pending = call(page, 'trigger-sampling-request', { prompt: 'what is six times seven', maxTokens: 10 });
  const card = tray(page).getByRole('dialog', { name: /Approval request: Sampling request from everything/ });
  await expect(card).toBeVisible();
  const conversation = card.getByRole('region', { name: 'Conversation' });
  await expect(conversation).toContainText('You are a helpful test server.');
  await expect(conversation).toContainText('what is six times seven');
  await expect(card.getByRole('button', { name: 'Send reply' })).toBeDisabled();
  const reply = card.getByRole('textbox', { name: 'Your reply (sent as the assistant)' });
  await reply.fill('Forty-two.');
  await shot(page, testInfo, 'inbox-sampling');
  await reply.press('Control+Enter');
  const out = await pending;
  expect(text(out)).toContain('Forty-two.');
  expect(text(out)).toContain('human (Gatehouse)');
  await expect(card).toHaveCount(0);
});
