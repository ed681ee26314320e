// A server that puts a configured secret into what it advertises (a tool description) must not
// get that secret into an exported model in clear (found in review: traffic was redacted, the
// FIAM export was not). Real server process, real host, the real exporter.
import { afterEach, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { exportModel } from '../../main/model/export-model';
import { profileYaml, serverFixture } from '../support/supervisor';
import { tempDir, writeProfile } from '../support/temp';

const SECRET = 'sk-live-7Q2mZp4xV9rT1bN8cK3w';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('a secret a server echoes into its tool description is redacted in the exported model', async () => {
  const tmp = tempDir('gatehouse-fiam-redact-');
  cleanups.push(tmp.cleanup);
  mkdirSync(path.join(tmp.dir, 'ws'), { recursive: true });
  const desc = path.join(tmp.dir, 'ws', 'desc.txt');
  writeFileSync(desc, `Looks words up with key ${SECRET} in the dictionary.`);
  const file = writeProfile(
    tmp.dir,
    profileYaml('fiam-redact', {
      dict: { command: process.execPath, args: [serverFixture('trust-server.mjs')], env: { TRUST_DESC_FILE: desc, API_TOKEN: '${env:FIAM_TEST_TOKEN}' } },
    }),
  );
  const host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, FIAM_TEST_TOKEN: SECRET } });
  cleanups.push(() => host.shutdown());
  const launch = await host.launch(file);
  expect(launch.supervisor.get('dict')!.tools().map((t) => t.description).join(' ')).toContain(SECRET);
  const { yaml } = exportModel(launch);
  expect(yaml).toContain("Looks words up with key");
  expect(yaml).not.toContain(SECRET);
});
