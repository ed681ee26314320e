// The host's side of upstream OAuth: one UpstreamOAuth per `auth: oauth` server of each launch,
// all on the host's secret store; Sign in / Sign out for the window and the CLI; and the
// "sign-in expired" notice when a token can no longer be refreshed. The shell decides how an
// authorization URL reaches a person: Electron opens the system browser (shell.openExternal);
// the headless shell and the CLI print it (and the window shows it as a link).
import { EventEmitter } from 'node:events';
import type { HttpServerSpec, ServerSpec } from '../profiles/types';
import type { Redactor } from '../secrets/redactor';
import { CredentialVault } from './credential-vault';
import { openSecretStore, type SecretStore } from './secret-store';
import { UpstreamOAuth, type AuthStatusInfo } from './upstream-oauth';

export interface SignInStarted {
  /** Where the person signs in; absent when a still-valid refresh token made it silent. */
  authorizationUrl?: string;
  /** True when the shell opened the URL itself (the system browser). */
  opened: boolean;
  /** Settles when the sign-in completed (or failed); the server restarts after success. */
  done: Promise<void>;
}

type Events = {
  status: [launchId: string, serverId: string, status: AuthStatusInfo];
  expired: [launchId: string, serverId: string, reason: string];
};

export class AuthManager extends EventEmitter<Events> {
  private storeValue: SecretStore | undefined;
  private readonly providers = new Map<string, UpstreamOAuth>();
  /** How the shell shows an authorization URL; returns true when it opened it itself. */
  opener: ((url: string) => Promise<boolean> | boolean) | undefined;
  private warned = false;

  constructor(private readonly opts: { dataDir: string; env: NodeJS.ProcessEnv; store?: SecretStore; log?: (line: string) => void }) {
    super();
    this.storeValue = opts.store;
  }

  /** Opened on first use (the keychain probe and key file wait until something needs them). */
  get store(): SecretStore {
    if (!this.storeValue) {
      this.storeValue = openSecretStore({ dataDir: this.opts.dataDir, env: this.opts.env });
      if (this.storeValue.warning && !this.warned) {
        this.warned = true;
        (this.opts.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(`gatehouse: warning: ${this.storeValue.warning}`);
      }
    }
    return this.storeValue;
  }

  /** The shell's own store (Electron safeStorage), set before anything used the default. */
  useStore(store: SecretStore): void {
    this.storeValue = store;
  }

  private key(launchId: string, serverId: string): string {
    return `${launchId}\u0000${serverId}`;
  }

  /** The supervisor's hook: the OAuth client of an `auth: oauth` server, else undefined. */
  providerFor(launchId: string, spec: ServerSpec, redactor: Redactor, profileFile?: string): UpstreamOAuth | undefined {
    if (spec.kind !== 'http' || !spec.oauth) return undefined;
    const key = this.key(launchId, spec.id);
    let provider = this.providers.get(key);
    if (!provider) {
      provider = this.create(spec, redactor);
      let told = false;
      provider.on('status', (s) => {
        this.emit('status', launchId, spec.id, s);
        if (s.state !== 'sign-in-needed' || told) return;
        told = true; // once per launch: the CLI shells have no button, so say what to run
        const login = profileFile ? ` or run: gatehouse auth login --profile ${profileFile} --server ${spec.id}` : '';
        process.stderr.write(`gatehouse: ${spec.id} needs a sign-in (${s.reason ?? 'not signed in'}): click Sign in in the Servers view${login}\n`);
      });
      provider.on('expired', (reason) => this.emit('expired', launchId, spec.id, reason));
      this.providers.set(key, provider);
    }
    return provider;
  }

  /** A provider outside any launch (`gatehouse auth login|logout|status`). */
  create(spec: HttpServerSpec, redactor?: Redactor): UpstreamOAuth {
    const o = spec.oauth ?? {};
    const clientMetadataUrl = this.opts.env.GATEHOUSE_OAUTH_CLIENT_METADATA_URL;
    return new UpstreamOAuth({
      name: spec.id,
      serverUrl: spec.url,
      vault: new CredentialVault(this.store),
      settings: { ...o, ...(clientMetadataUrl ? { clientMetadataUrl } : {}) },
      onSecret: (name, value) => redactor?.add(name, value),
    });
  }

  get(launchId: string, serverId: string): UpstreamOAuth | undefined {
    return this.providers.get(this.key(launchId, serverId));
  }

  /**
   * Starts a sign-in; resolves once the authorization URL is known (or the refresh token made
   * it unnecessary). `restart` runs after it succeeded, so the server connects signed in.
   */
  async signIn(launchId: string, serverId: string, restart: () => Promise<void>): Promise<SignInStarted> {
    const provider = this.get(launchId, serverId);
    if (!provider) throw new Error(`server '${serverId}' does not use auth: oauth`);
    type Announcement = { url?: string; opened: boolean; error?: string };
    let announce!: (v: Announcement) => void;
    const announced = new Promise<Announcement>((resolve) => (announce = resolve));
    const done = provider
      .signIn(async (url) => {
        let opened = false;
        try {
          opened = Boolean(await this.opener?.(url.href));
        } catch (err) {
          process.stderr.write(`gatehouse: could not open the browser: ${(err as Error).message}\n`);
        }
        if (!opened) process.stderr.write(`gatehouse: sign in to ${serverId} at:\n  ${url.href}\n`);
        announce({ url: url.href, opened });
      })
      .then(async () => {
        announce({ opened: false });
        await restart();
      });
    done.catch((err: Error) => {
      announce({ opened: false, error: err.message });
      process.stderr.write(`gatehouse: sign-in to ${serverId} failed: ${err.message}\n`);
    });
    const a = await announced;
    if (a.error) throw new Error(a.error);
    return { ...(a.url ? { authorizationUrl: a.url } : {}), opened: a.opened, done };
  }

  signOut(launchId: string, serverId: string): boolean {
    const provider = this.get(launchId, serverId);
    if (!provider) throw new Error(`server '${serverId}' does not use auth: oauth`);
    return provider.signOut();
  }

  releaseLaunch(launchId: string): void {
    for (const key of [...this.providers.keys()]) {
      if (key.startsWith(`${launchId}\u0000`)) {
        void this.providers.get(key)?.endInteractive();
        this.providers.delete(key);
      }
    }
  }
}
