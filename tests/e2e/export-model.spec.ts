// Export model (docs/fiam.md), end to end in a real Chromium against the real host: launch the demo,
// read a file through the tool console's host command, click Export model in the Servers view and
// get a FIAM v0.2 YAML download that the specimen's reader accepts, with the call executed.
import { readFileSync } from 'node:fs';
import { readFiam } from '../../main/model/fiam-schema';
import { callFromPage } from './support/page-api';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile();

test('Export model downloads a FIAM model of the running demo, with the read_file call observed', async ({ page }, testInfo) => {
  await openApp(page, serve());
  await launchFromProfiles(page, 'demo', 3);
  const [launch] = await callFromPage(page, 'launches:list', {});
  const call = await callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'read_file', arguments: { file_path: 'README.md' } });
  expect(call.result?.isError).toBeFalsy();

  await gotoView(page, 'Servers');
  await expect(page.getByText('workspace', { exact: false }).first()).toBeVisible();
  const button = page.getByRole('button', { name: 'Export model' });
  await expect(button).toBeVisible();
  await shot(page, testInfo, 'servers-export-model');
  // The audit writer drains in ~25 ms batches: a moment after the call, the export sees it.
  let doc: ReturnType<typeof readFiam> | undefined;
  await expect(async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    expect(download.suggestedFilename()).toBe('demo.fiam.yaml');
    doc = readFiam(readFileSync((await download.path())!, 'utf8'), 'the downloaded model');
    expect(doc.interactions.find((x) => x.id === 'interaction.tool.workspace.fs-read')?.realization_status).toBe('fiam.interaction-status.executed');
  }).toPass({ timeout: 30_000 });
  const observed = doc!.assertions.find((a) => a.id === 'assertion.tool.workspace.fs-read.actual-input')!;
  expect(observed.evidence.mode).toBe('fiam.evidence.observed');
  expect(observed.evidence.observed?.sessions).toContain(launch!.id);
});
