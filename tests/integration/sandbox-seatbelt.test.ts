// The containment tests of sandbox-server.test.ts and sandbox-landlock.test.ts, against the real
// `sandbox-exec` on macOS (the `seatbelt` kind): a canary in $HOME unreadable, writes outside the
// grants refused, the data directory unreadable, no IP socket under network none, only the
// granted port under loopback. Runs only where process.platform is darwin; written on Linux and
// never run there (docs/sandbox.md "Sandbox kinds", macOS): Seatbelt answers a denied file access
// with EPERM, a denied connect with EPERM or EACCES, so each expectation accepts those.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import { forgetSandboxAvailability } from '../../main/sandbox/availability';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, serverFixture } from '../support/supervisor';

const DARWIN = process.platform === 'darwin';
const DENIED = /^ERR (EPERM|EACCES)/;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  forgetSandboxAvailability();
});

function world(): { dir: string; home: string; host: Host; dataDir: string } {
  const tmp = tempDir();
  // /var/tmp is /private/var/tmp on macOS; the profile's rules are written for real paths.
  const home = realpathSync(mkdtempSync('/var/tmp/gatehouse-home-'));
  cleanups.push(tmp.cleanup, () => rmSync(home, { recursive: true, force: true }));
  const dataDir = path.join(realpathSync(tmp.dir), 'data');
  const host = new Host({ dataDir, env: { ...process.env, HOME: home }, stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(() => host.shutdown());
  return { dir: realpathSync(tmp.dir), home, host, dataDir };
}

async function launchProbe(w: { dir: string; host: Host }, sandbox: unknown): Promise<Launch> {
  const server: Record<string, unknown> = { command: process.execPath, args: [serverFixture('probe-server.mjs')], restart: { max_restarts: 0 } };
  if (sandbox !== undefined) server.sandbox = sandbox;
  const launch = await w.host.launch(writeProfile(w.dir, profileYaml('sbx', { probe: server })));
  const status = launch.supervisor.get('probe')!.status();
  expect(status.state, status.reason).toBe('ready');
  expect(status.sandbox).toMatchObject({ kind: 'seatbelt' });
  return launch;
}

async function run(launch: Launch, code: string): Promise<string> {
  const res = await launch.supervisor.get('probe')!.client!.request({ method: 'tools/call', params: { name: 'run', arguments: { code } } }, CallToolResultSchema);
  return (res.content[0] as { text: string }).text;
}

const connectCode = (port: number) => `return await new Promise((resolve) => {
  const s = net.connect(${port}, '127.0.0.1');
  s.setTimeout(3000, () => { s.destroy(); resolve('timeout'); });
  s.on('data', (d) => { resolve('data ' + d); s.destroy(); });
  s.on('error', (e) => resolve('error ' + e.code));
})`;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

describe.skipIf(!DARWIN)('a sandboxed stdio server under sandbox-exec (macOS only)', () => {
  it('cannot read a canary in $HOME, its dotfiles or the data directory', async () => {
    const w = world();
    writeFileSync(path.join(w.home, 'canary.txt'), 'CANARY-HOME');
    mkdirSync(path.join(w.home, '.ssh'));
    writeFileSync(path.join(w.home, '.ssh', 'id_ed25519'), 'CANARY-SSH');
    const launch = await launchProbe(w, undefined);
    expect(readFileSync(path.join(w.home, 'canary.txt'), 'utf8')).toBe('CANARY-HOME');
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, 'canary.txt'))}, 'utf8')`)).toMatch(DENIED);
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, '.ssh', 'id_ed25519'))}, 'utf8')`)).toMatch(DENIED);
    expect(readdirSync(w.dataDir).length).toBeGreaterThan(0);
    expect(await run(launch, `return fs.readdirSync(${JSON.stringify(w.dataDir)})`)).toMatch(DENIED);
  });

  it('writes the workspace and its grants, nothing else', async () => {
    const w = world();
    const granted = path.join(w.dir, 'granted');
    const outside = realpathSync(mkdtempSync('/var/tmp/gatehouse-outside-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const launch = await launchProbe(w, { write: [granted] });
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(w.dir, 'ws', 'in.txt'))}, 'ok'); return 'wrote'`)).toBe('"wrote"');
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(granted, 'g.txt'))}, 'ok'); return 'wrote'`)).toBe('"wrote"');
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(outside, 'x.txt'))}, 'no'); return 'wrote'`)).toMatch(DENIED);
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(w.dir, 'test.yaml'))}, 'servers: {}'); return 'wrote'`)).toMatch(DENIED);
    expect(existsSync(path.join(outside, 'x.txt'))).toBe(false);
  });

  it('network none reaches nothing; loopback only its granted port', async () => {
    const w = world();
    const granted = net.createServer((s) => s.end('GRANTED\n'));
    const other = net.createServer((s) => s.end('OTHER\n'));
    const grantedPort = await listen(granted);
    const otherPort = await listen(other);
    cleanups.push(() => void granted.close(), () => void other.close());
    const none = await launchProbe(w, { network: 'none' });
    expect(await run(none, connectCode(grantedPort))).toMatch(/^"error (EPERM|EACCES)"/);
    await w.host.shutdown();
    const w2 = world();
    const loop = await launchProbe(w2, { network: 'loopback', host_ports: [grantedPort] });
    expect(await run(loop, connectCode(grantedPort))).toBe('"data GRANTED\\n"');
    expect(await run(loop, connectCode(otherPort))).toMatch(/^"error (EPERM|EACCES)"/);
  });
});
