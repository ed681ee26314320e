// Checks hash chains (chain.ts) and reports, per chain, the first row that was edited, deleted,
// inserted or reordered. The same check runs on the store (bundle.ts loadStoreChains) and on an
// export bundle on another machine (bundle.ts readBundle): it only sees ChainData.
import { checkpointPayload, rowHash, type CheckpointBody } from './chain';
import type { AuditVerifier } from './audit-key';

export interface ChainRow {
  table: string;
  seq: number;
  n: number | null;
  prev: string | null;
  hash: string | null;
  values: unknown[];
  /** Not chained by design (a call still pending). */
  unchained?: boolean;
  /** Stored before the chain existed. */
  legacy?: boolean;
  appendOnly?: boolean;
}

export interface CheckpointRow extends CheckpointBody {
  keyId: string | null;
  signature: string | null;
}

export interface ChainData {
  chain: string;
  rows: ChainRow[];
  checkpoints: CheckpointRow[];
  /** audit_chains' head position (unsigned: a hint that rows went missing at the end). */
  headN?: number;
}

export type ProblemKind = 'edited' | 'deleted' | 'inserted' | 'reordered' | 'signature';

export interface VerifyProblem {
  chain: string;
  kind: ProblemKind;
  /** Position in the chain, when known. */
  n?: number;
  table?: string;
  seq?: number;
  message: string;
}

export interface ChainSummary {
  chain: string;
  rows: number;
  /** Highest position covered by a valid signed checkpoint (0: none). */
  signedThrough: number;
  /** Rows after signedThrough: chained, not yet signed. */
  unsignedTail: number;
  pruned: number;
  unchained: number;
  legacy: number;
  problems: VerifyProblem[];
}

export interface VerifyReport {
  ok: boolean;
  /** The key the signatures were checked against; undefined when none was (see `warnings`). */
  keyId?: string;
  chains: ChainSummary[];
  warnings: string[];
}

const where = (r: ChainRow): string => `${r.table} seq ${r.seq}`;

function verifyChain(data: ChainData, verifier: AuditVerifier | undefined): ChainSummary {
  const chain = data.chain;
  const problems: VerifyProblem[] = [];
  const add = (p: Omit<VerifyProblem, 'chain'>): void => void problems.push({ chain, ...p });
  const sum: ChainSummary = { chain, rows: 0, signedThrough: 0, unsignedTail: 0, pruned: 0, unchained: 0, legacy: 0, problems };

  // Signed checkpoints first: a pruned summary tells which missing positions are accounted for.
  const valid: CheckpointRow[] = [];
  for (const c of data.checkpoints) {
    if (!verifier) continue;
    if (!c.signature || c.keyId !== verifier.keyId || !verifier.check(checkpointPayload(c), c.signature)) {
      add({ kind: 'signature', n: c.n, message: `the ${c.kind} checkpoint at row ${c.n} has no valid signature by key ${verifier.keyId}` });
    } else valid.push(c);
  }
  const prunedEnd = new Map<number, string>();
  const pruned = new Set<number>();
  for (const c of valid) {
    if (c.kind !== 'pruned' || !c.body) continue;
    for (const [from, to, hash] of JSON.parse(c.body) as Array<[number, number, string]>) {
      for (let n = from; n <= to; n++) pruned.add(n);
      prunedEnd.set(to, hash);
    }
  }
  sum.pruned = pruned.size;

  const byN = new Map<number, ChainRow>();
  for (const r of data.rows) {
    if (r.n === null) {
      if (r.legacy) sum.legacy++;
      else if (r.unchained && r.hash === null) sum.unchained++;
      else add({ kind: 'inserted', table: r.table, seq: r.seq, message: `${where(r)} is not in the chain: it was inserted` });
      continue;
    }
    sum.rows++;
    const other = byN.get(r.n);
    if (other) {
      // Two rows claim one position: the one that does not hash right is the copy.
      const hashes = (x: ChainRow): boolean => rowHash(x.prev ?? '', x.table, r.n!, x.values) === x.hash;
      const fake = hashes(r) !== hashes(other) ? (hashes(r) ? other : r) : r.seq > other.seq ? r : other;
      add({ kind: 'inserted', n: r.n, table: fake.table, seq: fake.seq, message: `${where(fake)} claims row ${r.n}, which ${where(fake === r ? other : r)} holds: it was inserted` });
      if (fake === other) byN.set(r.n, r);
      continue;
    }
    byN.set(r.n, r);
  }

  let maxN = 0;
  for (const n of byN.keys()) maxN = Math.max(maxN, n);
  for (const c of valid) maxN = Math.max(maxN, c.n);
  const hintN = data.headN ?? 0;
  const top = Math.max(maxN, hintN);
  const hashAt = (n: number): string | undefined => (n === 0 ? '' : (byN.get(n)?.hash ?? prunedEnd.get(n) ?? undefined));
  const near = (n: number): string => {
    const before = byN.get(n - 1);
    const after = byN.get(n + 1);
    return [before ? `after ${where(before)}` : '', after ? `before ${where(after)}` : ''].filter(Boolean).join(', ');
  };
  for (let n = 1; n <= top; n++) {
    const r = byN.get(n);
    if (!r) {
      if (pruned.has(n)) continue;
      const beyond = n > maxN ? ` (the chain's head says ${hintN} rows)` : '';
      const ctx = near(n);
      add({ kind: 'deleted', n, message: `row ${n} of the chain is missing${ctx ? ` (${ctx})` : ''}${beyond}: it was deleted` });
      continue;
    }
    if (rowHash(r.prev ?? '', r.table, n, r.values) !== r.hash) {
      add({ kind: 'edited', n, table: r.table, seq: r.seq, message: `${where(r)} (row ${n}) no longer matches its hash: it was edited` });
      continue;
    }
    const want = hashAt(n - 1);
    if (want !== undefined && r.prev !== want) {
      add({ kind: 'reordered', n, table: r.table, seq: r.seq, message: `${where(r)} (row ${n}) does not follow row ${n - 1}: a row was edited and rehashed, inserted or moved` });
    }
  }

  // Append-only tables: a later seq never holds an earlier position (catches swapped rows).
  const byTable = new Map<string, ChainRow[]>();
  for (const r of byN.values()) if (r.appendOnly) byTable.set(r.table, [...(byTable.get(r.table) ?? []), r]);
  for (const rows of byTable.values()) {
    rows.sort((a, b) => a.seq - b.seq);
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1]!;
      const b = rows[i]!;
      if (b.n! < a.n!) add({ kind: 'reordered', n: b.n!, table: b.table, seq: b.seq, message: `${where(a)} and ${where(b)} are out of order (rows ${a.n} and ${b.n}): they were swapped or moved` });
    }
  }

  // Each signed head must still be the hash at its position (catches a whole chain rehashed).
  for (const c of valid) {
    if (c.kind === 'pruned') continue;
    const h = hashAt(c.n);
    if (h !== undefined && h !== c.head) {
      const r = byN.get(c.n);
      add({ kind: 'edited', n: c.n, ...(r ? { table: r.table, seq: r.seq } : {}), message: `row ${c.n}${r ? ` (${where(r)})` : ''} differs from the signed checkpoint: rows up to it were rewritten` });
    }
    sum.signedThrough = Math.max(sum.signedThrough, c.n);
  }
  sum.unsignedTail = Math.max(0, maxN - sum.signedThrough);
  problems.sort((a, b) => (a.n ?? Infinity) - (b.n ?? Infinity));
  return sum;
}

export function verifyChains(chains: Iterable<ChainData>, verifier: AuditVerifier | undefined): VerifyReport {
  const out: ChainSummary[] = [];
  for (const c of chains) out.push(verifyChain(c, verifier));
  const warnings = verifier ? [] : ['no signing key: the chains were checked, their signed checkpoints were not'];
  return { ok: out.every((c) => c.problems.length === 0), ...(verifier ? { keyId: verifier.keyId } : {}), chains: out, warnings };
}

/** One line per chain: ok, or its first problem (and how many more). */
export function formatReport(r: VerifyReport): string {
  const lines = r.chains.map((c) => {
    const first = c.problems[0];
    const extra = [c.pruned ? `${c.pruned} pruned (signed)` : '', c.unsignedTail ? `${c.unsignedTail} not yet signed` : '', c.legacy ? `${c.legacy} from before the chain` : '']
      .filter(Boolean)
      .join(', ');
    if (!first) return `ok      ${c.chain}  ${c.rows} rows, signed through row ${c.signedThrough}${extra ? `; ${extra}` : ''}`;
    const more = c.problems.length > 1 ? ` (and ${c.problems.length - 1} more problem${c.problems.length > 2 ? 's' : ''})` : '';
    return `FAILED  ${c.chain}  ${first.message}${more}`;
  });
  if (r.chains.length === 0) lines.push('no chained rows');
  return [...lines, ...r.warnings.map((w) => `warning: ${w}`)].join('\n');
}
