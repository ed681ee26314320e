// `gatehouse audit verify | export --bundle | key`: the tamper-evident audit from a shell
// (docs/audit.md "Tamper-evident audit"). verify exits 0 when every chain checks, 1 when a row
// was edited, deleted, inserted or reordered (the first one named), 2 on a usage error.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { dataDir } from '../paths';
import { openSecretStore } from '../auth/secret-store';
import { AUDIT_KEY_NAME, loadAuditSigner, signerFromPem, verifierFromPublicPem, type AuditSigner, type AuditVerifier } from '../audit/audit-key';
import { readBundle } from '../audit/bundle';
import { auditDbFile, openAuditStore, type AuditStore } from '../audit/store';
import { formatReport, verifyChains, type VerifyReport } from '../audit/verify';


type Flags = Partial<Record<'data-dir' | 'session' | 'key' | 'bundle', string>> & { json?: boolean };

function args(argv: string[], options: Record<string, { type: 'string' | 'boolean' }>): { values: Flags; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, ...options }, strict: true, allowPositionals: true });
    return { values: r.values as Flags, positionals: r.positionals };
  } catch (err) {
    throw new ProofUsage((err as Error).message);
  }
}

/** The install's key, when the secret store has one (verify never creates one). */
function existingSigner(dir: string): AuditSigner | undefined {
  const pem = openSecretStore({ dataDir: dir }).get(AUDIT_KEY_NAME);
  return pem ? signerFromPem(pem) : undefined;
}

function withStore<T>(dir: string, fn: (store: AuditStore) => T, signer?: AuditSigner): T {
  const file = auditDbFile(dir);
  if (!fs.existsSync(file)) throw new ProofFailure(`no audit database at ${file} (nothing has been recorded there yet)`);
  const store = openAuditStore({ file, retention: false, signer, onError: (err) => process.stderr.write(`gatehouse audit: ${err.message}\n`) });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

class ProofFailure extends Error {}
class ProofUsage extends Error {}

/** `audit verify | key | export --bundle`, loaded only when asked for (audit-command.ts). */
export async function runProof(sub: 'verify' | 'key' | 'export', argv: string[], usage: string): Promise<number> {
  try {
    if (sub === 'verify') return verifyCommand(argv);
    if (sub === 'key') return keyCommand(argv);
    return await exportBundleCommand(argv);
  } catch (err) {
    if (err instanceof ProofUsage) {
      process.stderr.write(`gatehouse audit: ${err.message}\n${usage}`);
      return 2;
    }
    process.stderr.write(`gatehouse audit: ${(err as Error)?.message ?? String(err)}\n`);
    return 1;
  }
}

function print(report: VerifyReport, json: boolean | undefined, header?: string): number {
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${header ? `${header}\n` : ''}${formatReport(report)}\n`);
  return report.ok ? 0 : 1;
}

function verifyCommand(argv: string[]): number {
  const { values: v, positionals } = args(argv, { session: { type: 'string' }, key: { type: 'string' } });
  const dir = v['data-dir'] ?? dataDir();
  if (positionals.length > 1) throw new ProofUsage('verify takes one bundle file');
  const file = positionals[0];
  if (file !== undefined) {
    if (v.session) throw new ProofUsage('--session applies to the store; a bundle holds what was exported');
    let bundle;
    try {
      bundle = readBundle(file);
    } catch (err) {
      process.stdout.write(`FAILED  ${(err as Error).message}\n`);
      return 1;
    }
    if (v.key && v.key !== bundle.verifier.keyId) {
      process.stdout.write(`FAILED  ${file} is signed by key ${bundle.verifier.keyId}, not the expected ${v.key}\n`);
      return 1;
    }
    const note = v.key ? `bundle ${file}: signed by the expected key ${bundle.verifier.keyId}` : `bundle ${file}: signed by key ${bundle.verifier.keyId} (pass --key to require it)`;
    return print(verifyChains(bundle.chains, bundle.verifier), v.json, v.json ? undefined : note);
  }
  if (v.key) throw new ProofUsage('--key applies to a bundle');
  const signer = existingSigner(dir);
  const verifier: AuditVerifier | undefined = signer ? verifierFromPublicPem(signer.publicKeyPem) : undefined;
  return withStore(dir, (store) => {
    let session: string | undefined;
    if (v.session !== undefined && v.session !== 'all') {
      const r = store.resolveSession(v.session);
      if ('error' in r) throw new ProofFailure(r.error);
      session = r.id;
    }
    return print(store.verify(verifier, session), v.json);
  });
}

async function exportBundleCommand(argv: string[]): Promise<number> {
  const { values: v, positionals } = args(argv, { bundle: { type: 'string' }, session: { type: 'string' } });
  if (positionals.length) throw new ProofUsage(`unexpected '${positionals[0]}'`);
  const file = v.bundle;
  if (!file) throw new ProofUsage('export --bundle needs a FILE');
  const dir = v['data-dir'] ?? dataDir();
  const signer = existingSigner(dir);
  if (!signer) throw new ProofFailure('no audit signing key in the secret store: nothing here was signed (run a gateway first)');
  const rows = await withStore(dir, (store) => {
    let session: string | undefined;
    if (v.session !== undefined && v.session !== 'all') {
      const r = store.resolveSession(v.session);
      if ('error' in r) throw new ProofFailure(r.error);
      session = r.id;
    }
    return store.exportBundle(file, session);
  }, signer);
  process.stderr.write(`gatehouse audit: wrote ${rows} chained rows to ${file}, signed by key ${signer.keyId}\n`);
  return 0;
}

function keyCommand(argv: string[]): number {
  const { values: v } = args(argv, {});
  const signer = loadAuditSigner(openSecretStore({ dataDir: v['data-dir'] ?? dataDir() }));
  if (v.json) process.stdout.write(`${JSON.stringify({ keyId: signer.keyId, publicKey: signer.publicKeyPem })}\n`);
  else process.stdout.write(`key id ${signer.keyId}\n${signer.publicKeyPem}`);
  return 0;
}


/** The signer `audit prune` signs its summaries with, when the install has one. */
export function pruneSigner(dir: string): AuditSigner | undefined {
  return existingSigner(dir);
}
