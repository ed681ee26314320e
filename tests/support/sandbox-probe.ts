// The probe server (tests/fixtures/servers/probe-server.mjs) launched from a profile by a real
// Host: a test sends JavaScript, the server runs it inside its sandbox and answers with the result.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import { tempDir, writeProfile } from './temp';
import { profileYaml, serverFixture } from './supervisor';

export interface ProbeWorld {
  dir: string;
  home: string;
  host: Host;
  dataDir: string;
}

/** A temp dir for the profile and a fake $HOME outside /tmp (whose privacy would hide it anyway). */
export function probeWorld(cleanups: Array<() => Promise<void> | void>, env: Record<string, string> = {}): ProbeWorld {
  const tmp = tempDir();
  const home = mkdtempSync('/var/tmp/gatehouse-home-');
  cleanups.push(tmp.cleanup, () => rmSync(home, { recursive: true, force: true }));
  const dataDir = path.join(tmp.dir, 'data');
  const host = new Host({ dataDir, env: { ...process.env, HOME: home, ...env }, stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(() => host.shutdown());
  return { dir: tmp.dir, home, host, dataDir };
}

export async function launchProbe(w: ProbeWorld, sandbox: unknown, extraArgs: string[] = []): Promise<Launch> {
  const server: Record<string, unknown> = { command: process.execPath, args: [serverFixture('probe-server.mjs'), ...extraArgs], restart: { max_restarts: 0 } };
  if (sandbox !== undefined) server.sandbox = sandbox;
  const launch = await w.host.launch(writeProfile(w.dir, profileYaml('sbx', { probe: server })));
  const status = launch.supervisor.get('probe')!.status();
  if (status.state !== 'ready') throw new Error(`probe: expected ready, found ${status.state}: ${status.reason}`);
  return launch;
}

/** Runs `code` (an async function body with fs, net, http, child_process, os) inside the probe. */
export async function probeRun(launch: Launch, code: string): Promise<string> {
  const res = await launch.supervisor.get('probe')!.client!.request({ method: 'tools/call', params: { name: 'run', arguments: { code } } }, CallToolResultSchema);
  return (res.content[0] as { text: string }).text;
}

/** Probe code: connect to a Unix socket path, resolve with `data …` or `error CODE`. */
export function connectUnix(socketPath: string): string {
  return `return await new Promise((resolve) => {
    const s = net.connect(${JSON.stringify(socketPath)});
    s.setTimeout(10000, () => { s.destroy(); resolve('timeout'); });
    s.on('data', (d) => { resolve('data ' + String(d).trim()); s.destroy(); });
    s.on('error', (e) => resolve('error ' + e.code));
  })`;
}

/** A real listening Unix socket on the host that greets each connection with `reply`. */
export function listenUnix(socketPath: string, reply: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((s) => s.end(`${reply}\n`));
    server.once('error', reject);
    server.listen(socketPath, () => resolve(server));
  });
}

export function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
