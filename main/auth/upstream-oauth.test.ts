// UpstreamOAuth against the local authorization server (tests/support/oauth-servers.ts):
// what a supervised server may do without a person, and the checks on the way back (RFC 9207
// iss, RFC 8414 issuer).
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialVault } from './credential-vault';
import { followAuthorizationHeadless } from './loopback-redirect';
import { MemorySecretStore } from './secret-store';
import { SignInRequiredError, UpstreamOAuth } from './upstream-oauth';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { startOAuthServers, type OAuthServerOptions, type OAuthServers } from '../../tests/support/oauth-servers';

let servers: OAuthServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

async function setup(opts: OAuthServerOptions = {}) {
  servers = await startOAuthServers(opts);
  const store = new MemorySecretStore();
  const secrets: string[] = [];
  const provider = new UpstreamOAuth({ name: 'remote', serverUrl: servers.mcpUrl, vault: new CredentialVault(store), settings: {}, onSecret: (_n, v) => secrets.push(v) });
  const headless = (url: URL) => followAuthorizationHeadless(url, provider.redirectUrl);
  return { servers, store, provider, secrets, headless };
}

describe('UpstreamOAuth', () => {
  it('without a person: discovers, but neither registers nor redirects; says sign-in needed', async () => {
    const { servers, provider } = await setup();
    await expect(auth(provider, { serverUrl: servers.mcpUrl })).rejects.toBeInstanceOf(SignInRequiredError);
    expect(servers.counts.registrations).toBe(0);
    expect(provider.status()).toMatchObject({ state: 'sign-in-needed', issuer: servers.asUrl, reason: 'not signed in yet' });
  });

  it('signs in, keys the registration by issuer and the tokens by issuer and resource, reports every secret', async () => {
    const { servers, store, provider, secrets, headless } = await setup();
    await provider.signIn(headless);
    expect(provider.status()).toMatchObject({ state: 'signed-in', issuer: servers.asUrl, hasRefreshToken: true });
    expect(store.keys()).toEqual([`oauth:client:${servers.asUrl}`, `oauth:discovery:${servers.mcpUrl}`, `oauth:tokens:${servers.asUrl} ${servers.mcpUrl}`]);
    for (const s of servers.issuedSecrets()) expect(secrets).toContain(s);
    // A second sign-in with a working refresh token is silent: no new authorization.
    await provider.signIn(() => {
      throw new Error('no browser expected');
    });
    expect(servers.counts.authorizations).toBe(1);
    expect(provider.signOut()).toBe(true);
    expect(store.keys().some((k) => k.startsWith('oauth:tokens:'))).toBe(false);
  });

  it('refreshes a token about to expire before using it (no 401 needed), once for concurrent requests', async () => {
    const { servers, store, provider, headless } = await setup();
    await provider.signIn(headless);
    const key = `oauth:tokens:${servers.asUrl} ${servers.mcpUrl}`;
    const stored = JSON.parse(store.get(key)!) as { tokens: { access_token: string; expires_in: number }; savedAt: number };
    const old = stored.tokens.access_token;
    // As if saved an hour ago with an hour of life: about to expire.
    store.set(key, JSON.stringify({ ...stored, savedAt: Date.now() - stored.tokens.expires_in * 1000 + 5_000 }));
    const [a, b] = await Promise.all([provider.tokens(), provider.tokens()]);
    expect(a!.access_token).not.toBe(old);
    expect(b!.access_token).toBe(a!.access_token);
    expect(servers.counts.refreshes).toBe(1);
    expect(servers.counts.unauthorized).toBe(0);
    // A fresh token is used as it is.
    expect((await provider.tokens())!.access_token).toBe(a!.access_token);
    expect(servers.counts.refreshes).toBe(1);
  });

  it('a resource that moved to another authorization server (SEP-2352): the next sign-in registers there', async () => {
    const { servers, store, provider, headless } = await setup();
    await provider.signIn(headless);
    const other = await startOAuthServers();
    try {
      servers.useAuthorizationServer(other);
      servers.revokeRefreshTokens();
      await provider.signIn(headless);
      expect(other.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });
      expect(provider.status()).toMatchObject({ state: 'signed-in', issuer: other.asUrl });
      // The old issuer's registration stays bound to it; the new one is keyed by the new issuer.
      expect(store.keys()).toEqual(expect.arrayContaining([`oauth:client:${servers.asUrl}`, `oauth:client:${other.asUrl}`, `oauth:tokens:${other.asUrl} ${servers.mcpUrl}`]));
    } finally {
      await other.close();
    }
  });

  it('refuses an authorization response from another issuer, or without the iss it promised (RFC 9207)', async () => {
    const wrong = await setup({ issInRedirect: 'wrong' });
    await expect(wrong.provider.signIn(wrong.headless)).rejects.toThrow(/came from issuer 'https:\/\/attacker\.example'.*RFC 9207/);
    expect(wrong.servers.counts.codeExchanges).toBe(0);
    await wrong.servers.close();
    const missing = await setup({ issInRedirect: 'missing' });
    await expect(missing.provider.signIn(missing.headless)).rejects.toThrow(/promises an 'iss'.*had none/);
    expect(missing.servers.counts.codeExchanges).toBe(0);
  });

  it('refuses authorization server metadata that names another issuer (RFC 8414 §3.3)', async () => {
    const { servers, provider, headless } = await setup({ metadataIssuer: 'wrong' });
    await expect(provider.signIn(headless)).rejects.toThrow(/names issuer https:\/\/attacker\.example/);
    expect(servers.counts.registrations).toBe(0);
  });
});
