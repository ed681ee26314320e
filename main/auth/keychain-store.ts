// The OS keychain through @napi-rs/keyring (a maintained Rust binding; prebuilt per platform,
// from the npm registry). A native module behind a small interface (ARCHITECTURE.md): loaded
// lazily, and its absence or a keychain that cannot be reached is an answer, not a crash.
import { createRequire } from 'node:module';
import type { SecretStore } from './secret-store-interface';

const SERVICE = 'gatehouse';

interface KeyringModule {
  Entry: new (service: string, account: string, options?: { linux?: { store?: 'secret-service' | 'keyutils' } }) => {
    getPassword(): string | null;
    setPassword(value: string): void;
    deleteCredential(): boolean;
  };
  findCredentials(service: string): Array<{ account: string; password: string }>;
}

// On Linux, pin the Secret Service: the binding's fallback, the kernel keyring, forgets
// everything at logout or reboot, which would make every token vanish without a word.
const ENTRY_OPTIONS = { linux: { store: 'secret-service' as const } };

export function openKeychainStore(): { store: SecretStore } | { unavailable: string } {
  let mod: KeyringModule;
  try {
    mod = createRequire(import.meta.url)('@napi-rs/keyring') as KeyringModule;
  } catch (err) {
    return { unavailable: `@napi-rs/keyring did not load: ${(err as Error).message}` };
  }
  try {
    // A read of an entry that does not exist: null where the keychain works, a throw where
    // there is none (no D-Bus session, no Secret Service, a locked keychain).
    new mod.Entry(SERVICE, '__gatehouse_probe__', ENTRY_OPTIONS).getPassword();
  } catch (err) {
    return { unavailable: (err as Error).message };
  }
  const entry = (key: string) => new mod.Entry(SERVICE, key, ENTRY_OPTIONS);
  const platform = process.platform === 'darwin' ? 'macOS Keychain' : process.platform === 'win32' ? 'Windows Credential Manager' : 'Secret Service';
  return {
    store: {
      kind: 'keychain',
      description: `OS keychain (${platform}, service '${SERVICE}')`,
      get: (key) => entry(key).getPassword() ?? undefined,
      set: (key, value) => entry(key).setPassword(value),
      delete: (key) => entry(key).deleteCredential(),
      keys: () =>
        mod
          .findCredentials(SERVICE)
          .map((c) => c.account)
          .filter((a) => a !== '__gatehouse_probe__')
          .sort(),
    },
  };
}
