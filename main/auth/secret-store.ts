// Where Gatehouse keeps what must stay secret: OAuth tokens and client secrets of upstream
// servers, and the values behind `${secret:NAME}` (ARCHITECTURE.md, "Where state lives").
// One synchronous interface, three backends, chosen once per host by openSecretStore():
//   keychain        the OS keychain through @napi-rs/keyring (macOS Keychain, Windows
//                   Credential Manager, the Secret Service on Linux)
//   safe-storage    Electron's safeStorage (the desktop app), values in an encrypted file
//   encrypted-file  AES-256-GCM file in the data dir, where no keychain exists (a headless
//                   Linux without a Secret Service): said so, with a visible warning
// Synchronous because `${secret:…}` is expanded synchronously while a profile resolves.
import { EncryptedFileStore, type ValueCipher } from './encrypted-file-store';
import { openKeychainStore } from './keychain-store';

// The interface is secret-store-interface.ts, which the backends implement without importing this
// file (it imports them); callers import it from here.
import type { SecretStore } from './secret-store-interface';
export type { SecretStore, SecretStoreKind } from './secret-store-interface';

/** Keys of the values behind `${secret:NAME}`; the other keys belong to main/auth. */
export const USER_SECRET_PREFIX = 'secret:';
export const SECRET_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

export class MemorySecretStore implements SecretStore {
  readonly kind = 'memory' as const;
  readonly description = 'memory (nothing is kept after this process exits)';
  private readonly values = new Map<string, string>();
  get(key: string): string | undefined {
    return this.values.get(key);
  }
  set(key: string, value: string): void {
    this.values.set(key, value);
  }
  delete(key: string): boolean {
    return this.values.delete(key);
  }
  keys(): string[] {
    return [...this.values.keys()].sort();
  }
}

export interface OpenSecretStoreOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Electron's safeStorage, wrapped (main/electron/ passes it when encryption is available). */
  safeStorage?: ValueCipher & { backend?: string };
}

/**
 * The best store this machine offers. `GATEHOUSE_SECRET_STORE=file` forces the encrypted file
 * (tests, or a user who does not want the keychain); `keychain` refuses to fall back.
 */
export function openSecretStore(opts: OpenSecretStoreOptions): SecretStore {
  const env = opts.env ?? process.env;
  const wanted = env.GATEHOUSE_SECRET_STORE;
  if (wanted && !['file', 'keychain', 'auto'].includes(wanted)) {
    throw new Error(`GATEHOUSE_SECRET_STORE must be file, keychain or auto, got '${wanted}'`);
  }
  if (opts.safeStorage && wanted !== 'file') {
    return new EncryptedFileStore({ dataDir: opts.dataDir, cipher: opts.safeStorage, kind: 'safe-storage', env });
  }
  let why = 'GATEHOUSE_SECRET_STORE=file';
  if (wanted !== 'file') {
    const keychain = openKeychainStore();
    if ('store' in keychain) return keychain.store;
    if (wanted === 'keychain') throw new Error(`GATEHOUSE_SECRET_STORE=keychain, but the OS keychain is not usable: ${keychain.unavailable}`);
    why = `no OS keychain here (${keychain.unavailable})`;
  }
  return new EncryptedFileStore({ dataDir: opts.dataDir, kind: 'encrypted-file', env, why });
}
