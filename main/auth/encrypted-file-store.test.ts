// The encrypted-file secret store: private, opaque on disk, loud when the key is wrong.
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EncryptedFileStore } from './encrypted-file-store';
import { openKeychainStore } from './keychain-store';
import { openSecretStore } from './secret-store';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-store-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('EncryptedFileStore', () => {
  it('keeps names and values out of the file, mode 0600, and reads them back in a new instance', () => {
    const dir = temp();
    const store = new EncryptedFileStore({ dataDir: dir, kind: 'encrypted-file', env: {} });
    // Nothing is written (not even the key) until something is stored.
    expect(store.get('secret:GITHUB_TOKEN')).toBeUndefined();
    expect(() => statSync(path.join(dir, 'secret-store.key'))).toThrow();
    store.set('secret:GITHUB_TOKEN', 'ghp_supersecretvalue0123456789');
    store.set('oauth:tokens:https://as.example https://mcp.example/mcp', '{"access_token":"at_abc"}');
    const raw = readFileSync(store.file).toString('latin1');
    for (const needle of ['GITHUB_TOKEN', 'ghp_supersecretvalue0123456789', 'as.example', 'at_abc']) expect(raw).not.toContain(needle);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, 'secret-store.key')).mode & 0o777).toBe(0o600);
    const again = new EncryptedFileStore({ dataDir: dir, kind: 'encrypted-file', env: {} });
    expect(again.get('secret:GITHUB_TOKEN')).toBe('ghp_supersecretvalue0123456789');
    expect(again.keys()).toEqual(['oauth:tokens:https://as.example https://mcp.example/mcp', 'secret:GITHUB_TOKEN']);
    expect(again.delete('secret:GITHUB_TOKEN')).toBe(true);
    expect(again.delete('secret:GITHUB_TOKEN')).toBe(false);
    expect(store.keys()).toEqual(['oauth:tokens:https://as.example https://mcp.example/mcp']);
  });

  it('refuses a file written with another key, and a tampered file, naming the file', () => {
    const dir = temp();
    const a = new EncryptedFileStore({ dataDir: dir, kind: 'encrypted-file', env: { GATEHOUSE_SECRET_KEY: 'a'.repeat(64) } });
    a.set('secret:X', 'value-x');
    const b = new EncryptedFileStore({ dataDir: dir, kind: 'encrypted-file', env: { GATEHOUSE_SECRET_KEY: 'b'.repeat(64) } });
    expect(() => b.get('secret:X')).toThrow(/cannot decrypt .*secrets\.enc .*another key/);
    const bytes = readFileSync(a.file);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    writeFileSync(a.file, bytes);
    expect(() => a.get('secret:X')).toThrow(/cannot decrypt/);
    expect(() => new EncryptedFileStore({ dataDir: dir, kind: 'encrypted-file', env: { GATEHOUSE_SECRET_KEY: 'short' } }).get('secret:X')).toThrow(/64 hex digits/);
  });

  it('makes a store file that others could read private again', () => {
    const dir = temp();
    const store = new EncryptedFileStore({ dataDir: dir, kind: 'encrypted-file', env: {} });
    store.set('secret:X', 'value-x');
    chmodSync(store.file, 0o644);
    expect(store.get('secret:X')).toBe('value-x');
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });
});

describe('openSecretStore', () => {
  const keychain = openKeychainStore();
  it('falls back to the encrypted file with a warning that says why, where there is no keychain', () => {
    const dir = temp();
    const forced = openSecretStore({ dataDir: dir, env: { GATEHOUSE_SECRET_STORE: 'file' } });
    expect(forced.kind).toBe('encrypted-file');
    expect(forced.warning).toMatch(/GATEHOUSE_SECRET_STORE=file: secrets are kept in .*secrets\.enc.*not against programs running as you/);
    if ('store' in keychain) return; // this machine has a keychain: auto picks it
    const auto = openSecretStore({ dataDir: dir, env: {} });
    expect(auto.kind).toBe('encrypted-file');
    expect(auto.warning).toMatch(/^no OS keychain here \(/);
    expect(() => openSecretStore({ dataDir: dir, env: { GATEHOUSE_SECRET_STORE: 'keychain' } })).toThrow(/the OS keychain is not usable/);
    expect(() => openSecretStore({ dataDir: dir, env: { GATEHOUSE_SECRET_STORE: 'plain' } })).toThrow(/must be file, keychain or auto/);
  });
});
