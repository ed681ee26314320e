// The Connect view and `gatehouse connect` give the same text for the same choice:
// the view shows the command line that prints its configuration, and switching to stdio shows
// the `gatehouse gateway` form the CLI prints with --transport stdio.
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile();

test('Connect: HTTP by default with its CLI command, stdio on request', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'demo', 3);
  await gotoView(page, 'Connect an agent');
  const main = page.getByRole('main', { name: 'Connect an agent' });
  const config = page.getByRole('region', { name: /Claude Code configuration/ }).or(page.getByLabel('Claude Code configuration'));
  await expect(config).toContainText('"type": "http"');
  await expect(main).toContainText(/gatehouse connect --profile \S+demo\.yaml --client claude-code --transport http --url http:\/\/127\.0\.0\.1:\d+\/mcp/);
  await main.getByRole('button', { name: 'stdio', exact: true }).click();
  await expect(config).toContainText('"type": "stdio"');
  await expect(config).toContainText('"gateway"');
  await expect(main).toContainText(/--client claude-code --transport stdio/);
  await shot(page, testInfo, 'connect-stdio');
});
