// The Connect view and `gatehouse connect` give the same text for the same choice:
// the view shows the command line that prints its configuration, and switching to stdio shows
// the `gatehouse gateway` form the CLI prints with --transport stdio; the MCP Inspector tab shows
// the command line that runs it.
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

  // The MCP Inspector: it passes no environment to a stdio server, so the profiles folder and the
  // data dir are arguments; over HTTP the token goes on its command line, not in the file.
  await main.getByRole('tab', { name: 'MCP Inspector' }).click();
  const inspector = page.getByLabel('MCP Inspector configuration');
  await expect(inspector).toContainText('"type": "stdio"');
  await expect(inspector).toContainText('"--profiles-dir"');
  await expect(inspector).toContainText('"--data-dir"');
  await expect(main).toContainText(/--client inspector --transport stdio/);
  await main.getByRole('button', { name: 'HTTP', exact: true }).click();
  await expect(inspector).toContainText('"type": "streamable-http"');
  await expect(inspector).not.toContainText('Authorization');
  await expect(main).toContainText(/npx @modelcontextprotocol\/inspector --cli --config \S+mcp\.json --server gatehouse --header "Authorization: Bearer \$GATEHOUSE_TOKEN" --method tools\/list/);
  await shot(page, testInfo, 'connect-inspector');
});
