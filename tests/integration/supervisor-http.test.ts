// A Streamable HTTP upstream (`url:`) is supervised like a process: ready with its tools, then
// `restarting` when the server goes away, and ready again when it comes back (or `failed`
// after max_restarts). The upstream is the real server-everything in streamableHttp mode.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host } from '../../main/host';
import type { ServerStatus } from '../../main/supervisor/types';
import { tempDir, writeProfile } from '../support/temp';
import { freePort, pidAlive, profileYaml, repoRoot, waitFor } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startEverything(port: number): Promise<ChildProcess> {
  const bin = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const child = spawn(process.execPath, [bin, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await waitFor(() => err.includes(`listening on port ${port}`), { what: `server-everything on ${port} (stderr: ${err})` });
  return child;
}

async function stopEverything(child: ChildProcess): Promise<void> {
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
  expect(pidAlive(child.pid!)).toBe(false);
}

async function launchHttp(port: number, restart: Record<string, number>) {
  const tmp = tempDir();
  const host = new Host({ dataDir: path.join(tmp.dir, 'data'), stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(tmp.cleanup, () => host.shutdown());
  const seen: ServerStatus[] = [];
  host.on('server-status', (_l, s) => seen.push(s));
  const file = writeProfile(tmp.dir, profileYaml('http', { docs: { url: `http://127.0.0.1:${port}/mcp`, restart } }));
  const launch = await host.launch(file);
  return { host, launch, server: launch.supervisor.get('docs')!, seen };
}

describe('Streamable HTTP upstream', () => {
  it('is ready with tools, goes restarting when the server dies and comes back when it returns', async () => {
    const port = await freePort();
    const upstream = await startEverything(port);
    const { server, seen } = await launchHttp(port, { initial_backoff_ms: 200, max_backoff_ms: 1000, max_restarts: 30 });
    expect(server.status()).toMatchObject({ kind: 'http', state: 'ready', run: 1 });
    expect(server.tools().map((t) => t.name)).toContain('echo');
    const res = await server.client!.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: 'over http' } } }, CallToolResultSchema);
    expect(JSON.stringify(res.content)).toContain('over http');

    await stopEverything(upstream);
    await waitFor(() => seen.some((s) => s.state === 'restarting'), { what: 'restarting after the upstream died' });
    expect(server.client).toBeUndefined();

    await startEverything(port);
    await waitFor(() => server.status().state === 'ready', { what: 'ready again' });
    const status = server.status();
    expect(status.run).toBeGreaterThan(1);
    expect(status.restarts).toBeGreaterThan(0);
    expect(server.tools().map((t) => t.name)).toContain('echo');
    const again = await server.client!.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: 'back' } } }, CallToolResultSchema);
    expect(JSON.stringify(again.content)).toContain('back');
  }, 60_000);

  it('goes failed after max_restarts when the server stays away', async () => {
    const port = await freePort();
    const upstream = await startEverything(port);
    const { server, seen } = await launchHttp(port, { initial_backoff_ms: 50, max_backoff_ms: 200, max_restarts: 3 });
    expect(server.status(), JSON.stringify(server.status())).toMatchObject({ state: 'ready' });
    await stopEverything(upstream);
    await waitFor(() => server.status().state === 'failed', { what: 'failed' });
    const status = server.status();
    expect(status.restarts).toBe(3);
    expect(status.reason).toMatch(/cannot reach|connection lost|fetch failed/i);
    expect(seen.filter((s) => s.state === 'restarting').length).toBe(3);
  }, 60_000);
});
