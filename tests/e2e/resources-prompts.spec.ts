// The Resources and Prompts views, the HAR export and edit-then-replay, end to end against
// server-everything (it has resources, templates and prompts): a resource read and a prompt get
// from the window go through the gateway and appear as exchanges in Traffic; an agent's HTTP calls
// export as a HAR that validates against the HAR 1.2 schema, with no token in it.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { ensureLaunched, expect, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const PROFILE = `
name: e2e-views
workspace: \${scratch}
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
`;

const TOKEN = randomBytes(24).toString('hex');
const { test, serve } = serveForFile({ profiles: { 'e2e-views.yaml': PROFILE }, env: { GATEHOUSE_TOKEN: TOKEN } });
test.describe.configure({ mode: 'serial' });

async function gotoNav(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: label, exact: true }).click();
  await expect(page.getByRole('main', { name: label })).toBeVisible();
}

/** Follows the result's "exchange …" link into Traffic and checks the selected row. */
async function openExchangeInTraffic(page: Page, result: ReturnType<Page['getByRole']>, method: string): Promise<void> {
  const link = result.getByRole('button', { name: /^exchange / });
  await expect(link).toContainText('ui-web#');
  await link.click();
  await expect(page.getByRole('main', { name: 'Traffic' })).toBeVisible();
  const selected = page.getByRole('grid', { name: 'Traffic' }).getByRole('row', { selected: true });
  await expect(selected).toContainText(method);
  const detail = page.getByRole('region', { name: new RegExp(`^Details of ${method.replace('/', '\\/')}`) });
  await expect(detail).toBeVisible();
  await expect(detail.getByRole('list', { name: 'Messages of this exchange' }).getByRole('button').filter({ hasText: 'server to gateway' })).toHaveCount(1);
}

test('a resource read and a prompt get through the gateway appear as exchanges', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openApp(page, serve());
  await launchFromProfiles(page, 'e2e-views', 1);

  await gotoNav(page, 'Resources');
  const list = page.getByRole('navigation', { name: 'Resources and templates' });
  await list.getByRole('button', { name: /demo:\/\/resource\/dynamic\/text\/\{resourceId\}/ }).click();
  const panel = page.getByRole('region', { name: /^Resource / });
  await panel.getByRole('textbox', { name: 'resourceId' }).fill('7');
  await expect(panel).toContainText('demo://resource/dynamic/text/7');
  await panel.getByRole('button', { name: 'Read', exact: true }).click();
  const contents = panel.getByRole('region', { name: 'Contents' });
  await expect(contents.getByLabel('Text of demo://resource/dynamic/text/7')).toContainText('Resource 7');
  // A blob is decoded for reading.
  await list.getByRole('button', { name: /demo:\/\/resource\/dynamic\/blob\/\{resourceId\}/ }).click();
  await page.getByRole('region', { name: /^Resource / }).getByRole('textbox', { name: 'resourceId' }).fill('8');
  await page.getByRole('region', { name: /^Resource / }).getByRole('button', { name: 'Read', exact: true }).click();
  await expect(page.getByLabel('Decoded blob of demo://resource/dynamic/blob/8')).toContainText('Resource 8');
  await shot(page, testInfo, 'resources');
  await openExchangeInTraffic(page, page.getByRole('region', { name: 'Contents' }), 'resources/read');

  await gotoNav(page, 'Prompts');
  await page.getByRole('navigation', { name: 'Prompts' }).getByRole('button', { name: /^args-prompt/ }).click();
  const prompt = page.getByRole('region', { name: 'Get args-prompt' });
  // The form is the prompt's argument list: city is required.
  await prompt.getByRole('button', { name: 'Get prompt' }).click();
  await expect(prompt.getByText('required', { exact: true })).toBeVisible();
  await prompt.getByRole('textbox', { name: 'city (required)' }).fill('Lyon');
  await prompt.getByRole('textbox', { name: 'state', exact: true }).fill('Rhône');
  await prompt.getByRole('button', { name: 'Get prompt' }).click();
  const messages = prompt.getByRole('region', { name: 'Prompt messages' });
  await expect(messages).toContainText('Lyon, Rhône');
  await shot(page, testInfo, 'prompts');
  await openExchangeInTraffic(page, messages, 'prompts/get');
  expect(errors).toEqual([]);
});

test('an agent\'s HTTP calls export as a HAR 1.2 file that validates, the token a placeholder; a call is edited and replayed', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await ensureLaunched(page, 'e2e-views', 1);
  const launches = await callFromPage(page, 'launches:list', {});
  const launch = launches.find((l) => l.profile === 'e2e-views');
  const token = TOKEN;
  const client = new Client({ name: 'e2e-har-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(launch!.gatewayUrl!), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    await client.callTool({ name: 'echo', arguments: { message: 'from-the-agent' } });
    await client.readResource({ uri: 'demo://resource/dynamic/text/3' });
  } finally {
    await client.close();
  }

  await gotoNav(page, 'Traffic');
  const grid = page.getByRole('grid', { name: 'Traffic' });
  await expect(grid.getByRole('row').filter({ hasText: 'tools/call' }).first()).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export HAR' }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.har$/);
  const text = readFileSync((await download.path())!, 'utf8');
  expect(text).not.toContain(token);
  const har = JSON.parse(text) as { log: { entries: Array<{ request: { headers: Array<{ name: string; value: string }>; postData?: { text: string } } }> } };
  const require = createRequire(import.meta.url);
  const schemas = require('har-schema') as Record<string, Record<string, unknown>>;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries(schemas)) if (name !== 'har') ajv.addSchema(schema);
  const validate = ajv.compile(schemas.har!);
  expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
  const echo = har.log.entries.find((e) => e.request.postData?.text.includes('from-the-agent'));
  expect(echo?.request.headers).toEqual(expect.arrayContaining([{ name: 'Authorization', value: 'Bearer $GATEHOUSE_TOKEN' }, expect.objectContaining({ name: 'Mcp-Session-Id' })]));

  // Edit-then-replay: the agent's echo, its message changed in the editor, then sent again.
  await grid.getByRole('row').filter({ hasText: 'tools/call' }).filter({ hasText: 'echo' }).first().click();
  const details = page.getByRole('button', { name: 'Details', exact: true });
  if (await details.isVisible()) await details.click();
  const detail = page.getByRole('region', { name: /^Details of tools\/call/ });
  await expect(detail.getByRole('button', { name: 'Copy as curl' })).toBeVisible();
  await detail.getByRole('button', { name: 'Edit & replay' }).click();
  const editor = detail.getByRole('region', { name: 'Edit and replay' });
  const json = editor.getByRole('textbox', { name: 'Arguments to replay (JSON)' });
  await expect(json).toHaveValue(/from-the-agent/);
  await json.fill('{"message": ');
  await expect(editor.getByRole('alert')).toContainText('Not JSON');
  await expect(editor.getByRole('button', { name: 'Replay edited' })).toBeDisabled();
  await json.fill('{"message": "edited-by-a-person"}');
  await expect(editor.getByLabel('Changes to the arguments')).toContainText('edited-by-a-person');
  await editor.getByRole('button', { name: 'Replay edited' }).click();
  const replay = detail.getByRole('region', { name: 'Replay 1' });
  await expect(replay).toContainText('edited arguments');
  await expect(replay.getByLabel("Difference between the original result and the replay's")).toContainText('edited-by-a-person');
  await shot(page, testInfo, 'edit-replay');
});
