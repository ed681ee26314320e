// Shared by the tamper-evident audit tests (not a test itself): each test gets its own data dir and
// signing key, records one session through the real writer, verifies the real SQLite file,
// tampers with it from outside (the sqlite3 CLI) and checks a bundle on its own after the store
// is gone. docs/audit.md "Tamper-evident audit".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { MemorySecretStore } from '../auth/secret-store';
import { loadAuditSigner, verifierFromPublicPem, type AuditSigner } from './audit-key';
import { auditDbFile, type AuditStore } from './store';
import { T0, openTestStore, removeDir, tempDir } from './test-support';
import type { VerifyProblem, VerifyReport } from './verify';

export interface ChainFixture {
  /** This test's data dir (a new one for every test). */
  readonly dir: string;
  /** This test's signing key (a new one for every test). */
  readonly signer: AuditSigner;
  /**
   * Session `s-1` of profile demo, begun at T0 and ended at T0 + 1000, written by the real writer
   * with a checkpoint signed every `checkpointEvery` rows; `rows` writes what happens in between.
   * The writer must report no error.
   */
  record(checkpointEvery: number, rows: (store: AuditStore) => void): void;
  /** Reopens the store (with no key) and verifies it against this test's public key. */
  verifyStore(): VerifyReport;
  /** Runs SQL on the store's file with the sqlite3 CLI, as someone outside Gatehouse would. */
  sqlite(sql: string): string;
  /**
   * Exports a bundle beside the data dir (expecting `rows` chained rows), removes the store's file
   * so the bundle must stand alone, and hands the bundle's path to `check`; the bundle is removed after.
   */
  withBundle(rows: number, check: (file: string) => void): Promise<void>;
}

/** The first problem verify names, in whichever chain has one. */
export const firstProblem = (r: VerifyReport): VerifyProblem | undefined => r.chains.find((c) => c.problems.length)?.problems[0];

/** Registers the per-test setup and cleanup; call once at the top of a test file. */
export function useChainFixture(): ChainFixture {
  let dir = '';
  let signer: AuditSigner | undefined;
  beforeEach(() => {
    dir = tempDir();
    signer = loadAuditSigner(new MemorySecretStore());
  });
  afterEach(() => removeDir(dir));
  const key = (): AuditSigner => {
    if (!signer) throw new Error('useChainFixture: used outside a test');
    return signer;
  };

  return {
    get dir() {
      return dir;
    },
    get signer() {
      return key();
    },
    record(checkpointEvery, rows) {
      const { store, errors } = openTestStore(dir, { signer: key(), checkpointEvery });
      store.writer.beginSession({ id: 's-1', kind: 'gateway', profile: 'demo', startedAt: T0 });
      rows(store);
      store.writer.endSession('s-1', { endedAt: T0 + 1000 });
      store.close();
      expect(errors).toEqual([]);
    },
    verifyStore() {
      const { store } = openTestStore(dir);
      try {
        return store.verify(verifierFromPublicPem(key().publicKeyPem));
      } finally {
        store.close();
      }
    },
    sqlite: (sql) => execFileSync('sqlite3', [auditDbFile(dir), sql], { encoding: 'utf8' }),
    async withBundle(rows, check) {
      const { store } = openTestStore(dir, { signer: key() });
      const file = path.join(dir, '..', `${path.basename(dir)}-bundle.jsonl`);
      try {
        expect(await store.exportBundle(file)).toBe(rows);
      } finally {
        store.close();
      }
      fs.rmSync(auditDbFile(dir));
      try {
        check(file);
      } finally {
        fs.rmSync(file, { force: true });
      }
    },
  };
}
