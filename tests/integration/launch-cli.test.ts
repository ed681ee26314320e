// `gatehouse launch --profile P` as a user runs it: a child process that prints state changes
// on stderr, and on SIGTERM or SIGINT shuts every server down (grandchildren included) and
// exits. The CLI is built into a private folder (tests/support/build.ts), not out/.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openAuditStore } from '../../main/audit/store';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';
import { buildTestBundle, type TestBundle } from '../support/build';
import { FAST_RESTART, pidAlive, probePid, profileYaml, serverFixture, waitFor } from '../support/supervisor';

let bundle: TestBundle;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' });
}, 60_000);
afterAll(() => bundle?.cleanup());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Pids = { wrapper: number; server: number; sleeper: number };

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  describe(`gatehouse launch, stopped by ${signal}`, () => {
    it('reports ready, then leaves no server process behind', async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const pidsFile = path.join(tmp.dir, 'wrapped.pids.json');
      const file = writeProfile(
        tmp.dir,
        profileYaml('cli', {
          // Host pids written outside the workspace: unsandboxed (sandbox-orphans.test.ts runs the same in bwrap).
          wrapped: { command: process.execPath, args: [serverFixture('wrapper.mjs'), pidsFile], restart: FAST_RESTART, sandbox: 'off' },
          plain: { command: process.execPath, args: [serverFixture('raw-server.mjs'), '--ignore-term'], restart: FAST_RESTART },
        }),
      );
      const dataDir = path.join(tmp.dir, 'data');
      pinProfile(dataDir, file);
      const child = spawn(process.execPath, [bundle.entry('cli'), 'launch', '--profile', file, '--no-http', '--no-approver', '--data-dir', dataDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      cleanups.push(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));

      await waitFor(() => /2 of 2 servers ready/.test(stderr), { what: `servers ready (stderr so far: ${stderr})` });
      const fromStderr = [...stderr.matchAll(/ ready\s+pid (\d+)/g)].map((m) => Number(m[1]));
      expect(fromStderr.length).toBe(2);
      const p = await waitFor(() => existsSync(pidsFile) && (JSON.parse(readFileSync(pidsFile, 'utf8')) as Pids), { what: 'pid file' });
      expect(fromStderr).toContain(p.wrapper);
      const pids = [...new Set([...fromStderr, p.wrapper, p.server, p.sleeper])];
      for (const pid of pids) expect(pidAlive(pid)).toBe(true);

      child.kill(signal);
      const { code } = await exited;
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(stderr).toContain(`shutting down (received ${signal})`);
      expect(pids.map(probePid)).toEqual(pids.map(() => 'ESRCH'));

      // The audit store agrees: every run recorded with its pid, and ended.
      const store = openAuditStore({ dataDir });
      try {
        const [session] = store.listSessions();
        expect(session?.endedAt).toBeGreaterThan(0);
        const runs = store.serverRuns(session!.id);
        expect(runs.map((r) => r.pid).sort()).toEqual([...fromStderr].sort());
        for (const r of runs) expect(r.endedAt).toBeGreaterThan(0);
      } finally {
        store.close();
      }
    }, 60_000);
  });
}
