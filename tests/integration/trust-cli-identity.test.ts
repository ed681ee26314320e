// One identity everywhere (docs/trust.md "One identity everywhere"): `gatehouse trust accept`
// in one folder, then `trust diff` and `gatehouse launch` of the same workspace-less profile from
// another folder, with its `${secret:…}` only in the secret store (the encrypted file here, as
// on a machine without a keychain). The built CLI in child processes, real pin files, real bwrap.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBundle, type TestBundle } from '../support/build';
import { serverFixture, waitFor } from '../support/supervisor';
import { tempDir } from '../support/temp';

let bundle: TestBundle;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'trust-identity');
}, 60_000);
afterAll(() => bundle?.cleanup());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('trust accept, trust diff and launch agree on a profile without workspace:', () => {
  it('accepted in one folder, it launches from another with nothing "changed (cwd)"; the secret comes from the secret store', async () => {
    const tmp = tempDir('gh-trust-id-');
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const [here, there] = [path.join(tmp.dir, 'here'), path.join(tmp.dir, 'there')];
    mkdirSync(here);
    mkdirSync(there);
    const file = path.join(tmp.dir, 'nows.yaml');
    writeFileSync(
      file,
      JSON.stringify({ name: 'nows', policy: { default: 'allow' }, servers: { probe: { command: process.execPath, args: [serverFixture('probe-server.mjs')], env: { TOKEN: '${secret:ONLY_IN_STORE}' } } } }),
    );
    // No GATEHOUSE_SECRET_* in the environment: the value lives only in the secret store.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GATEHOUSE_'))) as NodeJS.ProcessEnv;
    Object.assign(env, { GATEHOUSE_SECRET_STORE: 'file', GATEHOUSE_DATA_DIR: dataDir });
    const cli = (cwd: string, args: string[], input?: string) => spawnSync(process.execPath, [bundle.entry('cli'), ...args], { cwd, env, encoding: 'utf8', input, timeout: 30_000 });

    const set = cli(here, ['secrets', 'set', 'ONLY_IN_STORE'], 'store-value-7\n');
    expect(set.status, set.stderr).toBe(0);

    const accept = cli(here, ['trust', 'accept', '--profile', file]);
    expect(accept.stderr).not.toMatch(/is not set/);
    expect(accept.status, accept.stderr).toBe(0);
    expect(accept.stderr).toContain('approved: launch of probe');

    const diff = cli(there, ['trust', 'diff', '--profile', file]);
    expect(diff.status, diff.stderr).toBe(0);
    expect(diff.stdout).toBe('');
    expect(diff.stderr).toContain("nothing in profile 'nows' waits for review");

    const child = spawn(process.execPath, [bundle.entry('cli'), 'launch', '--profile', file, '--no-http', '--no-approver'], { cwd: there, env, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    await waitFor(() => /1 of 1 servers ready|waiting for approval|not started until approved/.test(stderr), { what: `a launch outcome (stderr so far: ${stderr})`, timeoutMs: 40_000 });
    expect(stderr).not.toMatch(/changed \(cwd\)|waiting for approval|not started/);
    expect(stderr).toMatch(/1 of 1 servers ready/);
    expect(stderr).not.toContain('store-value-7');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }, 90_000);
});
