// What happens in the last moments of a host is on record: a call still waiting for its approval
// when the host shuts down is closed in the audit store (not left pending, and no "row written
// after the store was closed"), and traffic still queued for the audit writer when the tap
// closes reaches the store.
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { Host } from '../../main/host';
import { openAuditStore } from '../../main/audit/store';
import { tempDir, writeProfile } from '../support/temp';
import { connectHttp, waitFor } from '../support/gateway';

const PROFILE = `
name: shutdown-audit
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: approve
  approval_timeout_s: 60
`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What the host reports on stderr during the test (still printed). */
function captureStderr(): string[] {
  const reports: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    reports.push(String(chunk));
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  cleanups.push(() => {
    process.stderr.write = write;
  });
  return reports;
}

const TOKEN = 'shutdown-token-1234567890';

/** A host on a fresh data directory with the profile launched over HTTP, its stderr captured. */
async function launched() {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const dataDir = path.join(tmp.dir, 'data');
  const host = new Host({ dataDir });
  const reports = captureStderr();
  const launch = await host.launch(writeProfile(tmp.dir, PROFILE), { httpPort: 0, token: TOKEN });
  return { dataDir, host, reports, launch };
}

describe('host shutdown and the audit store', () => {
  it('closes a call that waits for approval, and keeps the traffic the writer had not been handed yet', async () => {
    const { dataDir, host, reports, launch } = await launched();
    const client = await connectHttp(launch, {}, 'shutdown-agent');
    // A person is there (the window) who has not answered yet when the host shuts down.
    host.broker.attachApprover({ name: 'ui' });
    const { tools } = await client.listTools();
    const tool = tools[0]!.name;
    const call = client.callTool({ name: tool, arguments: {} }).catch((err: unknown) => err);
    await waitFor(() => host.broker.pending().length > 0, 'the call waiting for its approval');
    // A message the tap takes as the last launch stops (a dying server's last words), still waiting
    // for the audit writer's next batch (25 ms) when the host goes on to close its buses and store.
    host.on('stopped', () =>
      host.tap.publish({ ts: Date.now(), session: launch.id, direction: 'agent_to_gateway', kind: 'notification', method: 'notifications/last-words', bytes: 60, message: { jsonrpc: '2.0', method: 'notifications/last-words' } }),
    );
    // Shut down while the call waits: its exchange closes during the shutdown.
    await host.shutdown();
    await call;
    await client.close().catch(() => {});

    const store = openAuditStore({ dataDir });
    try {
      const calls = store.queryCalls({ session: launch.id }).filter((c) => c.method === 'tools/call');
      expect(calls).toHaveLength(1);
      expect(calls[0]!.outcome).not.toBe('pending');
      // The list the agent made last and everything before it: every message of the launch the
      // tap saw reached the store (the agent's tools/list request, both legs).
      expect(store.queryMessages({ session: launch.id, method: 'tools/list' }).length).toBeGreaterThanOrEqual(2);
      expect(store.queryMessages({ session: launch.id, method: 'notifications/last-words' })).toHaveLength(1);
    } finally {
      store.close();
    }
    expect(reports.filter((r) => r.includes('written after the store was closed'))).toEqual([]);
  }, 60_000);

  it('waits for a stop already under way (a launch stopped from the window, then the app quits)', async () => {
    const { dataDir, host, reports, launch } = await launched();
    const stopping = host.stop(launch.id, 'stopped from the window');
    // The second stop and the shutdown both wait for the first.
    expect(host.stop(launch.id)).toBe(stopping);
    await host.shutdown();
    await stopping;
    const store = openAuditStore({ dataDir });
    try {
      const session = store.listSessions().find((s) => s.id === launch.id);
      expect(session?.endedAt).toBeGreaterThan(0);
      expect(session?.endReason).toBe('stopped from the window');
      expect(store.serverRuns(launch.id).map((r) => r.states.at(-1)?.state)).toEqual(['stopped']);
    } finally {
      store.close();
    }
    expect(reports.filter((r) => r.includes('written after the store was closed'))).toEqual([]);
  }, 60_000);
});
