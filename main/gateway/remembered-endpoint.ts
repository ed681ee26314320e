// Connect once, stay connected: a launched profile keeps its gateway port and bearer token across
// launches, so a configuration copied from Connect (URL + GATEHOUSE_TOKEN) still works after a
// relaunch (README, "Connect").
//
// The port is remembered in <data dir>/gateway-ports.json, keyed by the profile file's absolute
// path (two profiles never share one). It is not a secret. The token is: it lives in the host's
// secret store (the OS keychain, else the data dir's encrypted file; main/auth/secret-store.ts),
// under `gateway-token:<profile file>`. No sandbox can read either: the data dir is hidden from
// every server and agent (main/sandbox/hidden-paths.ts), and the keychain is not a file they see.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SecretStore } from '../auth/secret-store';
import { generateToken } from './http-endpoint';

const PORTS_FILE = 'gateway-ports.json';
const TOKEN_PREFIX = 'gateway-token:';

function readPorts(dataDir: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path.join(dataDir, PORTS_FILE), 'utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => Number.isInteger(e[1]) && e[1] > 0 && e[1] < 65536));
  } catch {
    // Missing or damaged: a damaged file costs one new port, never a failed launch.
    return {};
  }
}

/** The port this profile's gateway listened on last time, if any. */
export function rememberedPort(dataDir: string, profileFile: string): number | undefined {
  return readPorts(dataDir)[path.resolve(profileFile)];
}

/** Keep the port for the next launch (written whole, then renamed: a crash never leaves half a file). */
export function rememberPort(dataDir: string, profileFile: string, port: number): void {
  const ports = readPorts(dataDir);
  const key = path.resolve(profileFile);
  if (ports[key] === port) return;
  ports[key] = port;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, PORTS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(ports, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** This profile's gateway token: the one kept in the secret store, or a new one kept there now. */
export function rememberedToken(store: SecretStore, profileFile: string): string {
  const key = `${TOKEN_PREFIX}${path.resolve(profileFile)}`;
  const kept = store.get(key);
  if (kept) return kept;
  const token = generateToken();
  store.set(key, token);
  return token;
}

/** Whether listening failed because the port is taken (so another one is worth trying). */
export function portTaken(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}
