// The desktop app's OAuth wiring (auth-shell.ts) with a fake `electron`: the secret store goes
// through safeStorage when it is available (and not Linux's hard-coded basic_text key), the
// system browser opens only http(s) authorization URLs, and an expired sign-in notifies.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../host';
import { tempDir } from '../../tests/support/temp';

const fake = vi.hoisted(() => ({
  available: true,
  backend: 'gnome_libsecret',
  opened: [] as string[],
  notices: [] as Array<{ title: string; body: string }>,
  encrypted: 0,
}));

vi.mock('electron', () => ({
  safeStorage: {
    isEncryptionAvailable: () => fake.available,
    getSelectedStorageBackend: () => fake.backend,
    encryptString: (s: string) => {
      fake.encrypted += 1;
      return Buffer.from(`SAFE:${Buffer.from(s).toString('base64')}`);
    },
    decryptString: (b: Buffer) => Buffer.from(b.toString().slice(5), 'base64').toString(),
  },
  shell: { openExternal: async (u: string) => void fake.opened.push(u) },
  Notification: class {
    static isSupported = () => true;
    constructor(private readonly o: { title: string; body: string }) {}
    on() {}
    show() {
      fake.notices.push(this.o);
    }
  },
}));

const { installAuthShell } = await import('./auth-shell');

let tmp: ReturnType<typeof tempDir> | undefined;
let host: Host | undefined;
afterEach(async () => {
  await host?.shutdown();
  tmp?.cleanup();
  fake.encrypted = 0;
});

function make(): Host {
  tmp = tempDir('gatehouse-auth-shell-');
  host = new Host({ dataDir: path.join(tmp.dir, 'data'), audit: false, env: { ...process.env, GATEHOUSE_SECRET_STORE: '' } });
  installAuthShell(host, { log: () => {}, showWindow: () => {} });
  return host;
}

describe('auth-shell (fake electron)', () => {
  it('keeps secrets through safeStorage, opens only http(s) sign-in URLs, and notifies on expiry', async () => {
    const h = make();
    expect(h.auth.store.kind).toBe('safe-storage');
    h.auth.store.set('secret:X', 'value-x');
    expect(fake.encrypted).toBe(1);
    expect(readFileSync(path.join(h.dataDir, 'secrets.enc'), 'utf8')).toMatch(/^SAFE:/);
    expect(h.auth.store.get('secret:X')).toBe('value-x');
    expect(await h.auth.opener!('https://as.example/authorize?x=1')).toBe(true);
    expect(fake.opened).toEqual(['https://as.example/authorize?x=1']);
    await expect(Promise.resolve().then(() => h.auth.opener!('file:///etc/passwd'))).rejects.toThrow(/refusing to open a file: authorization URL/);
    h.emit('auth-expired', 'launch-1', 'linear', 'the sign-in expired and could not be refreshed');
    expect(fake.notices).toEqual([{ title: 'Sign in to linear again', body: 'the sign-in expired and could not be refreshed. Open Gatehouse and click Sign in.' }]);
  });

  it("does not trust safeStorage's basic_text fallback (a hard-coded key) on Linux", () => {
    fake.backend = 'basic_text';
    try {
      const h = make();
      if (process.platform === 'linux') expect(h.auth.store.kind).not.toBe('safe-storage');
    } finally {
      fake.backend = 'gnome_libsecret';
    }
  });
});
