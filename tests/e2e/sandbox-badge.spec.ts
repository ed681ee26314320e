// Issue 9: a server that runs with `sandbox: off` is flagged in the Servers view, next to one that
// runs confined (the default). Real Chromium, real host, real bwrap.
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile({
  profiles: {
    'mixed.yaml': `
name: mixed
workspace: \${scratch}
servers:
  confined:
    command: mcp-server-memory
  loose:
    command: mcp-server-memory
    sandbox: off
policy:
  default: allow
`,
  },
});

test('an unsandboxed server carries a warning badge; a confined one does not', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'mixed', 2);
  await gotoView(page, 'Servers');
  const table = page.getByRole('table', { name: 'Servers of mixed' });
  const row = (id: string) => table.getByRole('row').filter({ has: page.getByRole('button', { name: `Details of ${id}`, exact: true }) });
  await expect(row('loose')).toContainText('unsandboxed');
  await expect(row('loose').locator('.badge-warn')).toHaveText('unsandboxed');
  await expect(row('confined')).toContainText('ready');
  await expect(row('confined')).not.toContainText('unsandboxed');
  const [launch] = await callFromPage(page, 'launches:list', {});
  expect(launch!.servers.find((s) => s.id === 'loose')!.sandbox).toMatchObject({ mode: 'off' });
  expect(launch!.servers.find((s) => s.id === 'confined')!.sandbox).toMatchObject({ mode: 'strict', network: 'none' });
  await shot(page, testInfo, 'servers-sandbox-badge');
});
