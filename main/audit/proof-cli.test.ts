// `gatehouse audit verify | export --bundle | verify FILE` as a user runs them (the bundled CLI),
// against a store signed with the install key kept in the secret store's file fallback.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBundle, type TestBundle } from '../../tests/support/build';
import { openSecretStore } from '../auth/secret-store';
import { loadAuditSigner } from './audit-key';
import { auditDbFile } from './store';
import { T0, event, openTestStore, removeDir, tempDir } from './test-support';

let work: string;
let data: string;
let cli: string;
let bundle: TestBundle;
let keyId: string;
const env = { ...process.env, GATEHOUSE_DATA_DIR: '', GATEHOUSE_SECRET_STORE: 'file' };

beforeAll(() => {
  work = tempDir();
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'audit-proof-cli-test');
  cli = bundle.entry('cli');
  data = path.join(work, 'data');
  const signer = loadAuditSigner(openSecretStore({ dataDir: data, env }));
  keyId = signer.keyId;
  const { store } = openTestStore(data, { signer, checkpointEvery: 4 });
  const w = store.writer;
  w.beginSession({ id: 'cccc3333-proof', kind: 'gateway', profile: 'demo', startedAt: T0 });
  for (let i = 0; i < 12; i++) w.traffic(event({ session: 'cccc3333-proof', ts: T0 + i, message: { jsonrpc: '2.0', id: i, result: { text: `row ${i}` } } }));
  w.decision({ session: 'cccc3333-proof', ts: T0 + 20, tool: 'files.write_file', server: 'files', decision: 'DENY', outcome: 'denied', rule: 'policy.rules[0]' });
  w.endSession('cccc3333-proof', { endedAt: T0 + 100 });
  store.close();
}, 60_000);

afterAll(() => {
  removeDir(work);
  bundle?.cleanup();
});

function gh(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, 'audit', ...args, '--data-dir', data], { encoding: 'utf8', env });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('gatehouse audit verify / export --bundle (bundled CLI)', () => {
  it('verifies the untouched store, exports a bundle that verifies without the store, and fails on one changed byte', () => {
    const ok = gh('verify');
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/^ok {6}cccc3333-proof {2}13 rows, signed through row 13/m);
    expect(gh('verify', '--json').out).toContain(`"keyId": "${keyId}"`);

    const file = path.join(work, 'bundle.jsonl');
    const exp = gh('export', '--bundle', file, '--session', 'cccc3333');
    expect(exp.code, exp.err).toBe(0);
    expect(exp.err).toContain(`wrote 13 chained rows to ${file}, signed by key ${keyId}`);

    fs.renameSync(auditDbFile(data), `${auditDbFile(data)}.away`);
    try {
      const alone = gh('verify', file, '--key', keyId);
      expect(alone.code, alone.err).toBe(0);
      expect(alone.out).toContain(`signed by the expected key ${keyId}`);
      expect(gh('verify', file, '--key', '0'.repeat(32)).code).toBe(1);

      const text = fs.readFileSync(file, 'utf8');
      const at = text.indexOf('row 7');
      fs.writeFileSync(file, `${text.slice(0, at)}R${text.slice(at + 1)}`);
      const bad = gh('verify', file);
      expect(bad.code).toBe(1);
      expect(bad.out).toMatch(/^FAILED .*does not match its digest/);
    } finally {
      fs.renameSync(`${auditDbFile(data)}.away`, auditDbFile(data));
    }
  }, 180_000);

  it('exit 1 naming the row after an UPDATE from outside; exit 2 on a usage error', () => {
    const seq = spawnSync('sqlite3', [auditDbFile(data), 'SELECT seq FROM messages ORDER BY seq LIMIT 1 OFFSET 5']).stdout.toString().trim();
    spawnSync('sqlite3', [auditDbFile(data), `UPDATE messages SET bytes = bytes + 1 WHERE seq = ${seq}`]);
    const r = gh('verify', '--session', 'cccc3333'); // row 1 is the decision (control rows go first in a batch)
    expect(r.code).toBe(1);
    expect(r.out).toContain(`FAILED  cccc3333-proof  messages seq ${seq} (row ${Number(seq) + 1}) no longer matches its hash: it was edited`);
    expect(gh('verify', '--bogus').code).toBe(2);
  }, 60_000);
});
