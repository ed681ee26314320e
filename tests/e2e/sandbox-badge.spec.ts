// The sandbox badge (docs/sandbox.md "Modes"): a server that runs with `sandbox: off` is flagged in the Servers view, next to one that
// runs confined (the default); each one's details say how its limits are enforced. Real Chromium,
// real host, real bwrap, real cgroups.
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

  // Each server's details say how its limits are enforced, as its status does.
  for (const id of ['confined', 'loose']) {
    const limits = launch!.servers.find((s) => s.id === id)!.sandbox?.limits;
    // Root here and in CI: a cgroup of its own (docs/sandbox.md "Limits: which mechanism").
    expect(limits).toMatch(/^(cgroup v1|cgroup v2|systemd scope|rlimit) · /);
    await page.getByRole('button', { name: `Details of ${id}`, exact: true }).click();
    const details = page.getByRole('region', { name: new RegExp(`^${id}`) });
    await expect(details.locator('dt', { hasText: /^Limits$/ }).locator('+ dd')).toHaveText(limits!);
  }
});

