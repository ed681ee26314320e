// `gatehouse doctor`'s checks of Gatehouse's own parts: where secrets are kept, the Electron
// binary, the native modules (loaded for real, in this runtime), Chromium for the tests, and the
// data dir. Each says what it found and, when it is not ok, the fix for this machine.
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { DoctorCheck } from '../../common/host-api-doctor';
import { openSecretStore, type SecretStore } from '../auth/secret-store';
import { nativeLoadProblem } from '../native/abi-mismatch';
import { appRoot } from '../paths';
import { chromiumPath, detectOs, installCommand } from '../../scripts/preflight.mjs';

const MiB = 1024 * 1024;
/** The audit store grows with every message until retention prunes it (README, GATEHOUSE_AUDIT_MAX_*): leave it room. */
const LOW_SPACE = 1024 * MiB;
const NO_SPACE = 100 * MiB;

/** `inUse`: the host's own store (the desktop app's safeStorage one), else the one this machine would give. */
function secretStoreCheck(dataDir: string, env: NodeJS.ProcessEnv, inUse?: () => SecretStore): DoctorCheck {
  try {
    const store = inUse ? inUse() : openSecretStore({ dataDir, env });
    if (store.kind === 'keychain' || store.kind === 'safe-storage') return { id: 'secrets.store', title: 'secret store', status: 'ok', detail: store.description };
    const manager = detectOs(env).manager;
    const keyring = manager === 'apt' || manager === 'dnf' || manager === 'zypper' || manager === 'pacman' ? 'gnome-keyring (or KeePassXC with its Secret Service on)' : 'a Secret Service';
    return {
      id: 'secrets.store',
      title: 'secret store',
      status: 'warning',
      // The description names the file and why there is no keychain; the store's longer warning says the same again.
      detail: store.description,
      fix: env.GATEHOUSE_SECRET_STORE === 'file' ? 'unset GATEHOUSE_SECRET_STORE to use the OS keychain' : `install and unlock ${keyring}; Gatehouse then keeps tokens in the OS keychain`,
    };
  } catch (err) {
    return { id: 'secrets.store', title: 'secret store', status: 'error', detail: (err as Error).message, fix: 'GATEHOUSE_SECRET_STORE=file keeps secrets in an encrypted file in the data dir instead' };
  }
}

function electronCheck(): DoctorCheck {
  if (process.versions.electron) return { id: 'app.electron', title: 'Electron', status: 'ok', detail: `running in Electron ${process.versions.electron}` };
  const pkg = path.join(appRoot(), 'node_modules', 'electron');
  if (!existsSync(path.join(pkg, 'package.json'))) {
    return { id: 'app.electron', title: 'Electron', status: 'warning', detail: 'the electron package is not installed: only the headless shell (a browser tab) can run', fix: 'npm ci (npm start does it)' };
  }
  // The same lookup as scripts/install-electron.mjs (path.txt + dist/), never by requiring the electron package, which downloads.
  let binary: string | undefined;
  try {
    binary = path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(pkg, 'dist'), readFileSync(path.join(pkg, 'path.txt'), 'utf8').trim());
  } catch {}
  if (binary && existsSync(binary)) return { id: 'app.electron', title: 'Electron', status: 'ok', detail: binary };
  return { id: 'app.electron', title: 'Electron', status: 'warning', detail: 'the Electron binary is not downloaded (npm ci skips it)', fix: 'npm start downloads it once (or: node scripts/install-electron.mjs)' };
}

/** Loads the module for real (better-sqlite3 also opens a database): an ABI mismatch shows only then. */
function nativeCheck(name: 'better-sqlite3' | 'node-pty', feature: string): DoctorCheck {
  const id = `native.${name}`;
  try {
    const require = createRequire(path.join(appRoot(), 'package.json'));
    const mod: unknown = require(name);
    if (name === 'better-sqlite3') {
      const Database = mod as new (file: string) => { prepare(sql: string): { get(): unknown }; close(): void };
      const db = new Database(':memory:');
      db.prepare('select 1').get();
      db.close();
    }
    const runtime = process.versions.electron ? `Electron ${process.versions.electron}` : `Node ${process.versions.node}`;
    return { id, title: name, status: 'ok', detail: `loads in ${runtime} (NODE_MODULE_VERSION ${process.versions.modules})` };
  } catch (err) {
    const problem = nativeLoadProblem(err, name, feature);
    return {
      id,
      title: name,
      status: name === 'better-sqlite3' ? 'error' : 'warning',
      detail: problem ?? `cannot load: ${(err as Error).message.split('\n')[0]}`,
      fix: `npm rebuild ${name} (with the Node that runs Gatehouse), or npm ci`,
    };
  }
}

function chromiumCheck(env: NodeJS.ProcessEnv): DoctorCheck | undefined {
  // Only a checkout runs the end-to-end tests; an installed app has no playwright.config.ts.
  if (!existsSync(path.join(appRoot(), 'playwright.config.ts'))) return undefined;
  const found = chromiumPath(env);
  if (found) return { id: 'tests.chromium', title: 'Chromium (for npm test)', status: 'ok', detail: found };
  return {
    id: 'tests.chromium',
    title: 'Chromium (for npm test)',
    status: 'warning',
    detail: `${env.GATEHOUSE_CHROMIUM ? `not found at ${env.GATEHOUSE_CHROMIUM} (GATEHOUSE_CHROMIUM)` : 'no chromium on PATH'}: the end-to-end tests cannot run`,
    fix: installCommand(['chromium'], detectOs(env)) ?? 'install Chromium, or point GATEHOUSE_CHROMIUM at it',
  };
}

function dataDirCheck(dataDir: string): DoctorCheck {
  const id = 'data.dir';
  const title = 'data directory';
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.W_OK);
    const probe = path.join(dataDir, `.doctor-${process.pid}`);
    writeFileSync(probe, 'ok');
    rmSync(probe);
  } catch (err) {
    return { id, title, status: 'error', detail: `${dataDir} is not writable: ${(err as Error).message}`, fix: 'fix its owner and mode (chmod 700), or point GATEHOUSE_DATA_DIR elsewhere' };
  }
  const fs = statfsSync(dataDir);
  const free = fs.bavail * fs.bsize;
  const detail = `${dataDir}, ${(free / MiB / 1024).toFixed(1)} GiB free`;
  if (free < NO_SPACE) return { id, title, status: 'error', detail, fix: 'free some space: SQLite fails its writes when the disk is full, and the audit trail with them' };
  if (free < LOW_SPACE) return { id, title, status: 'warning', detail, fix: 'free some space, or lower GATEHOUSE_AUDIT_MAX_MESSAGES' };
  return { id, title, status: 'ok', detail };
}

export function appChecks(opts: { dataDir: string; env: NodeJS.ProcessEnv; secretStore?: () => SecretStore }): DoctorCheck[] {
  const checks = [
    secretStoreCheck(opts.dataDir, opts.env, opts.secretStore),
    electronCheck(),
    nativeCheck('better-sqlite3', 'the audit store is off'),
    nativeCheck('node-pty', 'terminals are unavailable'),
    chromiumCheck(opts.env),
    dataDirCheck(opts.dataDir),
  ];
  return checks.filter((c): c is DoctorCheck => c !== undefined);
}
