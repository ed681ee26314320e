// Servers and Logs, end to end in a real Chromium against the real host: launch the demo profile and
// see its servers become ready; see a server's stderr in Logs; kill a server's process and see
// the supervisor restart it. Screenshots of Profiles, Servers, Logs, Connect and Audit.
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile();

test.describe.configure({ mode: 'serial' });

test('launching the demo profile makes its three servers ready', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await gotoView(page, 'Profiles');
  await expect(page.getByRole('region', { name: 'demo', exact: true })).toBeVisible();
  await shot(page, testInfo, 'profiles');

  await launchFromProfiles(page, 'demo', 3);
  await gotoView(page, 'Servers');
  const table = page.getByRole('table', { name: 'Servers of demo' });
  for (const id of ['workspace', 'files', 'memory']) {
    const row = table.getByRole('row').filter({ has: page.getByRole('button', { name: `Details of ${id}`, exact: true }) });
    await expect(row).toContainText('ready');
  }
  await shot(page, testInfo, 'servers');
});

test("a server's stderr shows in Logs", async ({ page }, testInfo) => {
  await openApp(page, serve());
  await gotoView(page, 'Servers');
  // From the server's details, as a person would: "Open logs" of the filesystem server.
  await page.getByRole('button', { name: 'Details of files', exact: true }).click();
  await page.getByRole('button', { name: 'Open logs' }).click();
  await expect(page.getByRole('main', { name: 'Logs' })).toBeVisible();
  // @modelcontextprotocol/server-filesystem prints this on stderr when it starts.
  await expect(page.getByRole('grid', { name: 'Logs' })).toContainText('Secure MCP Filesystem Server running on stdio');
  await shot(page, testInfo, 'logs');
});

test('a killed server is restarted: restarting, then ready, with one restart and its last exit', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await gotoView(page, 'Servers');
  const [launch] = await callFromPage(page, 'launches:list', {});
  const before = launch!.servers.find((s) => s.id === 'memory')!;
  expect(before.state).toBe('ready');
  expect(before.pid).toBeGreaterThan(0);
  const table = page.getByRole('table', { name: 'Servers of demo' });
  const row = table.getByRole('row').filter({ has: page.getByRole('button', { name: 'Details of memory', exact: true }) });
  // The pid the Servers view shows is the one we kill.
  await expect(row).toContainText(String(before.pid));
  await row.getByRole('button', { name: 'Details of memory', exact: true }).click();

  process.kill(before.pid!, 'SIGKILL');

  const details = page.getByRole('region', { name: /^memory/ });
  // The crash banner: how it ended (the signal), while the supervisor backs off and restarts it.
  await expect(page.getByText(/memory killed by SIGKILL after/)).toBeVisible();
  await shot(page, testInfo, 'servers-crashed');
  await expect(row).toContainText('ready', { timeout: 30_000 });
  await expect(row.getByRole('cell').nth(5)).toHaveText('1');
  await expect(details).toContainText('#2 · 1 restart');
  const after = (await callFromPage(page, 'launches:list', {}))[0]!.servers.find((s) => s.id === 'memory')!;
  expect(after.pid).not.toBe(before.pid);
  expect(after.restarts).toBe(1);
  expect(after.lastExit).toMatchObject({ signal: 'SIGKILL' });
  await expect(row).toContainText(String(after.pid));
  await shot(page, testInfo, 'servers-restarted');
});

test('Connect and Audit views show the running launch', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await gotoView(page, 'Connect an agent');
  await expect(page.getByRole('main', { name: 'Connect an agent' })).toContainText(/127\.0\.0\.1:\d+\/mcp/);
  await shot(page, testInfo, 'connect');
  await gotoView(page, 'Audit');
  await expect(page.getByRole('main', { name: 'Audit' })).toContainText('demo');
  await shot(page, testInfo, 'audit');
});
