// What a `network: none` server can still reach without an IP socket: Unix sockets on paths it can
// see. Each test puts a real listening socket where daemons put theirs (/run, /var/run, a socket
// folder under /var), checks the host reaches it, then tries from inside the probe server
// (tests/fixtures/servers/probe-server.mjs) in real bwrap. And the account's own home from the
// password database, when $HOME points elsewhere. docs/sandbox.md "What strict means".
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { forgetSandboxAvailability } from '../../main/sandbox/availability';
import { closeServer, connectUnix, launchProbe, listenUnix, probeRun, probeWorld } from '../support/sandbox-probe';
import { repoRoot } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  forgetSandboxAvailability();
});

const AS_ROOT = process.getuid?.() === 0;

function hostConnect(socketPath: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    s.on('data', (d) => {
      resolve(`data ${String(d).trim()}`);
      s.destroy();
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
  });
}

/** A folder of our own (created, and removed after) holding a real listening socket. */
async function socketIn(dir: string, name: string, reply: string): Promise<{ socket: string; server: () => net.Server; restart: () => Promise<void> }> {
  const created = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  const socket = path.join(dir, name);
  let server = await listenUnix(socket, reply);
  cleanups.push(async () => {
    await closeServer(server);
    rmSync(socket, { force: true });
    if (created) rmdirSync(dir);
  });
  return {
    socket,
    server: () => server,
    // A daemon restarting: its socket file unlinked and bound anew at the same path.
    restart: async () => {
      await closeServer(server);
      rmSync(socket, { force: true });
      server = await listenUnix(socket, reply);
    },
  };
}

describe.skipIf(!AS_ROOT)('a network-none server and the host\'s Unix sockets (needs root to create them under /run and /var/lib)', () => {
  it('cannot connect to a socket under /run or /var/run, even after its daemon restarts; a grant gives exactly that folder back', async () => {
    const name = `gatehouse-test-${randomBytes(6).toString('hex')}`;
    const { socket, restart } = await socketIn(path.join('/run', name), 'sock', 'HOST-RUN-SOCKET');
    const viaVarRun = path.join('/var/run', name, 'sock');
    // Unsandboxed, the socket answers on both paths (/var/run → /run here).
    expect(await hostConnect(socket)).toBe('data HOST-RUN-SOCKET');
    if (statSync('/var/run').isDirectory() && existsSync(viaVarRun)) expect(await hostConnect(viaVarRun)).toBe('data HOST-RUN-SOCKET');

    const w = probeWorld(cleanups);
    const launch = await launchProbe(w, { network: 'none' });
    expect(await probeRun(launch, connectUnix(socket))).toBe('"error ENOENT"');
    expect(await probeRun(launch, connectUnix(viaVarRun))).toBe('"error ENOENT"');
    // /run is an empty folder inside: nothing of the host's daemons is named there.
    expect(await probeRun(launch, `return fs.readdirSync('/run')`)).toBe('[]');
    await restart();
    expect(await hostConnect(socket)).toBe('data HOST-RUN-SOCKET');
    expect(await probeRun(launch, connectUnix(socket))).toBe('"error ENOENT"');

    // The way a server that needs one (a database's socket folder) gets it: a grant of the folder.
    const granted = await launchProbe(probeWorld(cleanups), { network: 'none', read: [path.dirname(socket)] });
    expect(await probeRun(granted, connectUnix(socket))).toBe('"data HOST-RUN-SOCKET"');
    expect(await probeRun(granted, `return fs.readdirSync('/run')`)).toBe(JSON.stringify([name]));
  }, 60_000);

  it('cannot connect to a socket in a hidden socket folder under /var (/var/lib/mysql/mysql.sock), even after a restart', async (ctx) => {
    if (existsSync('/var/lib/mysql/mysql.sock')) ctx.skip(); // a real MySQL here: not ours to replace
    const { socket, restart } = await socketIn('/var/lib/mysql', 'mysql.sock', 'HOST-MYSQL');
    expect(await hostConnect(socket)).toBe('data HOST-MYSQL');
    const launch = await launchProbe(probeWorld(cleanups), { network: 'none' });
    expect(await probeRun(launch, connectUnix(socket))).toBe('"error ENOENT"');
    expect(await probeRun(launch, `return fs.readdirSync('/var/lib/mysql')`)).toBe('[]');
    // Hiding the socket file alone would not survive this (the bind mount is detached when the
    // host unlinks it); the folder's tmpfs does.
    await restart();
    expect(await probeRun(launch, connectUnix(socket))).toBe('"error ENOENT"');
  }, 60_000);
});

describe('the account\'s home from the password database, with $HOME elsewhere', () => {
  const account = os.userInfo().homedir;
  const usable = account !== '/' && existsSync(account) && (() => {
    try {
      writeFileSync(path.join(account, `.gatehouse-write-check-${process.pid}`), '');
      rmSync(path.join(account, `.gatehouse-write-check-${process.pid}`));
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!usable)('is not listable, nor its .ssh, and a canary in it is not readable', async () => {
    const tag = randomBytes(6).toString('hex');
    const ssh = path.join(account, '.ssh');
    const sshCreated = !existsSync(ssh);
    if (sshCreated) mkdirSync(ssh, { mode: 0o700 });
    const sshCanary = path.join(ssh, `gatehouse-canary-${tag}`);
    const homeCanary = path.join(account, `gatehouse-canary-${tag}.txt`);
    writeFileSync(sshCanary, 'CANARY-PASSWD-SSH', { mode: 0o600 });
    writeFileSync(homeCanary, 'CANARY-PASSWD-HOME', { mode: 0o600 });
    cleanups.push(() => {
      rmSync(sshCanary, { force: true });
      rmSync(homeCanary, { force: true });
      if (sshCreated) rmdirSync(ssh);
    });
    const w = probeWorld(cleanups);
    expect(path.resolve(w.home)).not.toBe(path.resolve(account));
    const launch = await launchProbe(w, undefined);
    expect(await probeRun(launch, `return fs.readFileSync(${JSON.stringify(homeCanary)}, 'utf8')`)).toMatch(/^ERR ENOENT/);
    expect(await probeRun(launch, `return fs.readFileSync(${JSON.stringify(sshCanary)}, 'utf8')`)).toMatch(/^ERR ENOENT/);
    expect(await probeRun(launch, `return fs.readdirSync(${JSON.stringify(ssh)})`)).toMatch(/^ERR ENOENT/);
    expect(await probeRun(launch, `return fs.readdirSync(${JSON.stringify(account)})`)).toBe('[]');
  }, 60_000);
});

// The network namespace alone (`loopback` has no seccomp filter, and agents never get one): what
// netlink shows and reaches from inside. AF_VSOCK is not here: its guest transports (virtio, Hyper-V,
// VMCI) have no network namespace at all, see docs/sandbox.md "Unix sockets".
const PYTHON = '/usr/bin/python3';
describe.skipIf(!existsSync(PYTHON))('netlink from inside the network namespace (network loopback)', () => {
  it("lists only the sandbox's own interfaces and Unix sockets, and the audit subsystem does not answer", async () => {
    const tag = `gatehouse-nl-${randomBytes(6).toString('hex')}`;
    const abstract = await listenUnix(`\0${tag}`, 'HOST-ABSTRACT');
    const file = path.join('/var/tmp', `${tag}.sock`);
    const named = await listenUnix(file, 'HOST-NAMED');
    cleanups.push(() => closeServer(abstract), async () => {
      await closeServer(named);
      rmSync(file, { force: true });
    });
    const probe = path.join(repoRoot, 'tests', 'fixtures', 'sandbox', 'netlink-probe.py');
    type Seen = { links: string[]; unixSockets: string[]; audit: string };
    // On the host, the same script sees both sockets (what the namespace takes away).
    const host = JSON.parse(execFileSync(PYTHON, [probe], { encoding: 'utf8' })) as Seen;
    expect(host.unixSockets).toEqual(expect.arrayContaining([`@${tag}`, file]));
    expect(host.links.length).toBeGreaterThan(1);

    const launch = await launchProbe(probeWorld(cleanups), { network: 'loopback' });
    const inside = JSON.parse(JSON.parse(await probeRun(launch, `return child_process.execFileSync(${JSON.stringify(PYTHON)}, [${JSON.stringify(probe)}], { encoding: 'utf8' })`)) as string) as Seen;
    expect(inside.links).toEqual(['lo']);
    expect(inside.unixSockets).not.toContain(`@${tag}`);
    expect(inside.unixSockets).not.toContain(file);
    expect(inside.audit).not.toBe('answered');
    expect(await probeRun(launch, `return fs.readFileSync('/proc/net/unix', 'utf8').includes(${JSON.stringify(tag)})`)).toBe('false');
    // The abstract socket is the host namespace's: not reachable by name from inside.
    expect(await probeRun(launch, connectUnix(`\0${tag}`))).toBe('"error ECONNREFUSED"');
  }, 60_000);
});
