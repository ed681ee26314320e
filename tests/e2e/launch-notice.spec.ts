// Connect once, stay connected, in the window: a relaunched profile keeps its gateway URL; when
// that port is taken (here by a listener of this test), the gateway takes another and the window
// says so where the configuration is copied (Connect) and in a notification. Real Chromium, real
// host, real servers.
import net from 'node:net';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';
import { callFromPage } from './support/page-api';

const { test, serve } = serveForFile({
  profiles: {
    'kept.yaml': `
name: kept
workspace: \${scratch}
servers:
  memory:
    command: mcp-server-memory
policy:
  default: allow
`,
  },
});

const squatters: net.Server[] = [];
test.afterAll(async () => {
  for (const s of squatters) await new Promise<void>((r) => s.close(() => r()));
});

async function stopAll(page: import('@playwright/test').Page): Promise<void> {
  for (const l of await callFromPage(page, 'launches:list', {})) await callFromPage(page, 'profiles:stop', { launchId: l.id });
}

test('the same URL after a relaunch; a taken port is said in Connect', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'kept', 1);
  const [first] = await callFromPage(page, 'launches:list', {});
  const url = first!.gatewayUrl!;
  await stopAll(page);

  await launchFromProfiles(page, 'kept', 1);
  const [second] = await callFromPage(page, 'launches:list', {});
  expect(second!.gatewayUrl).toBe(url);
  expect(second!.notices ?? []).toEqual([]);
  await stopAll(page);

  const port = Number(new URL(url).port);
  const squatter = net.createServer();
  await new Promise<void>((resolve, reject) => squatter.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  squatters.push(squatter);
  await launchFromProfiles(page, 'kept', 1);
  const [third] = await callFromPage(page, 'launches:list', {});
  expect(third!.gatewayUrl).not.toBe(url);
  expect(third!.notices).toEqual([expect.stringMatching(new RegExp(`port ${port} .* is taken; it listens on ${new URL(third!.gatewayUrl!).port} now`))]);
  await gotoView(page, 'Connect an agent');
  const moved = page.getByRole('status').filter({ hasText: 'The gateway moved' });
  await expect(moved).toContainText(`port ${port}`);
  await expect(page.locator('.endpoint-url')).toHaveText(third!.gatewayUrl!);
  await shot(page, testInfo, 'connect-gateway-moved');
  expect(serve().stderr()).toMatch(new RegExp(`gatehouse: the gateway's port ${port} .* is taken`));
});
