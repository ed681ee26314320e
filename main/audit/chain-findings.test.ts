// Data findings in the tamper-evident audit (docs/audit.md "Tamper-evident audit"): the real
// writer stores a call's findings next to its exchange row and chains them with it; tampering
// from outside (the sqlite3 CLI) is named by verify, and a bundle with findings verifies alone.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { DataFinding } from '../data/scanner';
import { readBundle } from './bundle';
import { firstProblem as first, useChainFixture } from './chain-fixture';
import { MIGRATIONS, migrate } from './migrations';
import { auditDbFile } from './store';
import { T0, event, openTestStore } from './test-support';
import { verifyChains } from './verify';

const fx = useChainFixture();
const verifyStore = () => fx.verifyStore();
const sqlite = (sql: string): string => fx.sqlite(sql);

const MINUTE = 60_000;
const argFinding = (i: number): DataFinding => ({ direction: 'arguments', kind: 'secret', rule: 'secret:GITHUB_TOKEN', path: '$.content', start: i, end: i + 40 });
const resultFinding = (i: number): DataFinding => ({ direction: 'result', kind: 'credential', rule: 'github', detail: 'GITHUB_TOKEN', path: '$.content[0].text', start: 0, end: 40 + i });

/**
 * One session, 4 calls: each a request and response message, a decision, an exchange written
 * pending (with its argument finding) and again when it ends (the same argument finding, and a
 * result finding). 8 messages + 4 decisions + 4 exchanges + 8 findings = 24 chained rows.
 */
function record(): void {
  fx.record(5, (store) => {
    const w = store.writer;
    for (let i = 1; i <= 4; i++) {
      const ex = `x-${i}`;
      const base = { id: ex, ts: T0 + i * MINUTE, session: 's-1', kind: 'call', method: 'tools/call', tool: 'files.read_file' } as const;
      w.exchange({ ...base, outcome: 'pending', findings: [argFinding(i)] });
      w.traffic(event({ session: 's-1', exchange: ex, ts: T0 + i * 10 }));
      if (i % 2 === 0) store.flush(); // the pending row and the final row in different batches
      w.decision({ ts: T0 + i * 10 + 1, session: 's-1', exchange: ex, tool: 'files.read_file', decision: 'ALLOW', outcome: 'allowed', rule: 'policy.rules[0]' });
      w.traffic(event({ session: 's-1', exchange: ex, direction: 'server_to_gateway', kind: 'response', ts: T0 + i * 10 + 2 }));
      w.exchange({ ...base, outcome: 'ok', decision: 'ALLOW', latencyMs: 3, findings: [argFinding(i), resultFinding(i)] });
    }
  });
}

const findings = (): Array<{ seq: number; chain_n: number | null; rule: string }> => {
  const d = new Database(auditDbFile(fx.dir), { readonly: true });
  try {
    return d.prepare('SELECT seq, chain_n, rule FROM data_findings ORDER BY seq').all() as Array<{ seq: number; chain_n: number | null; rule: string }>;
  } finally {
    d.close();
  }
};

describe('data findings in the audit hash chain', () => {
  it('chains each finding once, in the same chain as the call; an untouched store verifies', () => {
    record();
    const rows = findings();
    expect(rows).toHaveLength(8); // the repeated argument findings were not stored (nor chained) twice
    expect(rows.every((r) => r.chain_n !== null)).toBe(true);
    const r = verifyStore();
    expect(r.ok).toBe(true);
    const c = r.chains.find((x) => x.chain === 's-1')!;
    expect(c.rows).toBe(24);
    expect(c.signedThrough).toBe(24);
    expect(c.unchained).toBe(0);
  });

  it("names a finding whose rule was changed with the sqlite3 CLI", () => {
    record();
    const victim = findings()[3]!;
    sqlite(`UPDATE data_findings SET rule = 'none' WHERE seq = ${victim.seq}`);
    expect(first(verifyStore())).toMatchObject({ kind: 'edited', table: 'data_findings', seq: victim.seq, n: victim.chain_n });
  });

  it('names a finding deleted with the sqlite3 CLI', () => {
    record();
    const gone = findings()[2]!;
    sqlite(`DELETE FROM data_findings WHERE seq = ${gone.seq}`);
    const p = first(verifyStore());
    expect(p).toMatchObject({ kind: 'deleted', n: gone.chain_n });
  });

  it('names a fake finding inserted with the sqlite3 CLI, plain or with a copied chain position', () => {
    record();
    sqlite(`INSERT INTO data_findings (ts, session, exchange, direction, kind, rule, path, start, "end")
            VALUES (${T0 + 5}, 's-1', 'x-2', 'result', 'secret', 'secret:FAKE', '$.x', 0, 4)`);
    const fake = findings().at(-1)!;
    expect(first(verifyStore())).toMatchObject({ kind: 'inserted', table: 'data_findings', seq: fake.seq });

    sqlite(`DELETE FROM data_findings WHERE seq = ${fake.seq}`);
    expect(verifyStore().ok).toBe(true);
    sqlite(`INSERT INTO data_findings (ts, session, exchange, direction, kind, rule, path, start, "end", chain_n, prev_hash, row_hash)
            SELECT ts, session, exchange, direction, kind, 'secret:FAKE', path, start + 1, "end", chain_n, prev_hash, row_hash FROM data_findings ORDER BY seq LIMIT 1`);
    expect(first(verifyStore())).toMatchObject({ kind: 'inserted', table: 'data_findings', seq: findings().at(-1)!.seq });
  });

  it('a bundle with findings verifies on its own after the store is removed, and names a finding edited in it', async () => {
    record();
    await fx.withBundle(24, (file) => {
      const b = readBundle(file);
      expect(b.chains.flatMap((c) => c.rows).filter((r) => r.table === 'data_findings')).toHaveLength(8);
      expect(verifyChains(b.chains, b.verifier).ok).toBe(true);
      // A finding edited in the bundle's data (its framing aside) is named by the chain check.
      const row = b.chains[0]!.rows.find((r) => r.table === 'data_findings')!;
      row.values[6] = 'none'; // the rule column
      expect(first(verifyChains(b.chains, b.verifier))).toMatchObject({ kind: 'edited', table: 'data_findings', seq: row.seq });
    });
  });

  it('pruning by age takes findings with a signed summary: what is left still verifies', () => {
    record();
    const { store } = openTestStore(fx.dir, { signer: fx.signer });
    // The calls are a minute apart: the first three calls' findings (and every message and decision) are older than the cutoff.
    const cutoffDays = (Date.now() - (T0 + 3.5 * MINUTE)) / 86_400_000;
    store.prune({ maxAgeDays: cutoffDays });
    store.close();
    const left = findings();
    expect(left).toHaveLength(2);
    expect(verifyStore().ok).toBe(true);
    sqlite(`DELETE FROM data_findings WHERE seq = ${left.at(-1)!.seq}`);
    expect(first(verifyStore())).toMatchObject({ kind: 'deleted', n: left.at(-1)!.chain_n });
  });

  it('findings stored before migration 10 are legacy: the store still verifies', () => {
    const file = auditDbFile(fx.dir);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const d = new Database(file);
    migrate(d, file, MIGRATIONS.slice(0, 9));
    d.prepare(`INSERT INTO data_findings (ts, session, exchange, direction, kind, rule, path, start, "end") VALUES (?, 's-0', 'x-0', 'result', 'secret', 'secret:OLD', '$', 0, 3)`).run(T0);
    d.close();
    const r = verifyStore();
    expect(r.ok).toBe(true);
    expect(r.chains.find((c) => c.chain === 's-0')!.legacy).toBe(1);
    expect(findings()[0]!.chain_n).toBeNull();
  });
});
