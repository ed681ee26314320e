// The chains as data (verify.ts ChainData): read from the store, written to an export bundle,
// read back from one. A bundle is JSON Lines:
//   {"type":"bundle", "version":1, "keyId", "publicKey", "exportedAt", "session"?}
//   {"type":"row", "chain", "table", "seq", "n", "prev", "hash", "values", …}      one per row
//   {"type":"checkpoint", "chain", "n", "head", "ts", "kind", "body", "keyId", "signature"}
//   {"type":"head", "chain", "n"}
//   {"type":"end", "lines", "sha256", "signature"}   sha256 of every line before it, signed
// so it verifies on another machine with nothing but the file (and, to trust the key, its id).
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { CHAINED_TABLES } from './chain';
import { verifierFromPublicPem, type AuditSigner, type AuditVerifier } from './audit-key';
import type { ChainData, ChainRow, CheckpointRow } from './verify';

/** Chain ids present in the store (rows, heads or checkpoints), or just `session`. */
function chainIds(db: Database.Database, session?: string): string[] {
  if (session !== undefined) return [session];
  const parts = [
    ...CHAINED_TABLES.map((t) => `SELECT DISTINCT ${t.chain} AS chain FROM ${t.table}`),
    'SELECT chain FROM audit_chains',
    'SELECT DISTINCT chain FROM audit_checkpoints',
  ];
  return (db.prepare(`${parts.join(' UNION ')} ORDER BY chain`).all() as Array<{ chain: string }>).map((r) => r.chain);
}

/** One chain at a time, so a large store is not held in memory whole. */
export function* loadStoreChains(db: Database.Database, session?: string): Generator<ChainData> {
  const legacy = new Map((db.prepare('SELECT tbl, max_seq FROM audit_chain_legacy').all() as Array<{ tbl: string; max_seq: number }>).map((r) => [r.tbl, r.max_seq]));
  const selects = CHAINED_TABLES.map((t) => ({
    t,
    st: db.prepare(
      `SELECT seq, chain_n, prev_hash, row_hash, ${t.unchained ? `(${t.unchained})` : '0'} AS unchained_, ${t.columns.map((c) => `"${c}"`).join(', ')}
       FROM ${t.table} WHERE ${t.chain} = ?`,
    ),
  }));
  const checkpoints = db.prepare('SELECT chain, n, head, ts, kind, body, key_id AS keyId, signature FROM audit_checkpoints WHERE chain = ? ORDER BY id');
  const head = db.prepare<[string], { n: number }>('SELECT n FROM audit_chains WHERE chain = ?');
  for (const chain of chainIds(db, session)) {
    const rows: ChainRow[] = [];
    for (const { t, st } of selects) {
      for (const r of st.all(chain) as Array<Record<string, unknown>>) {
        const row: ChainRow = {
          table: t.table,
          seq: r.seq as number,
          n: r.chain_n as number | null,
          prev: r.prev_hash as string | null,
          hash: r.row_hash as string | null,
          values: t.columns.map((c) => r[c]),
        };
        if (t.appendOnly) row.appendOnly = true;
        if (r.unchained_) row.unchained = true;
        if (row.n === null && row.seq <= (legacy.get(t.table) ?? 0)) row.legacy = true;
        rows.push(row);
      }
    }
    const data: ChainData = { chain, rows, checkpoints: checkpoints.all(chain) as CheckpointRow[] };
    const h = head.get(chain);
    if (h) data.headN = h.n;
    yield data;
  }
}

/** Writes a signed bundle of one session or all; returns the rows written. */
export async function writeBundle(db: Database.Database, file: string, signer: AuditSigner | undefined, session?: string): Promise<number> {
  if (!signer) throw new Error('no audit signing key in the secret store: a bundle cannot be signed');
  const fd = fs.openSync(file, 'w', 0o600); // a bundle holds tool arguments and results, like the store
  const digest = createHash('sha256');
  let lines = 0;
  let rows = 0;
  const put = (obj: unknown): void => {
    const line = `${JSON.stringify(obj)}\n`;
    digest.update(line);
    fs.writeSync(fd, line);
    lines++;
  };
  try {
    put({ type: 'bundle', version: 1, keyId: signer.keyId, publicKey: signer.publicKeyPem, exportedAt: Date.now(), ...(session ? { session } : {}) });
    for (const c of loadStoreChains(db, session)) {
      for (const r of c.rows) put({ type: 'row', chain: c.chain, ...r });
      rows += c.rows.length;
      for (const cp of c.checkpoints) put({ type: 'checkpoint', ...cp });
      if (c.headN !== undefined) put({ type: 'head', chain: c.chain, n: c.headN });
    }
    const sha256 = digest.digest('hex');
    fs.writeSync(fd, `${JSON.stringify({ type: 'end', lines, sha256, signature: signer.sign(sha256) })}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return rows;
}

export interface Bundle {
  verifier: AuditVerifier;
  chains: ChainData[];
  session?: string;
}

/** Reads and checks a bundle's framing (its end line's digest and signature); throws with what is wrong. */
export function readBundle(file: string): Bundle {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const parse = (line: string, i: number): Record<string, unknown> => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${file}: line ${i + 1} is not JSON: the bundle was changed or cut`);
    }
  };
  const header = parse(lines[0] ?? '', 0);
  if (header.type !== 'bundle' || header.version !== 1 || typeof header.publicKey !== 'string') throw new Error(`${file}: not a Gatehouse audit bundle (version 1)`);
  const verifier = verifierFromPublicPem(header.publicKey);
  const end = parse(lines[lines.length - 1] ?? '', lines.length - 1);
  if (end.type !== 'end') throw new Error(`${file}: the end line is missing: the bundle was cut`);
  const body = lines.slice(0, -1);
  const sha256 = createHash('sha256').update(body.map((l) => `${l}\n`).join('')).digest('hex');
  if (end.lines !== body.length || end.sha256 !== sha256) throw new Error(`${file}: its content does not match its digest: the bundle was changed`);
  if (typeof end.signature !== 'string' || !verifier.check(sha256, end.signature)) throw new Error(`${file}: its digest is not signed by the key it names (${verifier.keyId})`);
  const chains = new Map<string, ChainData>();
  const of = (chain: string): ChainData => {
    let c = chains.get(chain);
    if (!c) chains.set(chain, (c = { chain, rows: [], checkpoints: [] }));
    return c;
  };
  body.slice(1).forEach((line, i) => {
    const o = parse(line, i + 1);
    const chain = String(o.chain);
    if (o.type === 'row') {
      const { type: _t, chain: _c, ...row } = o;
      of(chain).rows.push(row as unknown as ChainRow);
    } else if (o.type === 'checkpoint') {
      const { type: _t, ...cp } = o;
      of(chain).checkpoints.push(cp as unknown as CheckpointRow);
    } else if (o.type === 'head') of(chain).headN = Number(o.n);
  });
  return { verifier, chains: [...chains.values()], ...(typeof header.session === 'string' ? { session: header.session } : {}) };
}
