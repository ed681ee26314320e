// Eras (docs/gateway.md "Upstream eras"), in the window: the Servers view shows each server's negotiated era and protocol
// version (a new-era HTTP server — the SDK v2 fixture — beside an old-era stdio one), and Traffic
// labels the exchange of a call to the new-era server. Real host, real servers, Chromium.
import { test as base } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { NEW_ERA_FIXTURE, startFixtureUrl, type FixtureServer } from '../support/fixture-url';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const profiles: Record<string, string> = {};
let fixture: FixtureServer | undefined;

// Registered before serveForFile's own beforeAll: the profile names the fixture's URL.
base.beforeAll(async () => {
  fixture = await startFixtureUrl(NEW_ERA_FIXTURE);
  const url = fixture.url;
  profiles['eras.yaml'] = `
name: eras
workspace: \${scratch}
servers:
  next:
    url: ${JSON.stringify(url)}
  old:
    command: mcp-server-memory
policy:
  default: allow
`;
});
base.afterAll(() => fixture?.stop());

const { test, serve } = serveForFile({ profiles });

test('Servers shows each server\'s era and version; Traffic labels the call to the new-era server', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'eras', 2);
  await gotoView(page, 'Servers');
  const table = page.getByRole('table', { name: 'Servers of eras' });
  const row = (id: string) => table.getByRole('row').filter({ has: page.getByRole('button', { name: `Details of ${id}`, exact: true }) });
  await expect(row('next').locator('.badge-info')).toHaveText('2026-07-28 · new era');
  await expect(row('next').locator('.badge-info')).toHaveAttribute('title', /stateless.*found by one probe on this start/);
  await expect(row('old')).toContainText('2025-11-25');
  await expect(row('old')).not.toContainText('new era');
  const [launch] = await callFromPage(page, 'launches:list', {});
  expect(launch!.servers.find((s) => s.id === 'next')).toMatchObject({ protocolVersion: '2026-07-28', era: { era: 'new', how: 'probed' } });
  expect(launch!.servers.find((s) => s.id === 'old')).toMatchObject({ era: { era: 'old', how: 'handshake' } });
  await shot(page, testInfo, 'servers-eras');

  const res = await callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'test_simple_text', arguments: {} });
  expect(JSON.stringify(res.result?.content)).toContain('simple text response');
  await gotoView(page, 'Traffic');
  const grid = page.getByRole('grid');
  const call = grid.getByRole('row').filter({ hasText: 'tools/call' }).filter({ hasText: 'next' }).first();
  await expect(call.locator('.traffic-tag-era')).toHaveText('2026 S');
  await expect(call.locator('.traffic-tag-era')).toHaveAttribute('title', /server speaks MCP 2026-07-28/);
  await shot(page, testInfo, 'traffic-era-tag');
});
