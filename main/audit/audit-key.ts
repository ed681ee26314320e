// The per-install Ed25519 key that signs the audit chain's checkpoints (chain.ts). The private
// key lives in the secret store (main/auth/secret-store.ts: the OS keychain, or its encrypted
// file) under AUDIT_KEY_NAME, created on first use; only its public half leaves this machine
// (in an export bundle), named by its key id (the first 16 bytes of the sha256 of its DER).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { SecretStore } from '../auth/secret-store-interface';

export const AUDIT_KEY_NAME = 'audit:signing-key';

export interface AuditSigner {
  readonly keyId: string;
  readonly publicKeyPem: string;
  /** The private key as PKCS#8 PEM: only for handing to the writer thread. */
  readonly privateKeyPem: string;
  /** Base64 Ed25519 signature of `data` (UTF-8). */
  sign(data: string): string;
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 32);
}

export function signerFromPem(privateKeyPem: string): AuditSigner {
  const priv = createPrivateKey(privateKeyPem);
  if (priv.asymmetricKeyType !== 'ed25519') throw new Error(`the audit signing key is ${priv.asymmetricKeyType}, expected ed25519`);
  const pub = createPublicKey(priv);
  return {
    keyId: keyIdOf(pub),
    publicKeyPem: pub.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem,
    sign: (data) => sign(null, Buffer.from(data, 'utf8'), priv).toString('base64'),
  };
}

/** This install's signer: read from the secret store, or made and stored there the first time. */
export function loadAuditSigner(store: SecretStore): AuditSigner {
  const have = store.get(AUDIT_KEY_NAME);
  if (have) return signerFromPem(have);
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  store.set(AUDIT_KEY_NAME, pem);
  return signerFromPem(pem);
}

export interface AuditVerifier {
  readonly keyId: string;
  check(data: string, signature: string): boolean;
}

export function verifierFromPublicPem(publicKeyPem: string): AuditVerifier {
  const pub = createPublicKey(publicKeyPem);
  if (pub.asymmetricKeyType !== 'ed25519') throw new Error(`the audit public key is ${pub.asymmetricKeyType}, expected ed25519`);
  return {
    keyId: keyIdOf(pub),
    check: (data, signature) => {
      try {
        return verify(null, Buffer.from(data, 'utf8'), pub, Buffer.from(signature, 'base64'));
      } catch {
        return false;
      }
    },
  };
}
