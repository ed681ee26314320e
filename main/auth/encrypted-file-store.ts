// The secret store where no OS keychain exists (and, with Electron's safeStorage as its
// cipher, the desktop app's store): one file, `secrets.enc` in the data dir, mode 0600, whose
// whole content (names and values) is one AES-256-GCM blob, written atomically.
//
// Where the key lives, and what that protects against (docs/auth.md says the same):
//   - GATEHOUSE_SECRET_KEY (64 hex digits) when set, so the key can live elsewhere (a login
//     script, a CI secret) and never sit next to the file;
//   - otherwise `secret-store.key` beside it, 32 random bytes, mode 0600.
// With the key beside the file this protects against the file travelling alone (a copied or
// synced data dir without the key, a backup, `grep -r token ~`, a file pasted into a bug report)
// and against other users (0600). It does NOT protect against a program running as the same
// user, which can read both files: on such a machine the sandbox (main/sandbox/), which hides
// the data dir from servers and agents, is what keeps them out. Hence the visible warning.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SecretStore, SecretStoreKind } from './secret-store-interface';

/** Turns the serialized store into bytes on disk and back (AES-GCM here, safeStorage in Electron). */
export interface ValueCipher {
  encrypt(plain: string): Buffer;
  decrypt(blob: Buffer): string;
}

const FILE = 'secrets.enc';
const KEY_FILE = 'secret-store.key';
const MAGIC = Buffer.from('GHS1');
const AAD = Buffer.from('gatehouse-secrets/1');

export function aesGcmCipher(key: Buffer): ValueCipher {
  if (key.length !== 32) throw new Error(`an AES-256 key is 32 bytes, got ${key.length}`);
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(AAD);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([MAGIC, iv, c.getAuthTag(), body]);
    },
    decrypt(blob) {
      if (blob.length < 32 || !blob.subarray(0, 4).equals(MAGIC)) throw new Error('not a Gatehouse secret store (bad header)');
      const d = createDecipheriv('aes-256-gcm', key, blob.subarray(4, 16));
      d.setAAD(AAD);
      d.setAuthTag(blob.subarray(16, 32));
      return Buffer.concat([d.update(blob.subarray(32)), d.final()]).toString('utf8');
    },
  };
}

function writePrivate(file: string, data: Buffer | string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, file);
}

function loadKey(dataDir: string, env: NodeJS.ProcessEnv): { key: Buffer; where: string } {
  const fromEnv = env.GATEHOUSE_SECRET_KEY;
  if (fromEnv) {
    if (!/^[0-9a-fA-F]{64}$/.test(fromEnv)) throw new Error('GATEHOUSE_SECRET_KEY must be 64 hex digits (32 bytes)');
    return { key: Buffer.from(fromEnv, 'hex'), where: 'GATEHOUSE_SECRET_KEY' };
  }
  const file = path.join(dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  fixMode(file);
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${file} is not a Gatehouse secret-store key (expected 64 hex digits)`);
  return { key: Buffer.from(hex, 'hex'), where: file };
}

/** A secret file readable by others is made private again (and said so on stderr). */
function fixMode(file: string): void {
  if (process.platform === 'win32') return;
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    chmodSync(file, 0o600);
    process.stderr.write(`gatehouse: ${file} was readable by others (mode ${mode.toString(8)}); made it 0600\n`);
  }
}

export class EncryptedFileStore implements SecretStore {
  readonly kind: SecretStoreKind;
  readonly description: string;
  readonly warning?: string;
  readonly file: string;
  private cipherValue: ValueCipher | undefined;
  private readonly keyWhere: string;

  constructor(private readonly opts: { dataDir: string; kind: 'encrypted-file' | 'safe-storage'; env?: NodeJS.ProcessEnv; cipher?: ValueCipher; why?: string }) {
    this.kind = opts.kind;
    this.file = path.join(opts.dataDir, FILE);
    this.cipherValue = opts.cipher;
    const env = opts.env ?? process.env;
    this.keyWhere = env.GATEHOUSE_SECRET_KEY ? 'GATEHOUSE_SECRET_KEY' : path.join(opts.dataDir, KEY_FILE);
    if (opts.cipher) {
      this.description = `file ${this.file}, encrypted with Electron safeStorage (the OS keychain holds its key)`;
    } else {
      this.description = `encrypted file ${this.file} (AES-256-GCM, key in ${this.keyWhere})`;
      this.warning =
        `${opts.why ?? 'no OS keychain'}: secrets are kept in ${this.file}, encrypted with a key ` +
        `${this.keyWhere === 'GATEHOUSE_SECRET_KEY' ? 'from GATEHOUSE_SECRET_KEY' : `stored beside it (${this.keyWhere})`}. ` +
        'This protects the file if it travels alone, not against programs running as you.';
    }
  }

  /** The key is read (or made) on first use, so a host that never stores a secret writes nothing. */
  private get cipher(): ValueCipher {
    this.cipherValue ??= aesGcmCipher(loadKey(this.opts.dataDir, this.opts.env ?? process.env).key);
    return this.cipherValue;
  }

  private read(): Map<string, string> {
    if (!existsSync(this.file)) return new Map();
    fixMode(this.file);
    let text: string;
    try {
      text = this.cipher.decrypt(readFileSync(this.file));
    } catch (err) {
      throw new Error(`cannot decrypt ${this.file} (${(err as Error).message}); was it written with another key?`);
    }
    const parsed = JSON.parse(text) as Record<string, string>;
    return new Map(Object.entries(parsed));
  }

  private write(values: Map<string, string>): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    writePrivate(this.file, this.cipher.encrypt(JSON.stringify(Object.fromEntries(values))));
  }

  get(key: string): string | undefined {
    return this.read().get(key);
  }

  set(key: string, value: string): void {
    const values = this.read();
    values.set(key, value);
    this.write(values);
  }

  delete(key: string): boolean {
    const values = this.read();
    if (!values.delete(key)) return false;
    this.write(values);
    return true;
  }

  keys(): string[] {
    return [...this.read().keys()].sort();
  }
}
