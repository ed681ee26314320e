// Where bubblewrap cannot create namespaces (bwrap made to fail as Ubuntu's AppArmor makes it
// fail), servers run under the reduced landlock kind, and the Servers view says so: a
// "landlock: reduced" badge whose tooltip lists what it could not enforce, and the same list in
// the server's details. Real Chromium, real host, real Landlock (docs/sandbox.md "Sandbox kinds").
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { test, serve } = serveForFile({
  env: { GATEHOUSE_BWRAP: path.join(ROOT, 'tests', 'fixtures', 'sandbox', 'bwrap-apparmor-denied.sh') },
  profiles: {
    'reduced.yaml': `
name: reduced
workspace: \${scratch}
servers:
  memory:
    command: mcp-server-memory
policy:
  default: allow
`,
  },
});

test('a server under the landlock kind carries a "landlock: reduced" badge listing what it does not enforce', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'reduced', 1);
  await gotoView(page, 'Servers');
  const table = page.getByRole('table', { name: 'Servers of reduced' });
  const row = table.getByRole('row').filter({ has: page.getByRole('button', { name: 'Details of memory', exact: true }) });
  const badge = row.locator('.badge-info', { hasText: 'landlock: reduced' });
  await expect(badge).toBeVisible();
  await expect(badge).toHaveAttribute('title', /^Sandbox: landlock \(reduced\)\. Not enforced:\n• landlock: reduced — no PID namespace/);
  await expect(row).not.toContainText('unsandboxed');
  await row.getByRole('button', { name: 'Details of memory', exact: true }).click();
  const list = page.getByRole('list', { name: 'Not enforced for memory' });
  await expect(list).toContainText('no private /tmp');
  const [launch] = await callFromPage(page, 'launches:list', {});
  expect(launch!.servers[0]!.sandbox).toMatchObject({ mode: 'strict', kind: 'landlock' });
  await shot(page, testInfo, 'servers-landlock-badge');
});
