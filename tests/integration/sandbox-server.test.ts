// A sandboxed stdio server, attacked from the inside (tests/fixtures/servers/probe-server.mjs runs
// whatever JavaScript the test sends, inside bubblewrap): it cannot read a canary in $HOME or
// Gatehouse's data directory, cannot write outside its grants, has no network with `network: none`,
// reaches only the allowed host through the filtering proxy with `allow:`, and sees none of the
// host's processes. Real bwrap, real processes, real sockets on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import { forgetSandboxAvailability } from '../../main/sandbox/availability';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, repoRoot, serverFixture } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  forgetSandboxAvailability();
});

interface World {
  dir: string;
  home: string;
  host: Host;
  dataDir: string;
}

/** A temp dir for the profile, and a fake $HOME outside /tmp (whose privacy would hide it anyway). */
function world(env: Record<string, string> = {}): World {
  const tmp = tempDir();
  const home = mkdtempSync('/var/tmp/gatehouse-home-');
  cleanups.push(tmp.cleanup, () => rmSync(home, { recursive: true, force: true }));
  const dataDir = path.join(tmp.dir, 'data');
  const host = new Host({ dataDir, env: { ...process.env, HOME: home, ...env }, stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(() => host.shutdown());
  return { dir: tmp.dir, home, host, dataDir };
}

async function launchProbe(w: World, sandbox: unknown, extraArgs: string[] = []): Promise<Launch> {
  const server: Record<string, unknown> = { command: process.execPath, args: [serverFixture('probe-server.mjs'), ...extraArgs], restart: { max_restarts: 0 } };
  if (sandbox !== undefined) server.sandbox = sandbox;
  const file = writeProfile(w.dir, profileYaml('sbx', { probe: server }));
  return w.host.launch(file);
}

async function run(launch: Launch, code: string): Promise<string> {
  const client = launch.supervisor.get('probe')!.client;
  if (!client) throw new Error(`probe is ${launch.supervisor.get('probe')!.status().state}: ${launch.supervisor.get('probe')!.status().reason}`);
  const res = await client.request({ method: 'tools/call', params: { name: 'run', arguments: { code } } }, CallToolResultSchema);
  return (res.content[0] as { text: string }).text;
}

function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
}

// bubblewrap's expectations (EROFS, a fresh /proc); macOS runs sandbox-seatbelt.test.ts instead.
describe.skipIf(process.platform !== 'linux')('a sandboxed stdio server (strict, the default)', () => {
  it('cannot read a canary in $HOME, its dotfiles or the data directory, and sees no host process', async () => {
    const w = world();
    writeFileSync(path.join(w.home, 'canary.txt'), 'CANARY-HOME');
    mkdirSync(path.join(w.home, '.ssh'));
    writeFileSync(path.join(w.home, '.ssh', 'id_ed25519'), 'CANARY-SSH');
    const launch = await launchProbe(w, undefined);
    const status = launch.supervisor.get('probe')!.status();
    expect(status.state, status.reason).toBe('ready');
    expect(status.sandbox).toMatchObject({ mode: 'strict', network: 'none' });
    // Unsandboxed, this very read works (the file is there and readable).
    expect(readFileSync(path.join(w.home, 'canary.txt'), 'utf8')).toBe('CANARY-HOME');
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, 'canary.txt'))}, 'utf8')`)).toMatch(/^ERR ENOENT/);
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, '.ssh', 'id_ed25519'))}, 'utf8')`)).toMatch(/^ERR ENOENT/);
    // The hidden home is empty: the folders hidden inside it leave no mount point to name them.
    const listing = JSON.parse(await run(launch, `return fs.readdirSync(${JSON.stringify(w.home)})`)) as string[];
    expect(listing).toEqual([]);
    expect(await run(launch, `return fs.readdirSync(${JSON.stringify(path.join(w.home, '.ssh'))})`)).toMatch(/^ERR ENOENT/);
    // The data directory holds the audit store (and, in a window, the relay socket): empty inside.
    expect(readdirSync(w.dataDir).length).toBeGreaterThan(0);
    expect(await run(launch, `return fs.readdirSync(${JSON.stringify(w.dataDir)})`)).toMatch(/^(\[\]|ERR ENOENT)/);
    // A fresh /proc: no host pid is visible, and our host's own pid does not name us.
    const procs = JSON.parse(await run(launch, `return fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).map(Number)`)) as number[];
    expect(procs.length).toBeLessThan(6);
    expect(await run(launch, `return fs.readFileSync('/proc/${process.pid}/environ', 'utf8')`)).toMatch(/^ERR (ENOENT|EACCES)/);
    expect(await run(launch, `return fs.readlinkSync('/proc/${process.pid}/fd/2')`)).toMatch(/^ERR (ENOENT|EACCES)/);
  });

  it('a server installed in ~/bin sees its own folder, not the rest of $HOME', async () => {
    // `~/bin/x` looks like an install prefix (`…/bin/x` → `…`), which would grant all of $HOME
    // read-only (found in review). The command here is a script in <home>/bin.
    const w = world();
    writeFileSync(path.join(w.home, 'canary.txt'), 'CANARY-HOME');
    mkdirSync(path.join(w.home, 'bin'));
    const script = path.join(w.home, 'bin', 'probe');
    writeFileSync(script, `#!/usr/bin/env node\nimport(${JSON.stringify(serverFixture('probe-server.mjs'))});\n`, { mode: 0o755 });
    const file = writeProfile(w.dir, profileYaml('sbx', { probe: { command: script, restart: { max_restarts: 0 } } }));
    const launch = await w.host.launch(file);
    const status = launch.supervisor.get('probe')!.status();
    expect(status.state, status.reason).toBe('ready');
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, 'canary.txt'))}, 'utf8')`)).toMatch(/^ERR ENOENT/);
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(script)}, 'utf8').length > 0`)).toBe('true');
  });

  it('writes the workspace and its grants, nothing else', async () => {
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
    // Outside: a visible but read-only folder, the system, the profile's own folder.
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(outside, 'x.txt'))}, 'no'); return 'wrote'`)).toMatch(/^ERR EROFS/);
    expect(await run(launch, `fs.writeFileSync('/usr/gatehouse-escape', 'no'); return 'wrote'`)).toMatch(/^ERR EROFS/);
    expect(existsSync(path.join(outside, 'x.txt'))).toBe(false);
    // /tmp is private: what the server writes there never reaches the host's /tmp.
    expect(await run(launch, `fs.writeFileSync(${JSON.stringify(path.join(w.dir, 'profile-dir.txt'))}, 'tmp'); return 'wrote'`)).toBe('"wrote"');
    expect(existsSync(path.join(w.dir, 'profile-dir.txt'))).toBe(false);
  });

  it('network none: no socket reaches the host loopback or anything else', async () => {
    const w = world();
    const listener = net.createServer((s) => s.end('HOST-LOOPBACK\n'));
    const port = await listen(listener);
    cleanups.push(() => void listener.close());
    const launch = await launchProbe(w, { network: 'none' });
    const connect = (host: string, p: number) => `return await new Promise((resolve) => {
      const s = net.connect(${p}, ${JSON.stringify(host)});
      s.setTimeout(3000, () => { s.destroy(); resolve('timeout'); });
      s.on('data', (d) => { resolve('data ' + d); s.destroy(); });
      s.on('error', (e) => resolve('error ' + e.code));
    })`;
    // Not even a socket: the seccomp filter refuses AF_INET and AF_INET6 (EACCES) before any connect.
    expect(await run(launch, connect('127.0.0.1', port))).toBe('"error EACCES"');
    expect(await run(launch, connect('10.255.255.1', 80))).toBe('"error EACCES"');
    expect(await run(launch, connect('::1', port))).toBe('"error EACCES"');
    const listenOn = (target: string) => `return await new Promise((r) => { const s = net.createServer(); s.on('error', (e) => r('error ' + e.code)); s.listen(${target}, () => { s.close(); r('listening'); }); })`;
    expect(await run(launch, listenOn(`0, '127.0.0.1'`))).toBe('"error EACCES"');
    // Unix sockets (which runtimes use internally) still work; and its namespace has only lo.
    expect(await run(launch, listenOn(`'/tmp/own.sock'`))).toBe('"listening"');
    expect(JSON.parse(await run(launch, `return Object.keys(os.networkInterfaces())`))).toEqual(['lo']);
  });

  it('network allow: reaches the allowed host through the proxy, and nothing else', async () => {
    const w = world();
    const web = http.createServer((req, res) => res.end(`HELLO ${req.headers.host}`));
    const port = await listen(web);
    cleanups.push(() => void web.close());
    // `localhost:PORT` is allowed; the same server as `127.0.0.1:PORT` is not (the proxy's host check).
    const launch = await launchProbe(w, { network: { allow: [`localhost:${port}`] } });
    expect(launch.supervisor.get('probe')!.status().sandbox).toMatchObject({ network: 'allow' });
    const viaProxy = (target: string) => `const proxy = new URL(process.env.HTTP_PROXY);
      return await new Promise((resolve) => {
        const req = http.request({ host: proxy.hostname, port: proxy.port, path: ${JSON.stringify(target)}, headers: { host: new URL(${JSON.stringify(target)}).host } }, (res) => {
          let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => resolve(res.statusCode + ' ' + body));
        });
        req.on('error', (e) => resolve('error ' + e.code));
        req.end();
      })`;
    const connectTunnel = (authority: string) => `const proxy = new URL(process.env.HTTPS_PROXY);
      return await new Promise((resolve) => {
        const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: ${JSON.stringify(authority)} });
        req.on('connect', (res, socket) => {
          if (res.statusCode !== 200) { socket.destroy(); return resolve('refused ' + res.statusCode); }
          socket.write('GET / HTTP/1.1\\r\\nhost: ' + ${JSON.stringify(authority)} + '\\r\\nconnection: close\\r\\n\\r\\n');
          let body = ''; socket.on('data', (d) => (body += d)); socket.on('end', () => resolve('tunnel ' + body.split('\\r\\n\\r\\n')[1]));
        });
        req.on('error', (e) => resolve('error ' + e.code));
        req.end();
      })`;
    expect(await run(launch, viaProxy(`http://localhost:${port}/`))).toBe(`"200 HELLO localhost:${port}"`);
    expect(await run(launch, viaProxy(`http://127.0.0.1:${port}/`))).toMatch(/^"403 gatehouse sandbox proxy: 127\.0\.0\.1:\d+ is not in the sandbox's network allow list/);
    expect(await run(launch, viaProxy(`http://localhost:${port + 1 === 65536 ? 1 : port + 1}/`))).toMatch(/^"403 /);
    expect(await run(launch, connectTunnel(`localhost:${port}`))).toBe(`"tunnel HELLO localhost:${port}"`);
    expect(await run(launch, connectTunnel(`127.0.0.1:${port}`))).toBe('"refused 403"');
    expect(await run(launch, connectTunnel('169.254.169.254:80'))).toBe('"refused 403"');
    // Around the proxy: the host's loopback is not the sandbox's.
    expect(await run(launch, `return await new Promise((r) => net.connect(${port}, '127.0.0.1').on('connect', () => r('connected')).on('error', (e) => r(e.code)))`)).toBe('"ECONNREFUSED"');
    // Refusals are in the server's log, for the person reading it.
    expect(w.host && launch.supervisor.get('probe')!.stderrTail().some((l) => /sandbox network: refused .*127\.0\.0\.1/.test(l))).toBe(true);
  });
});

describe('when the sandbox cannot be had', () => {
  it('a server fails with the reason and the fix instead of starting unconfined', async () => {
    const w = world({ GATEHOUSE_BWRAP: '/nonexistent/bwrap', GATEHOUSE_LANDLOCK: '/nonexistent/gatehouse-landlock' });
    forgetSandboxAvailability();
    const launch = await launchProbe(w, undefined);
    const status = launch.supervisor.get('probe')!.status();
    expect(status.state).toBe('failed');
    expect(status.reason).toMatch(/bubblewrap not found at \/nonexistent\/bwrap/);
    expect(status.reason).toMatch(/apt-get install bubblewrap/);
    expect(status.reason).toMatch(/sandbox: off/);
    expect(status.reason).toMatch(/not restarted/);
    expect(status.pid).toBeUndefined();
  });

  it('`sandbox: off` runs it unconfined, and says so', async () => {
    const w = world({ GATEHOUSE_BWRAP: '/nonexistent/bwrap', GATEHOUSE_LANDLOCK: '/nonexistent/gatehouse-landlock' });
    forgetSandboxAvailability();
    writeFileSync(path.join(w.home, 'canary.txt'), 'CANARY-HOME');
    const launch = await launchProbe(w, 'off');
    const status = launch.supervisor.get('probe')!.status();
    expect(status.state).toBe('ready');
    expect(status.sandbox).toMatchObject({ mode: 'off' });
    expect(status.sandbox!.summary).toMatch(/unconfined/);
    expect(await run(launch, `return fs.readFileSync(${JSON.stringify(path.join(w.home, 'canary.txt'))}, 'utf8')`)).toBe('"CANARY-HOME"');
  });
});

describe('the built-in tools server in its sandbox', () => {
  it('http_request reaches its allow_hosts through the proxy (network allow by default), nothing around it', async () => {
    const w = world();
    const web = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`TOOLS ${req.headers.host}`));
    const port = await listen(web);
    cleanups.push(() => void web.close());
    const file = writeProfile(w.dir, profileYaml('sbx-tools', { workspace: { builtin: 'workspace-tools', options: { http: { allow_hosts: [`localhost:${port}`] } } } }));
    const launch = await w.host.launch(file);
    const server = launch.supervisor.get('workspace')!;
    expect(server.status().state, server.status().reason).toBe('ready');
    expect(server.status().sandbox).toMatchObject({ mode: 'strict', network: 'allow' });
    const call = async (url: string) => {
      const res = await server.client!.request({ method: 'tools/call', params: { name: 'net.http_request', arguments: { url } } }, CallToolResultSchema);
      return res.structuredContent as Record<string, unknown>;
    };
    expect(await call(`http://localhost:${port}/`)).toMatchObject({ status: 200, body: `TOOLS localhost:${port}` });
    // Not on its list: refused by the tool itself, before the proxy is asked.
    expect(JSON.stringify(await call(`http://127.0.0.1:${port}/`))).toMatch(/HostNotAllowedError/);
  });
});

describe('the demo profile, sandboxed as shipped', () => {
  it("the memory server writes its graph in the one folder of the data dir it is granted", async () => {
    const w = world();
    const launch = await w.host.launch(path.join(repoRoot, 'workspace-profiles', 'demo.yaml'));
    for (const s of launch.statuses()) expect(s.state, `${s.id}: ${s.reason}`).toBe('ready');
    const memory = launch.supervisor.get('memory')!;
    expect(memory.status().sandbox?.mode).toBe('strict');
    await memory.client!.request(
      { method: 'tools/call', params: { name: 'create_entities', arguments: { entities: [{ name: 'sandbox-test', entityType: 'test', observations: ['written from inside'] }] } } },
      CallToolResultSchema,
    );
    expect(readFileSync(path.join(w.dataDir, 'memory', 'demo-memory.jsonl'), 'utf8')).toContain('written from inside');
  });
});
