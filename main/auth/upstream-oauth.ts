// The OAuth client of one upstream `url:` server with `auth: oauth`: an OAuthClientProvider
// (the MCP SDK's interface, @modelcontextprotocol/sdk 1.32 client/auth.js) handed to the
// StreamableHTTPClientTransport. The SDK does the protocol work: discovery (RFC 9728 protected
// resource metadata from WWW-Authenticate or the well-known paths; RFC 8414 / OpenID discovery
// with the spec's fallbacks), registration (Client ID Metadata Document when the server
// supports it and we have one, else Dynamic Client Registration), PKCE, the `resource`
// parameter (RFC 8707), the scope choice (WWW-Authenticate, then scopes_supported), step-up on
// `insufficient_scope`, refresh on 401, and binding stored credentials to their issuer.
// This class adds what the SDK leaves to the application:
//   - storage in the secret store (./credential-vault.ts), keyed by issuer;
//   - the redirect: a loopback listener with a one-time state (./loopback-redirect.ts), the
//     `iss` check of RFC 9207 on the callback, and the metadata `issuer` check of RFC 8414 §3.3;
//   - refresh before expiry (tokens() refreshes a token about to expire, so requests never
//     carry a dead one), and "sign-in needed" instead of a browser popping up mid-launch:
//     a supervised server never redirects by itself; a person clicks Sign in.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { auth, refreshAuthorization, UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidGrantError, InvalidClientError, UnauthorizedClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { z } from 'zod';
import type { AuthStatusSchema } from '../../common/host-api';
import { CredentialVault, expiresAt, type StoredTokens } from './credential-vault';
import { startLoopbackRedirect, type CallbackParams, type LoopbackRedirect } from './loopback-redirect';

export interface OAuthSettings {
  /** Pre-registered client (profile `client_id`); then no registration happens. */
  clientId?: string;
  /** Its secret (profile `client_secret: ${secret:…}`). */
  clientSecret?: string;
  /** Scopes to ask for when neither WWW-Authenticate nor scopes_supported names any. */
  scopes?: string[];
  /** Loopback port of the redirect URI (a pre-registered client needs a fixed one). */
  redirectPort?: number;
  /** An https URL where Gatehouse's Client ID Metadata Document is published (SEP-991). */
  clientMetadataUrl?: string;
}

/** Shown in the Servers view and by `gatehouse auth status` (declared once, in common/). */
export type AuthStatusInfo = z.infer<typeof AuthStatusSchema>;
export type AuthState = AuthStatusInfo['state'];

/** A supervised server needs a person to sign in; it is not restarted until then. */
export class SignInRequiredError extends UnauthorizedError {
  constructor(
    readonly server: string,
    readonly why: string,
  ) {
    super(`sign-in needed for ${server}: ${why}`);
    this.name = 'SignInRequiredError';
  }
}

type Events = { status: [AuthStatusInfo]; expired: [string] };

interface Interactive {
  redirect: LoopbackRedirect;
  open: (url: URL) => void | Promise<void>;
  state?: string;
  opened?: Promise<void>;
}

/** Refresh when this close to expiry: a minute, or a quarter of a short token's life. */
function refreshMargin(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 4);
}

export class UpstreamOAuth extends EventEmitter<Events> implements OAuthClientProvider {
  readonly serverUrl: string;
  readonly clientMetadataUrl?: string;
  private interactive: Interactive | undefined;
  private verifier: string | undefined;
  private refreshing: Promise<OAuthTokens | undefined> | undefined;
  private needed: string | undefined;
  /** The scope the server last asked for (WWW-Authenticate), used by the next sign-in. */
  private scopeHint: string | undefined;
  private hadTokens = false;
  /** A 403 insufficient_scope was seen: the next sign-in must authorize anew, not refresh. */
  private stepUp = false;

  constructor(
    private readonly opts: {
      /** The server's id, for messages. */
      name: string;
      serverUrl: string;
      vault: CredentialVault;
      settings: OAuthSettings;
      fetchFn?: typeof fetch;
      /** Every secret value this provider handles, so the launch's redactor hides it everywhere. */
      onSecret?: (name: string, value: string) => void;
    },
  ) {
    super();
    this.serverUrl = opts.serverUrl;
    this.clientMetadataUrl = opts.settings.clientMetadataUrl;
    if (opts.settings.clientSecret) opts.onSecret?.(`${opts.name}.client_secret`, opts.settings.clientSecret);
    const t = this.storedTokens();
    if (t) {
      this.hadTokens = true;
      this.reportSecrets(t.tokens);
    }
  }

  // ---- state for the UI and the CLI ---------------------------------------------------------

  status(): AuthStatusInfo {
    const issuer = this.issuer();
    const t = this.storedTokens();
    if (this.interactive) return { state: 'signing-in', ...(issuer ? { issuer } : {}) };
    if (this.needed || !t) {
      return { state: this.needed ? 'sign-in-needed' : 'signed-out', ...(issuer ? { issuer } : {}), ...(this.needed ? { reason: this.needed } : {}) };
    }
    const exp = expiresAt(t);
    return {
      state: 'signed-in',
      ...(issuer ? { issuer } : {}),
      ...(exp !== undefined ? { expiresAt: exp } : {}),
      ...(t.tokens.scope ? { scope: t.tokens.scope } : {}),
      hasRefreshToken: Boolean(t.tokens.refresh_token),
    };
  }

  /** The fetch the transport uses: it notes what a 401/403 asks for (scope, sign-in). */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await (this.opts.fetchFn ?? fetch)(input, init);
    if (res.status === 401 || res.status === 403) {
      const header = res.headers.get('www-authenticate') ?? '';
      const scope = /scope="([^"]*)"/i.exec(header)?.[1];
      if (scope) this.scopeHint = scope;
      if (res.status === 403 && /error="?insufficient_scope/i.test(header) && !this.interactive) {
        // Step-up needs a new authorization, so a person: say so (the server stays up for
        // the calls its current scope allows); the next Sign in asks for this scope.
        this.needed = `the server asks for more access${scope ? ` (scope ${scope})` : ''}`;
        this.stepUp = true;
        this.emitStatus();
      }
    }
    return res;
  };

  /** Marks the server as needing a person (and says so once to listeners). */
  private requireSignIn(why: string): never {
    const first = this.needed === undefined;
    this.needed = why;
    if (first) {
      this.emitStatus();
      if (this.hadTokens) this.emit('expired', why);
    }
    throw new SignInRequiredError(this.opts.name, why);
  }

  private emitStatus(): void {
    this.emit('status', this.status());
  }

  // ---- OAuthClientProvider ------------------------------------------------------------------

  get redirectUrl(): string {
    if (this.interactive) return this.interactive.redirect.url;
    const port = this.opts.settings.redirectPort ?? this.opts.vault.discovery(this.serverUrl)?.redirectPort;
    return `http://127.0.0.1${port ? `:${port}` : ''}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const s = this.opts.settings;
    const metadata = {
      client_name: 'Gatehouse',
      // SEP-837: a desktop app with a loopback redirect is a native client.
      application_type: 'native',
      client_uri: 'https://github.com/gatehouse-dev/gatehouse',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: s.clientSecret ? 'client_secret_basic' : 'none',
      ...(s.scopes?.length ? { scope: s.scopes.join(' ') } : {}),
    };
    return metadata as OAuthClientMetadata; // application_type is not in the SDK's type; it is sent as is
  }

  state(): string {
    const state = randomBytes(32).toString('base64url');
    if (this.interactive) {
      this.interactive.state = state;
      this.interactive.redirect.expect(state);
    }
    return state;
  }

  private issuer(): string | undefined {
    return this.opts.vault.discovery(this.serverUrl)?.state.authorizationServerUrl;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const s = this.opts.settings;
    if (s.clientId) return { client_id: s.clientId, ...(s.clientSecret ? { client_secret: s.clientSecret } : {}) };
    const issuer = this.issuer();
    if (!this.interactive) {
      // Without a person there is nothing to register for: only a refresh can help.
      const t = this.storedTokens();
      if (!t?.tokens.refresh_token) this.requireSignIn(t ? 'the access token was refused and there is no refresh token' : 'not signed in yet');
    }
    if (!issuer) return undefined;
    const info = this.opts.vault.client(issuer);
    if (!info) return undefined;
    // A registration made for another loopback port cannot receive this sign-in's redirect.
    const uris = (info as { redirect_uris?: string[] }).redirect_uris;
    if (this.interactive && uris && !uris.includes(this.redirectUrl)) return undefined;
    return info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (this.opts.settings.clientId) return; // pre-registered: the profile is its home
    const issuer = info.issuer ?? this.issuer();
    if (!issuer) return;
    if (info.client_secret) this.opts.onSecret?.(`${this.opts.name}.client_secret`, info.client_secret);
    this.opts.vault.saveClient(issuer, info);
  }

  private storedTokens(): StoredTokens | undefined {
    const issuer = this.issuer();
    return issuer ? this.opts.vault.tokens(issuer, this.serverUrl) : undefined;
  }

  private reportSecrets(t: OAuthTokens): void {
    this.opts.onSecret?.(`${this.opts.name}.access_token`, t.access_token);
    if (t.refresh_token) this.opts.onSecret?.(`${this.opts.name}.refresh_token`, t.refresh_token);
    if (t.id_token) this.opts.onSecret?.(`${this.opts.name}.id_token`, t.id_token);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const stored = this.storedTokens();
    if (!stored) return undefined;
    // A step-up sign-in: a refresh keeps the old scope, so the SDK must not be offered one.
    if (this.interactive && this.stepUp) return { ...stored.tokens, refresh_token: undefined };
    const exp = expiresAt(stored);
    if (exp !== undefined && stored.tokens.refresh_token && Date.now() >= exp - refreshMargin(exp - stored.savedAt)) {
      this.refreshing ??= this.refreshAhead(stored).finally(() => (this.refreshing = undefined));
      return (await this.refreshing) ?? stored.tokens;
    }
    return stored.tokens;
  }

  /** Refreshes now (`auth check`, tests): 'refreshed', 'failed', or why it was not tried. */
  async refreshNow(): Promise<'refreshed' | 'failed' | 'no refresh token' | 'not signed in'> {
    const stored = this.storedTokens();
    if (!stored) return 'not signed in';
    if (!stored.tokens.refresh_token) return 'no refresh token';
    this.refreshing ??= this.refreshAhead(stored).finally(() => (this.refreshing = undefined));
    return (await this.refreshing) ? 'refreshed' : 'failed';
  }

  /** Uses the refresh token before the access token expires; undefined when that failed. */
  private async refreshAhead(stored: StoredTokens): Promise<OAuthTokens | undefined> {
    const disc = this.opts.vault.discovery(this.serverUrl)?.state;
    const client = this.opts.settings.clientId ? this.clientInformation() : disc && this.opts.vault.client(disc.authorizationServerUrl);
    if (!disc || !client || !stored.tokens.refresh_token) return undefined;
    try {
      const fresh = await refreshAuthorization(disc.authorizationServerUrl, {
        metadata: disc.authorizationServerMetadata,
        clientInformation: client,
        refreshToken: stored.tokens.refresh_token,
        ...(disc.resourceMetadata?.resource ? { resource: disc.resourceMetadata.resource } : {}),
        fetchFn: this.opts.fetchFn,
      });
      this.saveTokens({ ...fresh, issuer: disc.authorizationServerUrl });
      return fresh;
    } catch (err) {
      if (err instanceof InvalidGrantError || err instanceof InvalidClientError || err instanceof UnauthorizedClientError) {
        // The refresh token is dead: drop the tokens; the next request's 401 says sign in.
        this.opts.vault.deleteTokens(this.serverUrl);
      }
      return undefined;
    }
  }

  saveTokens(tokens: OAuthTokens): void {
    const issuer = tokens.issuer ?? this.issuer();
    if (!issuer) throw new Error('tokens arrived before discovery named their issuer');
    this.reportSecrets(tokens);
    this.opts.vault.saveTokens(issuer, this.serverUrl, tokens);
    this.hadTokens = true;
    this.needed = undefined;
    if (this.interactive) this.stepUp = false;
    this.emitStatus();
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.interactive) this.requireSignIn(this.hadTokens ? 'the sign-in expired and could not be refreshed' : 'not signed in yet');
    this.interactive.opened = Promise.resolve(this.interactive.open(authorizationUrl));
    await this.interactive.opened;
  }

  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier: no authorization is in progress');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const issuer = this.issuer();
    if ((scope === 'all' || scope === 'client') && issuer && !this.opts.settings.clientId) this.opts.vault.deleteClient(issuer);
    if (scope === 'all' || scope === 'tokens') this.opts.vault.deleteTokens(this.serverUrl);
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.opts.vault.deleteDiscovery(this.serverUrl);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    const meta = state.authorizationServerMetadata;
    // RFC 8414 §3.3: metadata whose issuer is not the one we asked is not to be used (it would
    // send our code, our secret, our refresh token to endpoints someone else chose).
    if (meta && meta.issuer !== state.authorizationServerUrl && meta.issuer !== state.authorizationServerUrl.replace(/\/$/, '')) {
      throw new Error(`authorization server metadata names issuer ${meta.issuer}, but it was fetched for ${state.authorizationServerUrl}; refusing to use it`);
    }
    const prev = this.opts.vault.discovery(this.serverUrl);
    const redirectPort = this.interactive ? this.interactive.redirect.port : prev?.redirectPort;
    this.opts.vault.saveDiscovery(this.serverUrl, { state, ...(redirectPort ? { redirectPort } : {}) });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    // A sign-in always discovers afresh: the resource may have moved to another authorization
    // server (SEP-2352), and a cached one would send the person to the old one. Without a
    // person (refreshes), the cache saves the discovery requests.
    if (this.interactive) return undefined;
    return this.opts.vault.discovery(this.serverUrl)?.state;
  }

  // ---- sign-in ------------------------------------------------------------------------------

  /**
   * Starts an interactive session: a loopback listener for redirects, and `open` to send the
   * person (or, headless, a fetch loop) to the authorization URL. Until endInteractive(), the
   * SDK's redirects go there instead of failing with SignInRequiredError.
   */
  async beginInteractive(open: (url: URL) => void | Promise<void>): Promise<void> {
    if (this.interactive) throw new Error(`a sign-in for ${this.opts.name} is already in progress`);
    const port = this.opts.settings.redirectPort ?? this.opts.vault.discovery(this.serverUrl)?.redirectPort ?? 0;
    let redirect: LoopbackRedirect;
    try {
      redirect = await startLoopbackRedirect(port);
    } catch (err) {
      if (this.opts.settings.redirectPort) throw new Error(`cannot listen on 127.0.0.1:${port} for the sign-in redirect: ${(err as Error).message}`);
      redirect = await startLoopbackRedirect(0); // the old port is taken: register again
    }
    this.interactive = { redirect, open };
    this.emitStatus();
  }

  async endInteractive(): Promise<void> {
    const i = this.interactive;
    this.interactive = undefined;
    await i?.redirect.close();
    this.emitStatus();
  }

  /** After the SDK redirected: the code of the callback, once its state and `iss` check out. */
  async awaitAuthorizationCode(timeoutMs: number): Promise<string> {
    const i = this.interactive;
    if (!i?.state) throw new Error('no authorization is in progress');
    const waiting = i.redirect.wait(i.state, timeoutMs);
    await i.opened;
    const cb = await waiting;
    return this.checkCallback(cb);
  }

  /** RFC 9207: the `iss` of the authorization response, compared as a plain string. */
  private checkCallback(cb: CallbackParams): string {
    const disc = this.opts.vault.discovery(this.serverUrl)?.state;
    const meta = disc?.authorizationServerMetadata as (Record<string, unknown> & { issuer?: string }) | undefined;
    const expected = meta?.issuer ?? disc?.authorizationServerUrl;
    if (cb.iss !== undefined && cb.iss !== expected) {
      throw new Error(`the authorization response came from issuer '${cb.iss}', not '${expected}' (RFC 9207); the sign-in was refused`);
    }
    if (cb.iss === undefined && meta?.authorization_response_iss_parameter_supported === true) {
      throw new Error(`the authorization server promises an 'iss' in its responses but this one had none (RFC 9207); the sign-in was refused`);
    }
    if (cb.error) throw new Error(`the authorization server refused the sign-in: ${cb.error}${cb.errorDescription ? ` (${cb.errorDescription})` : ''}`);
    if (!cb.code) throw new Error('the authorization response carried no code');
    return cb.code;
  }

  /**
   * A complete sign-in outside any transport (the Sign in button, `gatehouse auth login`):
   * discovery, registration, authorization with PKCE, the code exchange. A refresh token that
   * still works makes it a silent refresh.
   */
  async signIn(open: (url: URL) => void | Promise<void>, opts: { timeoutMs?: number; scope?: string } = {}): Promise<void> {
    await this.beginInteractive(open);
    try {
      const scope = opts.scope ?? this.scopeHint;
      const common = { serverUrl: this.serverUrl, ...(scope ? { scope } : {}), fetchFn: this.opts.fetchFn };
      const first = await auth(this, common);
      if (first === 'REDIRECT') {
        const code = await this.awaitAuthorizationCode(opts.timeoutMs ?? 300_000);
        await auth(this, { ...common, authorizationCode: code });
      }
      this.needed = undefined;
    } catch (err) {
      if (!(err instanceof SignInRequiredError)) this.needed ??= (err as Error).message;
      throw err;
    } finally {
      await this.endInteractive();
    }
  }

  /** Removes this server's tokens (the registration stays: it is the issuer's, and shared). */
  signOut(): boolean {
    const had = this.opts.vault.deleteTokens(this.serverUrl);
    this.hadTokens = false;
    this.needed = undefined;
    this.emitStatus();
    return had;
  }
}
