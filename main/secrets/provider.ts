// Where `${secret:NAME}` values come from. The host uses StoreSecretProvider (main/auth/store-provider.ts:
// the OS keychain or its encrypted fallback, then the environment); this one reads only the
// environment.

export interface SecretProvider {
  /** The secret's value, or undefined when the provider does not have it. */
  get(name: string): string | undefined;
  /** Where the provider looks, for error messages ("environment variable FILES_KEY"). */
  describe(name: string): string;
}

/**
 * Reads `GATEHOUSE_SECRET_<NAME>` first, then `<NAME>` itself, from the host environment.
 * The prefixed form lets a user keep a secret out of every other program's environment.
 */
export class EnvSecretProvider implements SecretProvider {
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  get(name: string): string | undefined {
    return this.env[`GATEHOUSE_SECRET_${name}`] ?? this.env[name];
  }

  describe(name: string): string {
    return `environment variable GATEHOUSE_SECRET_${name} or ${name}`;
  }
}
