// The tamper-evident audit (docs/audit.md "Tamper-evident audit"): a real SQLite file written by
// the real writer, tampered with from outside (the sqlite3 CLI, another better-sqlite3
// connection), verified by the store and by a bundle on its own after the store is gone.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../auth/secret-store';
import { loadAuditSigner, verifierFromPublicPem } from './audit-key';
import { readBundle } from './bundle';
import { firstProblem as first, useChainFixture } from './chain-fixture';
import { auditDbFile } from './store';
import { T0, event, openTestStore } from './test-support';
import { verifyChains } from './verify';

const fx = useChainFixture();
const verifyStore = () => fx.verifyStore();

/** One session: 10 calls, each a request and response message, a decision and an exchange; one trust decision. */
function record(opts: { checkpointEvery?: number } = {}): void {
  fx.record(opts.checkpointEvery ?? 7, (store) => {
    const w = store.writer;
    for (let i = 1; i <= 10; i++) {
      const ex = `x-${i}`;
      w.exchange({ id: ex, ts: T0 + i, session: 's-1', kind: 'call', method: 'tools/call', tool: 'files.read_file', outcome: 'pending' });
      w.traffic(event({ session: 's-1', exchange: ex, ts: T0 + i * 10 }));
      w.decision({ ts: T0 + i * 10 + 1, session: 's-1', exchange: ex, tool: 'files.read_file', decision: 'ALLOW', outcome: 'allowed', rule: 'policy.rules[0]', args: { path: `/w/${i}` } });
      w.traffic(event({ session: 's-1', exchange: ex, direction: 'server_to_gateway', kind: 'response', ts: T0 + i * 10 + 2, message: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `file ${i}` }] } } }));
      if (i % 3 === 0) store.flush(); // rows of one chain across several batches
      w.exchange({ id: ex, ts: T0 + i, session: 's-1', kind: 'call', method: 'tools/call', tool: 'files.read_file', outcome: 'ok', decision: 'ALLOW', latencyMs: 3 });
    }
    store.recordTrustDecision({ ts: T0 + 500, profile: 'demo', server: 'files', kind: 'tool', action: 'pinned', by: 'first-use', session: 's-1' });
  });
}

const db = () => new Database(auditDbFile(fx.dir));
const seqs = (table: string): number[] => {
  const d = db();
  try {
    return (d.prepare(`SELECT seq FROM ${table} ORDER BY seq`).all() as Array<{ seq: number }>).map((r) => r.seq);
  } finally {
    d.close();
  }
};

describe('audit hash chain', () => {
  it('chains every row of a session and signs checkpoints; an untouched store verifies', () => {
    record();
    const r = verifyStore();
    expect(r.ok).toBe(true);
    const c = r.chains.find((x) => x.chain === 's-1')!;
    // 20 messages + 10 decisions + 10 exchanges (final rows only) + 1 trust decision.
    expect(c.rows).toBe(41);
    expect(c.signedThrough).toBe(41); // the session's end is signed
    expect(c.unchained).toBe(0);
  });

  it('names the message edited with the sqlite3 CLI', () => {
    record();
    const target = seqs('messages')[4]!;
    fx.sqlite(`UPDATE messages SET message = '{"jsonrpc":"2.0","id":1,"result":{}}' WHERE seq = ${target}`);
    const p = first(verifyStore());
    expect(p).toMatchObject({ kind: 'edited', table: 'messages', seq: target });
  });

  it('still names the edit when the attacker recomputes every hash after it (the signed checkpoint disagrees)', async () => {
    record();
    const { rowHash } = await import('./chain');
    const d = db();
    const rows = d.prepare(`SELECT seq, chain_n, prev_hash FROM decisions ORDER BY seq`).all() as Array<{ seq: number; chain_n: number; prev_hash: string }>;
    const victim = rows[1]!;
    d.prepare(`UPDATE decisions SET decision = 'DENY', outcome = 'denied' WHERE seq = ?`).run(victim.seq);
    const v = d.prepare(`SELECT ts, session, agent_session, exchange, tool, server, decision, outcome, reason, rule, fingerprint, answered_by, scope, waited_ms, args FROM decisions WHERE seq = ?`).raw().get(victim.seq) as unknown[];
    d.prepare(`UPDATE decisions SET row_hash = ? WHERE seq = ?`).run(rowHash(victim.prev_hash, 'decisions', victim.chain_n, v), victim.seq);
    d.close();
    const r = verifyStore();
    expect(r.ok).toBe(false);
    // The row itself now hashes right; the break is at the next link, and the checkpoint over it fails.
    expect(first(r)).toMatchObject({ n: victim.chain_n + 1, kind: 'reordered' });
  });

  it('names the row deleted', () => {
    record();
    const d = db();
    const gone = d.prepare(`SELECT seq, chain_n FROM decisions ORDER BY seq LIMIT 1 OFFSET 3`).get() as { seq: number; chain_n: number };
    d.prepare('DELETE FROM decisions WHERE seq = ?').run(gone.seq);
    d.close();
    const p = first(verifyStore());
    expect(p).toMatchObject({ kind: 'deleted', n: gone.chain_n });
    expect(p!.message).toMatch(/after \w+ seq \d+, before \w+ seq \d+\): it was deleted/);
  });

  it('names the last row deleted (the signed end checkpoint still counts it)', () => {
    record();
    const d = db();
    const last = d.prepare(`SELECT seq FROM messages WHERE chain_n = 41`).get() as { seq: number };
    d.close();
    fx.sqlite(`DELETE FROM messages WHERE seq = ${last.seq}; UPDATE audit_chains SET n = 40`);
    const p = first(verifyStore());
    expect(p).toMatchObject({ kind: 'deleted', n: 41 });
  });

  it('names a row inserted from outside, plain or with a copied chain position', () => {
    record();
    fx.sqlite(`INSERT INTO decisions (ts, session, tool, decision, outcome) VALUES (${T0 + 55}, 's-1', 'files.write_file', 'ALLOW', 'allowed')`);
    const inserted = seqs('decisions').at(-1)!;
    expect(first(verifyStore())).toMatchObject({ kind: 'inserted', table: 'decisions', seq: inserted });

    fx.sqlite(`DELETE FROM decisions WHERE seq = ${inserted}`);
    expect(verifyStore().ok).toBe(true);
    fx.sqlite(
      `INSERT INTO messages (tap_seq, ts, session, direction, kind, bytes, message, chain_n, prev_hash, row_hash)
       SELECT tap_seq, ts, session, direction, kind, bytes, '{"forged":true}', chain_n, prev_hash, row_hash FROM messages ORDER BY seq LIMIT 1`,
    );
    expect(first(verifyStore())).toMatchObject({ kind: 'inserted', table: 'messages', seq: seqs('messages').at(-1)! });
  });

  it('names a swap of two rows', () => {
    record();
    const [a, b] = seqs('messages').slice(2, 4) as [number, number];
    // Swap every column but the seq: each row keeps a consistent hash, their order does not.
    const cols = 'tap_seq, ts, session, agent_session, server, direction, kind, method, rpc_id, bytes, message, fault, exchange, decision, tool, latency_ms, chain_n, prev_hash, row_hash';
    const d = db();
    d.transaction(() => {
      const ra = d.prepare(`SELECT ${cols} FROM messages WHERE seq = ?`).get(a) as Record<string, unknown>;
      const rb = d.prepare(`SELECT ${cols} FROM messages WHERE seq = ?`).get(b) as Record<string, unknown>;
      const set = cols.split(', ').map((c) => `${c} = @${c}`).join(', ');
      d.prepare(`UPDATE messages SET chain_n = NULL WHERE seq IN (?, ?)`).run(a, b);
      d.prepare(`UPDATE messages SET ${set} WHERE seq = @seq`).run({ ...rb, seq: a });
      d.prepare(`UPDATE messages SET ${set} WHERE seq = @seq`).run({ ...ra, seq: b });
    })();
    d.close();
    expect(first(verifyStore())).toMatchObject({ kind: 'reordered', table: 'messages', seq: b });
  });

  it('a bundle verifies on its own after the store is removed, and fails after one byte is changed', async () => {
    record();
    await fx.withBundle(41, (file) => {
      const b = readBundle(file);
      expect(b.verifier.keyId).toBe(fx.signer.keyId);
      expect(verifyChains(b.chains, b.verifier).ok).toBe(true);
      const text = fs.readFileSync(file, 'utf8');
      const at = text.indexOf('file 7');
      fs.writeFileSync(file, `${text.slice(0, at)}F${text.slice(at + 1)}`);
      expect(() => readBundle(file)).toThrow(/does not match its digest/);
    });
  });

  it('pruning leaves a signed summary: the rest still verifies, a deletion beside it is still caught', () => {
    record();
    const { store } = openTestStore(fx.dir, { signer: fx.signer });
    const pruned = store.prune({ maxMessages: 5 });
    store.close();
    expect(pruned.messages).toBe(15);
    const r = verifyStore();
    expect(r.ok).toBe(true);
    expect(r.chains.find((c) => c.chain === 's-1')!.pruned).toBe(15);

    // Without the key the same prune is not accounted for.
    const d = db();
    const left = d.prepare(`SELECT seq, chain_n FROM decisions ORDER BY seq DESC LIMIT 1`).get() as { seq: number; chain_n: number };
    d.prepare('DELETE FROM decisions WHERE seq = ?').run(left.seq);
    d.close();
    expect(first(verifyStore())).toMatchObject({ kind: 'deleted', n: left.chain_n });
  });

  it('a checkpoint signed by another key fails', () => {
    record();
    const other = loadAuditSigner(new MemorySecretStore());
    const { store } = openTestStore(fx.dir);
    const r = store.verify(verifierFromPublicPem(other.publicKeyPem));
    store.close();
    expect(first(r)).toMatchObject({ kind: 'signature' });
  });
});
