// `${secret:NAME}` from the secret store (main/auth/secret-store.ts: the OS keychain, or its
// encrypted-file fallback), then from the environment as before (EnvSecretProvider), so a
// profile that worked with GATEHOUSE_SECRET_NAME keeps working.
import { USER_SECRET_PREFIX, type SecretStore } from './secret-store';
import { EnvSecretProvider, type SecretProvider } from '../secrets/provider';

export class StoreSecretProvider implements SecretProvider {
  private readonly env: EnvSecretProvider;

  constructor(
    private readonly store: () => SecretStore,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.env = new EnvSecretProvider(env);
  }

  get(name: string): string | undefined {
    return this.store().get(`${USER_SECRET_PREFIX}${name}`) ?? this.env.get(name);
  }

  describe(name: string): string {
    return `the secret store (gatehouse secrets set ${name}) or ${this.env.describe(name)}`;
  }
}
