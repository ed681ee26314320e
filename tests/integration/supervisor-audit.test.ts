// Audit rows for a launch (session, server runs with pids and states, messages, stderr) exist
// and survive closing the host and reopening the store from the same data dir.
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host } from '../../main/host';
import { openAuditStore } from '../../main/audit/store';
import { tempDir, writeProfile } from '../support/temp';
import { FAST_RESTART, profileYaml, serverFixture, waitFor } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('audit store', () => {
  it('records the session, runs, states and messages, and they survive a restart', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const host = new Host({ dataDir, stdinGraceMs: 300, termGraceMs: 500 });
    const file = writeProfile(
      tmp.dir,
      profileYaml('audited', { raw: { command: process.execPath, args: [serverFixture('raw-server.mjs'), '--exit-after', '3'], restart: FAST_RESTART } }),
    );
    const launch = await host.launch(file);
    const server = launch.supervisor.get('raw')!;
    const pid1 = server.status().pid!;
    for (const text of ['a', 'b']) {
      await server.client!.request({ method: 'tools/call', params: { name: 'echo', arguments: { text } } }, CallToolResultSchema);
    }
    await server.client!.request({ method: 'tools/call', params: { name: 'echo', arguments: {} } }, CallToolResultSchema).catch(() => {});
    await waitFor(() => server.status().state === 'ready' && server.status().run === 2, { what: 'run 2 ready' });
    const pid2 = server.status().pid!;
    await host.shutdown();

    const check = (store: ReturnType<typeof openAuditStore>) => {
      const session = store.listSessions().find((s) => s.id === launch.id);
      expect(session).toBeDefined();
      expect(session).toMatchObject({ profile: 'audited', kind: 'launch', hostPid: process.pid });
      expect(session!.endedAt).toBeGreaterThan(0);
      expect(session!.messages).toBeGreaterThan(0);
      const runs = store.serverRuns(launch.id);
      expect(runs.map((r) => [r.server, r.run, r.pid])).toEqual([
        ['raw', 1, pid1],
        ['raw', 2, pid2],
      ]);
      expect(runs[0]!.exitCode).toBe(3);
      expect(runs[0]!.states.map((s) => s.state)).toEqual(['starting', 'ready', 'restarting']);
      expect(runs[1]!.states.map((s) => s.state)).toEqual(expect.arrayContaining(['starting', 'ready', 'stopped']));
      const calls = store.queryMessages({ session: launch.id, method: 'tools/call', direction: 'gateway_to_server' });
      expect(calls.length).toBe(3);
      expect(store.queryMessages({ session: launch.id, method: 'initialize' }).length).toBeGreaterThanOrEqual(2);
      expect(store.queryStderr({ session: launch.id }).map((l) => l.line)).toContain('raw-server: exiting on call 3');
    };

    const reopened = openAuditStore({ dataDir });
    try {
      check(reopened);
    } finally {
      reopened.close();
    }
    // And once more after that close: nothing depends on an open handle.
    const again = openAuditStore({ dataDir });
    try {
      check(again);
    } finally {
      again.close();
    }
  });
});
