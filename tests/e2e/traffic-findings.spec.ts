// Data findings in Traffic (docs/data.md "Findings in the window"), end to end in Chromium against
// the real host and the credential fixture server: a call whose result carries an AWS-format key
// gets a findings badge (the rules in its tooltip), the Findings chip keeps exactly that call,
// the detail pane lists direction, rule and JSON path, and the page never shows the key. The
// Servers view shows each tool's flow marks.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'servers', 'credential-server.mjs');
// Pieces joined at run time, as in the fixture: no scanner of this repository flags the test.
const AWS_KEY = ['AKIA', 'QYLPMN5HHHFPZAM2'].join('');
const GITHUB_TOKEN = ['ghp', '_', 'R8kd2LmQ0xZ7vB4nC9sT1wE6yU3iO5pA2hJk'].join('');

const PROFILE = `
name: e2e-traffic-findings
workspace: \${scratch}
servers:
  vault:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE)}]
policy:
  default: allow
`;

const { test, serve } = serveForFile({ profiles: { 'e2e-traffic-findings.yaml': PROFILE } });

test('a credential in a result: badge on the row, the Findings chip keeps it, the detail lists it, the key never shows', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-traffic-findings', 1);
  const [launch] = await callFromPage(page, 'launches:list', {});
  const call = (name: string, args: Record<string, unknown>) => callFromPage(page, 'tools:call', { launchId: launch!.id, name, arguments: args });
  await call('take', { data: 'nothing to find here' });
  await call('creds', {});
  await call('take', { data: 'nor here' });

  await gotoView(page, 'Traffic');
  const grid = page.getByRole('grid', { name: 'Traffic' });
  const calls = grid.getByRole('row').filter({ hasText: 'tools/call' });
  await expect(calls).toHaveCount(3);
  const badge = grid.locator('.traffic-findings');
  await expect(badge).toHaveCount(1);
  await expect(badge).toHaveText(/^\d+ credentials?$/);
  await expect(badge).toHaveAttribute('title', /aws/);
  await expect(calls.filter({ has: page.locator('.traffic-findings') })).toContainText('creds');

  // The chip, with the status toggles: only the call with findings; off again, all three.
  const chip = page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Findings' });
  await chip.click();
  await expect(chip).toHaveAttribute('aria-pressed', 'true');
  await expect(calls).toHaveCount(1);
  await expect(calls.first()).toContainText('creds');
  await shot(page, testInfo, 'traffic-findings-chip');

  // The detail pane lists each finding: direction, rule, JSON path.
  await calls.first().click();
  const table = page.getByRole('table', { name: 'Data findings' });
  await expect(table).toBeVisible();
  await expect(table).toContainText('result');
  await expect(table).toContainText('aws');
  await expect(table).toContainText('$.content[0].text');

  // Never the value: not in the page's text, its attributes (tooltips) or the detail's body.
  const html = await page.content();
  const text = await page.locator('body').innerText();
  for (const v of [AWS_KEY, GITHUB_TOKEN]) {
    expect(html).not.toContain(v);
    expect(text).not.toContain(v);
  }

  await chip.click();
  await expect(calls).toHaveCount(3);
});

test("the Servers view shows each tool's flow marks: fetch_page (openWorldHint) is untrusted", async ({ page }, testInfo) => {
  test.setTimeout(60_000);
  await openApp(page, serve());
  await gotoView(page, 'Servers');
  await page.getByRole('button', { name: 'Details of vault', exact: true }).click();
  const list = page.getByRole('list', { name: "Flow marks of vault's tools" });
  await expect(list).toBeVisible();
  // Only the marked tool is listed; creds and take carry no mark.
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list.getByRole('listitem')).toContainText('fetch_page');
  await expect(list.getByLabel('Flow marks: untrusted')).toContainText('untrusted');
  await shot(page, testInfo, 'servers-flow-marks');
});
