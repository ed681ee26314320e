// SIGKILL of the host under steady load (docs/audit.md "Audit store"): every call the agent saw answered is in the
// audit store (0 missing), and the session the kill left open is closed as `crashed` at the
// next start. Real gateway process, real SQLite file, a real SIGKILL.
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openAuditStore, auditDbFile } from '../../main/audit/store';
import { FaultRig, profileYaml, useCliBundle } from './harness';

const cli = useCliBundle();

describe('host SIGKILL under load', { timeout: 120_000 }, () => {
  it('loses no answered call from the audit store, and the next start closes the session as crashed', async () => {
    const rig = new FaultRig(cli(), profileYaml({ args: ['--mode', 'ok'] }));
    try {
      await rig.initialize();
      await rig.request('tools/list');
      // Steady load: 8 calls in flight at all times, for ~2 s, then SIGKILL mid-stream.
      const answered = new Set<number>();
      let stop = false;
      let nextId = 100_000;
      const worker = async () => {
        while (!stop) {
          const id = nextId++;
          rig.peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'good_echo', arguments: { text: `load ${id}` } } });
          await rig.peer.waitFor((f) => f.message.id === id, `answer ${id}`, 30_000).then(
            () => answered.add(id),
            () => undefined,
          );
        }
      };
      const workers = Array.from({ length: 8 }, () => worker());
      await new Promise((r) => setTimeout(r, 2000));
      rig.peer.child.kill('SIGKILL');
      stop = true;
      await rig.peer.exit;
      // Whatever reached us before the kill counts as answered.
      for (const f of rig.peer.frames) if (typeof f.message.id === 'number' && f.message.id >= 100_000 && 'result' in f.message) answered.add(f.message.id);
      await Promise.race([Promise.all(workers), new Promise((r) => setTimeout(r, 100))]);

      const file = auditDbFile(rig.dataDir);
      // Read the file as the kill left it, before any recovery.
      const raw = new Database(file, { readonly: true });
      const rows = raw
        .prepare(`SELECT rpc_id FROM messages WHERE direction = 'gateway_to_agent' AND kind IN ('response', 'error') AND method = 'tools/call'`)
        .all() as Array<{ rpc_id: string }>;
      const open = raw.prepare(`SELECT id FROM sessions WHERE ended_at IS NULL`).all() as Array<{ id: string }>;
      raw.close();
      const inFile = new Set(rows.map((r) => Number(r.rpc_id)));
      expect(answered.size).toBeGreaterThan(50);
      expect(open.length).toBe(1);

      // A read right after the kill, before any host opens the store again: `gatehouse audit
      // calls` replays the dead host's crash journal first (AuditStore.replayDeadHosts), so it
      // misses none of the answered calls either.
      const read = spawnSync(process.execPath, [cli(), 'audit', 'calls', '--session', 'all', '-n', '1000000', '--json', '--data-dir', rig.dataDir], {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      });
      expect(read.status, read.stderr).toBe(0);
      const listed = (JSON.parse(read.stdout) as Array<{ downstreamId?: string; tool: string; outcome?: string }>).filter((c) => c.tool === 'good.echo');
      const viaCli = new Set(listed.filter((c) => c.outcome === 'ok').map((c) => Number(c.downstreamId)));

      const missingViaCli = [...answered].filter((id) => !viaCli.has(id));
      process.stderr.write(`[faults] host SIGKILL: audit calls right after the kill lists ${viaCli.size} ok calls, ${missingViaCli.length} of the answered missing\n`);
      expect(missingViaCli).toEqual([]);

      // The next start (a host opening the store) replays the crash journal of the writer thread
      // (main/audit/journal.ts: every answer was journaled before it left) and closes the session
      // as crashed.
      const store = openAuditStore({ dataDir: rig.dataDir, onError: () => {} });
      try {
        const stored = new Set(
          store
            .queryMessages({ session: open[0]!.id, limit: 1_000_000 })
            .filter((m) => m.direction === 'gateway_to_agent' && (m.kind === 'response' || m.kind === 'error') && m.method === 'tools/call')
            .map((m) => Number(m.id)),
        );
        const missing = [...answered].filter((id) => !stored.has(id));
        process.stderr.write(
          `[faults] host SIGKILL: ${answered.size} calls answered to the agent, ${inFile.size} answers committed by the writer thread, ${stored.size} after the journal replay, ${missing.length} missing\n`,
        );
        expect(missing).toEqual([]);
        const session = store.getSession(open[0]!.id);
        expect(session?.endedAt).toBeDefined();
        expect(session?.endReason).toMatch(/^crashed: the host \(pid \d+\) ended without closing this session/);
        process.stderr.write(`[faults] next start: session ${open[0]!.id.slice(0, 8)} closed as "${session?.endReason}"\n`);
      } finally {
        store.close();
      }
    } finally {
      rig.cleanup();
    }
  });
});
