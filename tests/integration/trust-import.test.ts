// Trust on first use for what a person did not write (docs/trust.md): an imported Claude
// Desktop configuration starts quarantined, so no server process runs before a person approves
// it (the fixture appends its pid to a marker file the moment it starts); approving one starts
// exactly that one. And the real reference servers raise no poisoning flag.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../main/host';
import { setTestApprover } from '../../main/trust/launch-consent';
import { checkDefinition } from '../../main/trust/poisoning';
import { toolDefinition } from '../../main/trust/tool-definition';
import { canonicalName, toAdvertised } from '../../main/protocol/tool-names';
import { buildTestBundle, type TestBundle } from '../support/build';
import { waitFor } from '../support/gateway';
import { pidAlive, profileYaml, serverFixture } from '../support/supervisor';
import { tempDir, writeProfile } from '../support/temp';

let bundle: TestBundle;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'trust-import-test');
}, 60_000);
afterAll(() => bundle.cleanup());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  setTestApprover('test-setup');
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('an imported Claude Desktop config', () => {
  it('starts quarantined: no server process before approval; approving one starts only that one', async () => {
    setTestApprover(undefined);
    const tmp = tempDir('gh-trust-import-');
    const dataDir = path.join(tmp.dir, 'data');
    // In the workspace: the one place a sandboxed server may write (docs/sandbox.md).
    const marker = (n: string) => path.join(tmp.dir, 'ws', `${n}.started`);
    fs.mkdirSync(path.join(tmp.dir, 'ws'));
    const config = path.join(tmp.dir, 'claude_desktop_config.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        mcpServers: Object.fromEntries(['alpha', 'beta'].map((n) => [n, { command: process.execPath, args: [serverFixture('trust-server.mjs')], env: { TRUST_MARKER: marker(n) } }])),
      }),
    );
    const out = path.join(tmp.dir, 'imported.yaml');
    const env = { PATH: process.env.PATH, HOME: tmp.dir, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_PROFILES_DIR: path.join(tmp.dir, 'profiles') };
    const r = spawnSync(process.execPath, [bundle.entry('cli'), 'profiles', 'import', config, '--out', out, '--workspace', path.join(tmp.dir, 'ws')], { env, encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toContain('imported 2 servers');
    expect(r.status).toBe(0);

    const host = new Host({ dataDir, stdinGraceMs: 300, termGraceMs: 500 });
    cleanups.push(tmp.cleanup, () => host.shutdown());
    const launch = await host.launch(out);
    for (const id of ['alpha', 'beta']) {
      const s = launch.supervisor.get(id)!.status();
      expect(s.state).toBe('stopped');
      expect(s.pid).toBeUndefined();
      expect(s.reason).toContain('waiting for approval: new launch command');
      expect(fs.existsSync(marker(id))).toBe(false);
    }
    expect(launch.trust.reviews().launch.map((l) => l.server)).toEqual(['alpha', 'beta']);

    await launch.trust.decide({ server: 'alpha', choice: 'approve', by: 'test-person' });
    const alpha = await waitFor(() => launch.supervisor.get('alpha')!.status().pid, 'alpha pid');
    expect(pidAlive(alpha)).toBe(true);
    // The fixture writes its own pid, which is its pid inside the sandbox's PID namespace (the
    // status pid is bubblewrap's): that it wrote one at all is what shows it started.
    await waitFor(() => fs.existsSync(marker('alpha')) && /^\d+$/.test(fs.readFileSync(marker('alpha'), 'utf8').trim()), 'alpha marker');
    expect(fs.existsSync(marker('beta'))).toBe(false);
    expect(launch.supervisor.get('beta')!.status().state).toBe('stopped');
    const actions = host.audit!.queryTrustDecisions({ profile: 'imported' }).map((d) => [d.action, d.server ?? null]);
    expect(actions).toEqual([
      ['quarantined', null],
      ['approved', 'alpha'],
      // The profile's own identity (policy, tool surface), pinned with its first approved server.
      ['approved', null],
      ['pinned', 'alpha'],
    ]);
  }, 60_000);
});

describe('the reference servers', () => {
  it('filesystem, memory and everything raise no poisoning or shadowing flag, and nothing is held', async () => {
    const tmp = tempDir('gh-trust-refs-');
    const host = new Host({ dataDir: path.join(tmp.dir, 'data'), stdinGraceMs: 300, termGraceMs: 500 });
    cleanups.push(tmp.cleanup, () => host.shutdown());
    const file = writeProfile(
      tmp.dir,
      profileYaml('refs', {
        files: { command: 'mcp-server-filesystem', args: ['${workspace}'] },
        memory: { command: 'mcp-server-memory', env: { MEMORY_FILE_PATH: '${data}/memory.jsonl' } },
        everything: { command: 'mcp-server-everything', args: ['stdio'] },
      }),
    );
    const launch = await host.launch(file);
    expect(launch.statuses().map((s) => s.state)).toEqual(['ready', 'ready', 'ready']);
    // With what is pinned beside the tools: their _meta and each server's instructions.
    const inputs = ['files', 'memory', 'everything'].map((id) => ({ serverId: id, builtin: false, tools: launch.supervisor.get(id)!.tools(), instructions: launch.supervisor.get(id)!.status().instructions }));
    const others = inputs.flatMap((i) => i.tools.map((t) => ({ server: i.serverId, name: t.name, canonical: canonicalName(i, t), advertised: toAdvertised(canonicalName(i, t)) })));
    let checked = 0;
    for (const input of inputs) {
      for (const t of input.tools) {
        expect(checkDefinition(toolDefinition(t, input.instructions), { server: input.serverId, others }), `${input.serverId}.${t.name}`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
    await waitFor(() => launch.gateway.currentSurface().tools.length > checked, 'every tool advertised');
    expect(launch.trust.reviews().tools).toEqual([]);
  }, 90_000);
});

describe('gatehouse gateway without a terminal', () => {
  it('does not start an unapproved server and says so in one stderr line naming `gatehouse trust accept`; stdout stays protocol', async () => {
    const { RawStdioPeer } = await import('../support/raw-stdio');
    const tmp = tempDir('gh-trust-gw-');
    cleanups.push(tmp.cleanup);
    const marker = path.join(tmp.dir, 'started.txt');
    const file = writeProfile(tmp.dir, profileYaml('gw', { dict: { command: process.execPath, args: [serverFixture('trust-server.mjs')], env: { TRUST_MARKER: marker } } }));
    const argv = [bundle.entry('cli'), 'gateway', '--profile', file, '--quiet', '--data-dir', path.join(tmp.dir, 'data')];
    // setsid: no controlling terminal, so nothing could be asked even if it wanted to.
    const peer = fs.existsSync('/usr/bin/setsid') ? new RawStdioPeer('/usr/bin/setsid', [process.execPath, ...argv], { cwd: tmp.dir }) : new RawStdioPeer(process.execPath, argv, { cwd: tmp.dir });
    cleanups.push(() => peer.kill());
    const init = await peer.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    expect(init.message.result).toBeDefined();
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const list = await peer.request(2, 'tools/list', {});
    expect((list.message.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['gatehouse_capabilities']);
    await waitFor(() => peer.stderr.includes('\n'), 'the refusal line');
    const lines = peer.stderr.trim().split('\n');
    expect(lines, peer.stderr).toHaveLength(1);
    expect(lines[0]).toBe(`gatehouse: not started until approved: dict (new launch command); review with \`gatehouse trust diff --profile ${file}\`, approve with \`gatehouse trust accept --profile ${file} --server dict\``);
    expect(fs.existsSync(marker)).toBe(false);
  }, 60_000);
});

describe('gatehouse launch on a terminal', () => {
  it('shows the exact command on the terminal and starts the server after "y"; the pin is recorded', async () => {
    const { createRequire } = await import('node:module');
    const pty = createRequire(import.meta.url)('node-pty') as typeof import('node-pty');
    const tmp = tempDir('gh-trust-tty-');
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const file = writeProfile(tmp.dir, profileYaml('tty', { dict: { command: process.execPath, args: [serverFixture('trust-server.mjs'), '--flag'] } }));
    const term = pty.spawn(process.execPath, [bundle.entry('cli'), 'launch', '--profile', file, '--no-http', '--data-dir', dataDir], {
      cwd: tmp.dir,
      env: { ...process.env, GATEHOUSE_TOKEN: '' } as Record<string, string>,
      cols: 400,
      rows: 50,
    });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<void>((resolve) => term.onExit(() => resolve()));
    // Wait for launch to stop its server and close its data dir before the folder is removed.
    cleanups.push(async () => {
      term.kill('SIGTERM');
      await exited;
    });
    await waitFor(() => out.includes("Approve and start 'dict'? [y/N]"), 'the consent prompt', 30_000);
    expect(out).toContain(`Command: ${process.execPath} ${serverFixture('trust-server.mjs')} --flag`);
    expect(out).toContain('Working directory: ');
    term.write('y\r');
    await waitFor(() => /dict.*ready/.test(out), 'dict ready', 30_000);
    const pins = JSON.parse(fs.readFileSync(path.join(dataDir, 'trust', 'tty.json'), 'utf8'));
    expect(pins.servers.dict.approvedBy).toMatch(/^tty:/);
  }, 60_000);
});
