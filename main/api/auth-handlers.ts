// Host-API commands of main/auth/: Sign in / Sign out of an `auth: oauth` server, and the
// Secrets panel. Secret values travel one way only, window → store: no command returns one.
import type { Host } from '../host';
import { USER_SECRET_PREFIX } from '../auth/secret-store';
import type { ManagedServer } from '../supervisor/managed-server';

export function authHandlers(host: Host, serverOf: (launchId: string, serverId: string) => ManagedServer) {
  const oauthServer = (launchId: string, serverId: string) => {
    const server = serverOf(launchId, serverId);
    if (server.spec.kind !== 'http' || !server.spec.oauth) throw new Error(`server '${serverId}' does not use auth: oauth`);
    return server;
  };
  return {
    'auth:signIn': async (input: { launchId: string; serverId: string }) => {
      oauthServer(input.launchId, input.serverId);
      const started = await host.signIn(input.launchId, input.serverId);
      started.done.catch(() => {}); // reported on stderr and in the server's auth status
      return { ...(started.authorizationUrl ? { authorizationUrl: started.authorizationUrl } : {}), opened: started.opened };
    },
    'auth:signOut': async (input: { launchId: string; serverId: string }) => {
      oauthServer(input.launchId, input.serverId);
      return { removed: await host.signOut(input.launchId, input.serverId) };
    },
    'secrets:list': () => {
      const store = host.auth.store;
      const names = store
        .keys()
        .filter((k) => k.startsWith(USER_SECRET_PREFIX))
        .map((k) => k.slice(USER_SECRET_PREFIX.length));
      return { store: { kind: store.kind, description: store.description, ...(store.warning ? { warning: store.warning } : {}) }, names };
    },
    'secrets:set': (input: { name: string; value: string }) => {
      host.auth.store.set(`${USER_SECRET_PREFIX}${input.name}`, input.value);
      return { ok: true as const };
    },
    'secrets:delete': (input: { name: string }) => ({ removed: host.auth.store.delete(`${USER_SECRET_PREFIX}${input.name}`) }),
  };
}
