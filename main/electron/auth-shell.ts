// The desktop app's part of upstream OAuth: the secret store encrypted with safeStorage (its
// key in the OS keychain), the system browser for sign-in (shell.openExternal, http(s) only),
// and a notification when a sign-in expired and could not be refreshed.
import { Notification, safeStorage, shell } from 'electron';
import type { Host } from '../host';
import { EncryptedFileStore } from '../auth/encrypted-file-store';
import { openSecretStore } from '../auth/secret-store';

export function installAuthShell(host: Host, opts: { log: (line: string) => void; showWindow: () => void }): void {
  // safeStorage on Linux without a keyring falls back to a hard-coded key ('basic_text'):
  // no better than our own file, so then the usual choice (keychain, else encrypted file) applies.
  const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend?.() : undefined;
  if (safeStorage.isEncryptionAvailable() && backend !== 'basic_text') {
    host.auth.useStore(
      new EncryptedFileStore({
        dataDir: host.dataDir,
        kind: 'safe-storage',
        cipher: { encrypt: (plain) => safeStorage.encryptString(plain), decrypt: (blob) => safeStorage.decryptString(blob) },
      }),
    );
  } else {
    const store = openSecretStore({ dataDir: host.dataDir, env: host.env });
    host.auth.useStore(store);
    if (store.warning) opts.log(`warning: ${store.warning}`);
  }
  host.auth.opener = async (url) => {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`refusing to open a ${u.protocol} authorization URL`);
    await shell.openExternal(u.href);
    return true;
  };
  host.on('auth-expired', (_launchId, serverId, reason) => {
    opts.log(`sign-in of ${serverId} expired: ${reason}`);
    if (!Notification.isSupported()) return;
    const n = new Notification({ title: `Sign in to ${serverId} again`, body: `${reason}. Open Gatehouse and click Sign in.` });
    n.on('click', () => opts.showWindow());
    n.show();
  });
}
