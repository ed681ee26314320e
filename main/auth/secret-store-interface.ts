// The one synchronous interface of Gatehouse's secret stores (secret-store.ts chooses a backend:
// keychain-store.ts, encrypted-file-store.ts, memory). Its own file so the backends implement it
// without importing secret-store.ts, which imports them (docs/architecture.md "Layer order").
export type SecretStoreKind = 'keychain' | 'safe-storage' | 'encrypted-file' | 'memory';

export interface SecretStore {
  readonly kind: SecretStoreKind;
  /** Where the values live, for `gatehouse secrets list` and the Secrets panel. */
  readonly description: string;
  /** Set when the store is weaker than an OS keychain: shown to the person, never hidden. */
  readonly warning?: string;
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  /** True when something was deleted. */
  delete(key: string): boolean;
  /** Every key (never values). */
  keys(): string[];
}
