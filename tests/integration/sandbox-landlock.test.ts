// The reduced `landlock` sandbox kind (docs/sandbox.md "Sandbox kinds"), where bubblewrap cannot
// create namespaces. bwrap is made to fail the way Ubuntu >= 23.10's AppArmor makes it fail
// (tests/fixtures/sandbox/bwrap-apparmor-denied.sh), so Gatehouse selects landlock; then a hostile
// server (tests/fixtures/servers/probe-server.mjs runs whatever the test sends) tries each
// boundary from inside. Real launcher (native/landlock), real kernel Landlock and seccomp, real
// processes and sockets.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { forgetSandboxAvailability, landlockLauncherPath, sandboxProbes } from '../../main/sandbox/availability';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';
import { buildTestBundle } from '../support/build';
import { profileYaml, repoRoot, serverFixture, waitFor, pidAlive } from '../support/supervisor';
import { launchProbe, probeRun, probeWorld, type ProbeWorld } from '../support/sandbox-probe';

const DENIED_BWRAP = path.join(repoRoot, 'tests', 'fixtures', 'sandbox', 'bwrap-apparmor-denied.sh');
const LAUNCHER = landlockLauncherPath(process.env);
const ABI = existsSync(LAUNCHER) ? Number(spawnSync(LAUNCHER, ['--abi'], { encoding: 'utf8' }).stdout.trim()) || 0 : 0;
// Without a built launcher or a Landlock kernel there is nothing to test here; the suite says why.
const skipReason = !existsSync(LAUNCHER) ? `native/landlock not built (${LAUNCHER}); run node scripts/build-native.mjs` : ABI < 1 ? 'this kernel has no Landlock' : '';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  forgetSandboxAvailability();
});

type World = ProbeWorld;

/** sandbox-server.test.ts's world (tests/support/sandbox-probe.ts), with bwrap refused as AppArmor refuses it. */
function world(env: Record<string, string> = {}): World {
  return probeWorld(cleanups, { GATEHOUSE_BWRAP: DENIED_BWRAP, ...env });
}

const run = probeRun;

const connectCode = (host: string, port: number) => `return await new Promise((resolve) => {
  const s = net.connect(${port}, ${JSON.stringify(host)});
  s.setTimeout(3000, () => { s.destroy(); resolve('timeout'); });
  s.on('data', (d) => { resolve('data ' + d); s.destroy(); });
  s.on('error', (e) => resolve('error ' + e.code));
})`;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

describe.skipIf(skipReason !== '')(`the landlock sandbox where bwrap is refused${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('selects landlock, and says both probes (what gatehouse doctor reads)', () => {
    const probes = sandboxProbes({ ...process.env, GATEHOUSE_BWRAP: DENIED_BWRAP });
    expect(probes.bubblewrap).toMatchObject({ ok: false, reason: expect.stringMatching(/setting up uid map: Permission denied/) });
    expect(probes.landlock).toMatchObject({ ok: true, abi: ABI });
    expect(probes.selected).toMatchObject({ ok: true, kind: 'landlock', abi: ABI });
  });

  it('runs the demo profile: 3/3 servers ready, each reported as landlock with what it could not enforce', async () => {
    const w = world();
    const launch = await w.host.launch(path.join(repoRoot, 'workspace-profiles', 'demo.yaml'));
    const statuses = launch.statuses();
    expect(statuses.map((s) => s.id).sort()).toEqual(['files', 'memory', 'workspace']);
    for (const s of statuses) {
      expect(s.state, `${s.id}: ${s.reason} ${s.stderrTail.join('\n')}`).toBe('ready');
      expect(s.sandbox).toMatchObject({ mode: 'strict', kind: 'landlock' });
      expect(s.sandbox!.unenforced!.join('\n')).toMatch(/^landlock: reduced — no PID namespace/);
      // The start line in the server's log (and so in the audit's stderr lines).
      expect(launch.supervisor.get(s.id)!.stderrTail().some((l) => /\[gatehouse\] sandbox: landlock \(reduced\), not enforced: /.test(l))).toBe(true);
    }
    // The demo's tools work confined: the filesystem server lists the workspace, memory writes its graph.
    const memory = launch.supervisor.get('memory')!;
    await memory.client!.request(
      { method: 'tools/call', params: { name: 'create_entities', arguments: { entities: [{ name: 'landlock-test', entityType: 'test', observations: ['written from inside'] }] } } },
      CallToolResultSchema,
    );
    expect(readFileSync(path.join(w.dataDir, 'memory', 'demo-memory.jsonl'), 'utf8')).toContain('written from inside');
    const files = launch.supervisor.get('files')!;
    const listed = await files.client!.request({ method: 'tools/call', params: { name: 'list_allowed_directories', arguments: {} } }, CallToolResultSchema);
    expect(listed.isError).toBeFalsy();
  }, 60_000);

  it('cannot read a canary in $HOME, its dotfiles or the data directory', async () => {
    const w = world();
    writeFileSync(path.join(w.home, 'canary.txt'), 'CANARY-HOME');
    mkdirSync(path.join(w.home, '.ssh'));
    writeFileSync(path.join(w.home, '.ssh', 'id_ed25519'), 'CANARY-SSH');
    const launch = await launchProbe(w, undefined);
    expect(readFileSync(path.join(w.home, 'canary.txt'), 'utf8')).toBe('CANARY-HOME');
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, 'canary.txt'))}, 'utf8')`)).toMatch(/^ERR EACCES/);
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, '.ssh', 'id_ed25519'))}, 'utf8')`)).toMatch(/^ERR EACCES/);
    expect(await run(launch, `return fs.readdirSync(${JSON.stringify(w.home)})`)).toMatch(/^ERR EACCES/);
    expect(readdirSync(w.dataDir).length).toBeGreaterThan(0);
    expect(await run(launch, `return fs.readdirSync(${JSON.stringify(w.dataDir)})`)).toMatch(/^ERR EACCES/);
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.dataDir, readdirSync(w.dataDir).find((n) => n.endsWith('.sqlite') || n.endsWith('.db')) ?? 'audit.sqlite'))}).length`)).toMatch(/^ERR (EACCES|ENOENT)/);
    // Other processes are visible (no PID namespace) but not their environment or descriptors.
    expect(await run(launch, `return fs.readFileSync('/proc/${process.pid}/environ', 'utf8')`)).toMatch(/^ERR EACCES/);
    expect(await run(launch, `return fs.readlinkSync('/proc/${process.pid}/fd/2')`)).toMatch(/^ERR EACCES/);
  });

  it('writes the workspace, its grants and its TMPDIR, nothing else', async () => {
    const w = world();
    const granted = path.join(w.dir, 'granted');
    const outside = mkdtempSync('/var/tmp/gatehouse-outside-');
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const launch = await launchProbe(w, { write: [granted] });
    const ws = path.join(w.dir, 'ws');
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(ws, 'in.txt'))}, 'ok'); return 'wrote'`)).toBe('"wrote"');
    expect(readFileSync(path.join(ws, 'in.txt'), 'utf8')).toBe('ok');
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(granted, 'g.txt'))}, 'ok'); return 'wrote'`)).toBe('"wrote"');
    expect(readFileSync(path.join(granted, 'g.txt'), 'utf8')).toBe('ok');
    expect(await run(launch, `fs.writeFileSync(process.env.TMPDIR + '/t.txt', 'ok'); return 'wrote'`)).toBe('"wrote"');
    // Outside: a visible folder, the system, the host's /tmp (the profile's own folder is there).
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(outside, 'x.txt'))}, 'no'); return 'wrote'`)).toMatch(/^ERR EACCES/);
    expect(await run(launch, `fs.writeFileSync('/usr/gatehouse-escape', 'no'); return 'wrote'`)).toMatch(/^ERR EACCES/);
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(w.dir, 'profile-dir.txt'))}, 'tmp'); return 'wrote'`)).toMatch(/^ERR EACCES/);
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(w.dir, 'test.yaml'))}, 'servers: {}'); return 'wrote'`)).toMatch(/^ERR EACCES/);
    expect(existsSync(path.join(outside, 'x.txt'))).toBe(false);
    expect(existsSync(path.join(w.dir, 'profile-dir.txt'))).toBe(false);
  });

  it('network none: no IP socket at all; Unix sockets in its TMPDIR still work', async () => {
    const w = world();
    const listener = net.createServer((s) => s.end('HOST-LOOPBACK\n'));
    const port = await listen(listener);
    cleanups.push(() => void listener.close());
    const launch = await launchProbe(w, { network: 'none' });
    // Unsandboxed, the same connect works.
    expect(await new Promise((r) => net.connect(port, '127.0.0.1').on('data', (d) => r(String(d))))).toBe('HOST-LOOPBACK\n');
    expect(await run(launch, connectCode('127.0.0.1', port))).toBe('"error EACCES"');
    expect(await run(launch, connectCode('10.255.255.1', 80))).toBe('"error EACCES"');
    expect(await run(launch, connectCode('::1', port))).toBe('"error EACCES"');
    // UDP too (Landlock has TCP rules only: this one is the seccomp filter's).
    const udp = `const dgram = await import('node:dgram'); return await new Promise((r) => { try { const s = dgram.createSocket('udp4'); s.on('error', (e) => r('error ' + e.code)); s.send('x', 53, '10.255.255.1', (e) => { s.close(); r(e ? 'error ' + e.code : 'sent'); }); } catch (e) { r('error ' + e.code); } })`;
    expect(await run(launch, udp)).toBe('"error EACCES"');
    const listenOn = (target: string) => `return await new Promise((r) => { const s = net.createServer(); s.on('error', (e) => r('error ' + e.code)); s.listen(${target}, () => { s.close(); r('listening'); }); })`;
    expect(await run(launch, listenOn(`0, '127.0.0.1'`))).toBe('"error EACCES"');
    expect(await run(launch, listenOn(`process.env.TMPDIR + '/own.sock'`))).toBe('"listening"');
  });

  it('network loopback: connects to its host port and to no other port', async () => {
    const w = world();
    const granted = net.createServer((s) => s.end('GRANTED\n'));
    const other = net.createServer((s) => s.end('OTHER\n'));
    const grantedPort = await listen(granted);
    const otherPort = await listen(other);
    cleanups.push(() => void granted.close(), () => void other.close());
    const launch = await launchProbe(w, { network: 'loopback', host_ports: [grantedPort] });
    expect(await run(launch, connectCode('127.0.0.1', grantedPort))).toBe('"data GRANTED\\n"');
    expect(await run(launch, connectCode('127.0.0.1', otherPort))).toBe('"error EACCES"');
    expect(launch.supervisor.get('probe')!.status().sandbox!.unenforced!.join('\n')).toMatch(/TCP connect is limited to port \d+ on any address/);
  });

  it('network allow: reaches the allowed host through the proxy, and nothing around it', async () => {
    const w = world();
    const web = http.createServer((req, res) => res.end(`HELLO ${req.headers.host}`));
    const port = await listen(web);
    cleanups.push(() => void web.close());
    const launch = await launchProbe(w, { network: { allow: [`localhost:${port}`] } });
    const viaProxy = (target: string) => `const proxy = new URL(process.env.HTTP_PROXY);
      return await new Promise((resolve) => {
        const req = http.request({ host: proxy.hostname, port: proxy.port, path: ${JSON.stringify(target)}, headers: { host: new URL(${JSON.stringify(target)}).host } }, (res) => {
          let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => resolve(res.statusCode + ' ' + body));
        });
        req.on('error', (e) => resolve('error ' + e.code));
        req.end();
      })`;
    expect(await run(launch, viaProxy(`http://localhost:${port}/`))).toBe(`"200 HELLO localhost:${port}"`);
    expect(await run(launch, viaProxy(`http://127.0.0.1:${port}/`))).toMatch(/^"403 gatehouse sandbox proxy: 127\.0\.0\.1:\d+ is not in the sandbox's network allow list/);
    // Around the proxy: the same server's port directly is refused by Landlock's TCP rules.
    expect(await run(launch, connectCode('127.0.0.1', port))).toBe('"error EACCES"');
    expect(launch.supervisor.get('probe')!.status().sandbox!.unenforced!.join('\n')).toMatch(/the filtering proxy listens on the host's 127\.0\.0\.1:\d+/);
  });

  it('the built-in tools server: http_request reaches its allow_hosts through the proxy', async () => {
    const w = world();
    const web = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`TOOLS ${req.headers.host}`));
    const port = await listen(web);
    cleanups.push(() => void web.close());
    const file = writeProfile(w.dir, profileYaml('ll-tools', { workspace: { builtin: 'workspace-tools', options: { http: { allow_hosts: [`localhost:${port}`] } } } }));
    const server = (await w.host.launch(file)).supervisor.get('workspace')!;
    expect(server.status().state, server.status().reason).toBe('ready');
    expect(server.status().sandbox).toMatchObject({ kind: 'landlock', network: 'allow' });
    const res = await server.client!.request({ method: 'tools/call', params: { name: 'net.http_request', arguments: { url: `http://localhost:${port}/` } } }, CallToolResultSchema);
    expect(res.structuredContent).toMatchObject({ status: 200, body: `TOOLS localhost:${port}` });
  });

  it.skipIf(ABI < 6)('cannot signal the host or reach its abstract Unix sockets (Landlock ABI 6 scoping)', async () => {
    const w = world();
    const name = `gatehouse-test-${randomUUID()}`;
    const abstract = net.createServer((s) => s.end('ABSTRACT\n'));
    await new Promise<void>((r) => abstract.listen(`\0${name}`, () => r()));
    cleanups.push(() => void abstract.close());
    const victim = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    cleanups.push(() => void victim.kill('SIGKILL'));
    const launch = await launchProbe(w, undefined);
    expect(await run(launch, `try { process.kill(${victim.pid}, 'SIGTERM'); return 'sent'; } catch (e) { return e.code; }`)).toBe('"EPERM"');
    expect(await run(launch, `try { process.kill(${process.pid}, 0); return 'sent'; } catch (e) { return e.code; }`)).toBe('"EPERM"');
    expect(pidAlive(victim.pid!)).toBe(true);
    expect(await run(launch, `return await new Promise((r) => net.connect(${JSON.stringify(`\0${name}`)}).on('data', (d) => r('data ' + d)).on('error', (e) => r('error ' + e.code)))`)).toBe('"error EPERM"');
    // Its own children are in its domain: those it may signal.
    expect(await run(launch, `const c = child_process.spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)']); await new Promise((r) => c.on('spawn', r)); process.kill(c.pid, 'SIGKILL'); return 'killed'`)).toBe('"killed"');
  });

  it("cannot open the person's terminal by its path, so cannot push keystrokes into it (TIOCSTI)", async () => {
    // A terminal with a real process on it (never node-pty's open(): its destroy() signals pid -1,
    // which is every process the caller may signal).
    const { spawn: ptySpawn } = await import('node-pty');
    const term = ptySpawn('/bin/sleep', ['600'], {});
    cleanups.push(() => {
      if (term.pid > 0) term.kill('SIGKILL');
    });
    const pts = (term as unknown as { ptsName: string }).ptsName;
    expect(pts).toMatch(/^\/dev\/pts\/\d+$/);
    const tiocsti = (file: string) => `return child_process.spawnSync('/usr/bin/perl', ['-e', 'open(my $t, "<", $ARGV[0]) or die "open: $!\\\\n"; ioctl($t, 0x5412, my $c = "x") or die "ioctl: $!\\\\n"; print "pushed"', ${JSON.stringify(file)}], { encoding: 'utf8' }).stderr.trim() || 'pushed'`;
    // Unsandboxed, this pushes a key into the terminal (dev.tty.legacy_tiocsti=1 here).
    const outside = spawnSync('/usr/bin/perl', ['-e', 'open(my $t, "<", $ARGV[0]) or die "open: $!\n"; ioctl($t, 0x5412, my $c = "x") or die "ioctl: $!\n"; print "pushed"', pts], { encoding: 'utf8' });
    const w = world();
    const launch = await launchProbe(w, undefined);
    expect(await run(launch, tiocsti(pts))).toBe('"open: Permission denied"');
    // No controlling terminal: its own session (setsid) has none.
    expect(await run(launch, tiocsti('/dev/tty'))).toBe('"open: No such device or address"');
    expect(outside.stdout, outside.stderr).toBe('pushed');
  });

  it('a pty, which cannot pass descriptors, still gets the seccomp filter (the launch prelude opens it as fd 3)', async () => {
    const { spawn: ptySpawn } = await import('node-pty');
    const { spawnSandboxed } = await import('../../main/sandbox/spawn-sandboxed');
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const ws = path.join(tmp.dir, 'ws');
    mkdirSync(ws);
    const code = "const m = require('fs').readFileSync('/proc/self/status', 'utf8').match(/Seccomp:\\s*(\\d)/); const u = require('dgram').createSocket('udp4'); u.on('error', (e) => console.log('SECCOMP ' + m[1] + ' UDP ' + e.code)); u.send('x', 53, '10.255.255.1', (e) => console.log('SECCOMP ' + m[1] + ' UDP ' + (e ? e.code : 'sent')));";
    const boxed = spawnSandboxed({ mode: 'strict', write: [], read: [], network: { kind: 'none' }, hostPorts: [] }, {
      command: process.execPath,
      args: ['-e', code],
      cwd: ws,
      env: { PATH: '/usr/bin:/bin' },
      workspace: ws,
      dataDir: path.join(tmp.dir, 'data'),
      hostEnv: { ...process.env, GATEHOUSE_BWRAP: DENIED_BWRAP },
      searchPath: '/usr/bin:/bin',
      canPassFds: false,
    });
    cleanups.push(() => boxed.dispose());
    expect(boxed.kind).toBe('landlock');
    expect(boxed.extraFds).toEqual([]);
    const p = ptySpawn(boxed.command, boxed.args, { cwd: ws, env: boxed.env });
    let out = '';
    p.onData((d) => (out += d));
    await new Promise<void>((r) => p.onExit(() => r()));
    expect(out).toMatch(/SECCOMP 2 UDP EACCES/);
  });

  it(
    'refuses TIOCSTI on a terminal it inherited (the seccomp filter, main/sandbox/seccomp.ts)',
    async () => {
      const { spawn: ptySpawn } = await import('node-pty');
      const { spawnSandboxed } = await import('../../main/sandbox/spawn-sandboxed');
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      mkdirSync(path.join(tmp.dir, 'ws'));
      const boxed = spawnSandboxed({ mode: 'strict', write: [], read: [], network: { kind: 'none' }, hostPorts: [] }, {
        command: '/usr/bin/perl',
        args: ['-e', 'ioctl(STDIN, 0x5412, my $c = "x") or die "ioctl: $!\\n"; print "pushed\\n"'],
        cwd: path.join(tmp.dir, 'ws'),
        env: { PATH: '/usr/bin:/bin' },
        workspace: path.join(tmp.dir, 'ws'),
        dataDir: path.join(tmp.dir, 'data'),
        hostEnv: { ...process.env, GATEHOUSE_BWRAP: DENIED_BWRAP },
        searchPath: '/usr/bin:/bin',
        canPassFds: false,
      });
      cleanups.push(() => boxed.dispose());
      const p = ptySpawn(boxed.command, boxed.args, { cwd: path.join(tmp.dir, 'ws'), env: boxed.env });
      let out = '';
      p.onData((d) => (out += d));
      await new Promise<void>((r) => p.onExit(() => r()));
      expect(out).toMatch(/ioctl: Operation not permitted|ioctl: Permission denied/);
    },
  );

  it('dies with Gatehouse: SIGKILL of `gatehouse launch` kills the server (PR_SET_PDEATHSIG)', async () => {
    const bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'landlock');
    cleanups.push(() => bundle.cleanup());
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const marker = `landlock-${randomUUID()}`;
    const probe = (extra: string[]) => ({ command: process.execPath, args: [serverFixture('probe-server.mjs'), '--marker', marker, ...extra], restart: { max_restarts: 0 } });
    const file = writeProfile(tmp.dir, profileYaml('ll', { plain: probe([]), stubborn: probe(['--ignore-eof']) }));
    const data = path.join(tmp.dir, 'data');
    pinProfile(data, file);
    const child = spawn(process.execPath, [bundle.entry('cli'), 'launch', '--profile', file, '--no-http', '--no-approver', '--data-dir', data], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GATEHOUSE_BWRAP: DENIED_BWRAP },
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout!.resume();
    cleanups.push(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
    await waitFor(() => (stderr.match(/ ready\s+pid \d+/g) ?? []).length === 2, { what: `2 servers ready (stderr: ${stderr})`, timeoutMs: 60_000 });
    const servers = withMarker(marker);
    expect(servers.length).toBe(2);
    // Each is the server itself (the launcher exec'd it), confined: NoNewPrivs and a seccomp filter.
    for (const pid of servers) expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/NoNewPrivs:\s+1[\s\S]*Seccomp:\s+2/);
    child.kill('SIGKILL');
    // The stubborn one ignores stdin EOF and SIGTERM: only the death signal ends it.
    await waitFor(() => withMarker(marker).length === 0, { what: `no server left (left: ${withMarker(marker).join(', ')})`, timeoutMs: 30_000 });
  }, 120_000);

  it('the launcher leaves a terminal session it was started in: no controlling terminal inside (setsid)', async () => {
    // A process in a person's terminal session (node under a pty) starts the launcher as a plain
    // child, which shares that session; inside, /dev/tty must not be the person's terminal.
    const { spawn: ptySpawn } = await import('node-pty');
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const script = path.join(tmp.dir, 'in-terminal.cjs');
    const perl = 'open(my $t, "<", "/dev/tty") or die "open: $!\\n"; print "opened /dev/tty\\n"';
    writeFileSync(script, `const r = require('node:child_process').spawnSync(${JSON.stringify(LAUNCHER)}, ['--ro', '/', '--dev', '/dev/tty', '--', '/usr/bin/perl', '-e', ${JSON.stringify(perl)}], { encoding: 'utf8' });\nconsole.log('RESULT ' + (r.stdout + r.stderr).trim());\n`);
    const p = ptySpawn(process.execPath, [script], {});
    let out = '';
    p.onData((d) => (out += d));
    await new Promise<void>((r) => p.onExit(() => r()));
    expect(out).toMatch(/RESULT open: No such device or address/);
  });

  it('the launcher refuses to start when its parent is already gone (the PR_SET_PDEATHSIG race)', () => {
    const r = spawnSync(LAUNCHER, ['--parent', '1', '--ro', '/', '--', '/bin/true'], { encoding: 'utf8' });
    expect(r.status).toBe(125);
    expect(r.stderr).toMatch(/expected parent pid 1, found \d+: Gatehouse is gone/);
  });
});

describe('choosing the kind', () => {
  it('GATEHOUSE_SANDBOX_KIND=bubblewrap refuses the reduced kind: the server fails closed with the reason', async () => {
    const w = world({ GATEHOUSE_SANDBOX_KIND: 'bubblewrap' });
    const file = writeProfile(w.dir, profileYaml('sbx', { probe: { command: process.execPath, args: [serverFixture('probe-server.mjs')], restart: { max_restarts: 0 } } }));
    const status = (await w.host.launch(file)).supervisor.get('probe')!.status();
    expect(status.state).toBe('failed');
    expect(status.reason).toMatch(/setting up uid map: Permission denied.*GATEHOUSE_SANDBOX_KIND=bubblewrap refuses the reduced landlock kind/);
    expect(status.pid).toBeUndefined();
  });

  it('neither bubblewrap nor landlock: fails closed with both reasons (never unconfined)', async () => {
    const w = world({ GATEHOUSE_LANDLOCK: '/nonexistent/gatehouse-landlock' });
    const file = writeProfile(w.dir, profileYaml('sbx', { probe: { command: process.execPath, args: [serverFixture('probe-server.mjs')], restart: { max_restarts: 0 } } }));
    const status = (await w.host.launch(file)).supervisor.get('probe')!.status();
    expect(status.state).toBe('failed');
    expect(status.reason).toMatch(/bubblewrap cannot create namespaces here .*the reduced landlock sandbox is not available either: its launcher was not built/);
    expect(status.reason).toMatch(/sandbox: off/);
  });

  it('a forced landlock that is not available fails closed', async () => {
    const w = world({ GATEHOUSE_SANDBOX_KIND: 'landlock', GATEHOUSE_BWRAP: '/usr/bin/bwrap', GATEHOUSE_LANDLOCK: '/nonexistent/gatehouse-landlock' });
    const file = writeProfile(w.dir, profileYaml('sbx', { probe: { command: process.execPath, args: [serverFixture('probe-server.mjs')], restart: { max_restarts: 0 } } }));
    const status = (await w.host.launch(file)).supervisor.get('probe')!.status();
    expect(status.state).toBe('failed');
    expect(status.reason).toMatch(/forced by GATEHOUSE_SANDBOX_KIND=landlock\) is not available/);
  });
});

/** Host pids whose command line contains `marker`. */
function withMarker(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) out.push(Number(name));
    } catch {}
  }
  return out;
}

