// Starting an HTTP fixture server that prints {"url": "..."} as its first stdout line (the
// conformance fixtures, old era and new): spawned on this node, killed by `stop`.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './supervisor';

export interface FixtureServer {
  url: string;
  child: ChildProcess;
  stop(): void;
}

/** `file` relative to the repository root, e.g. `tests/fixtures/conformance-next/server.mjs`. */
export async function startFixtureUrl(file: string, args: string[] = []): Promise<FixtureServer> {
  const child = spawn(process.execPath, [path.join(repoRoot, file), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before listening: ${stderr}`)));
  });
  return { url, child, stop: () => void child.kill('SIGTERM') };
}

/** The new-era (SDK v2) conformance fixture. */
export const NEW_ERA_FIXTURE = 'tests/fixtures/conformance-next/server.mjs';
