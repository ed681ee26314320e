// Where Gatehouse finds its own files and keeps its state (ARCHITECTURE.md, "Where state lives").
import os from 'node:os';
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The installed package root (the folder with package.json). Works from sources
 * (main/paths.ts under vitest) and from the bundle (out/cli.mjs).
 */
export function appRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'workspace-profiles'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error(`gatehouse: cannot find the package root above ${fileURLToPath(import.meta.url)}`);
}

let versionRead: string | undefined;
/** Gatehouse's own version (package.json), read once; `0.0.0` when it cannot be read. */
export function appVersion(): string {
  if (versionRead === undefined) {
    try {
      versionRead = (JSON.parse(readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
    } catch {
      versionRead = '0.0.0';
    }
  }
  return versionRead;
}

/** One SQLite file and other state per user: GATEHOUSE_DATA_DIR, else $XDG_STATE_HOME/gatehouse. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEHOUSE_DATA_DIR) return path.resolve(env.GATEHOUSE_DATA_DIR);
  const state = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(state, 'gatehouse');
}

/** The user's own profiles: GATEHOUSE_PROFILES_DIR, else $XDG_CONFIG_HOME/gatehouse/profiles. */
export function userProfilesDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEHOUSE_PROFILES_DIR) return path.resolve(env.GATEHOUSE_PROFILES_DIR);
  const config = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(config, 'gatehouse', 'profiles');
}

/** Profiles that ship with Gatehouse (the demo among them). */
export function bundledProfilesDir(): string {
  return path.join(appRoot(), 'workspace-profiles');
}

/** The built-in workspace tools server entry (built by scripts/build.mjs). */
export function toolsServerEntry(): string {
  // In a packaged app the code sits in app.asar, which a plain `node` child cannot read; the
  // tools server is unpacked next to it (electron-builder.yml asarUnpack).
  return path.join(appRoot(), 'out', 'tools-server.mjs').replace(`${path.sep}app.asar${path.sep}`, `${path.sep}app.asar.unpacked${path.sep}`);
}

/** The audit writer thread's entry (built by scripts/build.mjs; main/audit/writer-thread.ts). */
export function auditWriterEntry(): string {
  // A worker thread can load from app.asar (Electron patches fs for it), but better-sqlite3's
  // native binding beside it is unpacked either way; keep the entry with the other workers.
  return path.join(appRoot(), 'out', 'audit-writer.mjs');
}
