// OAuth records in the secret store. Client registrations are keyed by the authorization
// server (its issuer), so every server behind one authorization server shares one
// registration; tokens by issuer and resource, because a token is bound to both (RFC 8707).
// Discovery results (not secret, but they say which issuer a server uses) sit beside them.
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { SecretStore } from './secret-store';

export interface StoredTokens {
  tokens: OAuthTokens;
  /** When they were saved (ms): `expires_in` counts from here. */
  savedAt: number;
}

export interface StoredDiscovery {
  state: OAuthDiscoveryState;
  /** The loopback port of the last sign-in, reused so a registered redirect URI stays valid. */
  redirectPort?: number;
}

const K = {
  discovery: (server: string) => `oauth:discovery:${server}`,
  client: (issuer: string) => `oauth:client:${issuer}`,
  tokens: (issuer: string, server: string) => `oauth:tokens:${issuer} ${server}`,
};

export class CredentialVault {
  constructor(readonly store: SecretStore) {}

  private json<T>(key: string): T | undefined {
    const raw = this.store.get(key);
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return undefined;
    }
  }

  discovery(server: string): StoredDiscovery | undefined {
    return this.json<StoredDiscovery>(K.discovery(server));
  }
  saveDiscovery(server: string, value: StoredDiscovery): void {
    this.store.set(K.discovery(server), JSON.stringify(value));
  }
  deleteDiscovery(server: string): void {
    this.store.delete(K.discovery(server));
  }

  client(issuer: string): OAuthClientInformationMixed | undefined {
    return this.json<OAuthClientInformationMixed>(K.client(issuer));
  }
  saveClient(issuer: string, info: OAuthClientInformationMixed): void {
    this.store.set(K.client(issuer), JSON.stringify(info));
  }
  deleteClient(issuer: string): void {
    this.store.delete(K.client(issuer));
  }

  tokens(issuer: string, server: string): StoredTokens | undefined {
    return this.json<StoredTokens>(K.tokens(issuer, server));
  }
  saveTokens(issuer: string, server: string, tokens: OAuthTokens): void {
    this.store.set(K.tokens(issuer, server), JSON.stringify({ tokens, savedAt: Date.now() } satisfies StoredTokens));
  }
  /** Deletes this server's tokens from every issuer; true when any existed. */
  deleteTokens(server: string): boolean {
    let any = false;
    for (const key of this.store.keys()) {
      if (key.startsWith('oauth:tokens:') && key.endsWith(` ${server}`)) any = this.store.delete(key) || any;
    }
    return any;
  }
}

/** When stored tokens expire (ms since epoch), or undefined when the server did not say. */
export function expiresAt(stored: StoredTokens): number | undefined {
  const s = stored.tokens.expires_in;
  return typeof s === 'number' && Number.isFinite(s) ? stored.savedAt + s * 1000 : undefined;
}
