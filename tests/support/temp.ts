// Per-test isolation: each test gets its own temp folders, removed afterwards.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'gatehouse-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}

/** Writes a profile YAML (and its workspace folder) into `dir`; returns the profile path. */
export function writeProfile(dir: string, yaml: string, name = 'test.yaml'): string {
  mkdirSync(path.join(dir, 'ws'), { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, yaml);
  return file;
}
