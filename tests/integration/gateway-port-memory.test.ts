// Connect once, stay connected (main/gateway/remembered-endpoint.ts): the demo launched twice
// listens on the same port with the same token, so a configuration copied from Connect still
// works after the relaunch; when that port is taken, the gateway takes another and says so on
// stderr and as a `launch:notice` event to every window.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Host } from '../../main/host';
import { createHostApiDispatcher } from '../../main/api/dispatcher';
import { rememberedPort } from '../../main/gateway/remembered-endpoint';
import type { EventName } from '../../common/host-api';
import { buildTestBundle, type TestBundle } from '../support/build';
import { repoRoot, waitFor } from '../support/supervisor';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';

let bundle: TestBundle;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' });
}, 60_000);
afterAll(() => bundle?.cleanup());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Every file under dir (the data dir), for "the token is nowhere in clear". */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    const st = statSync(p);
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [p] : [];
  });
}

describe('the demo, launched twice', () => {
  it('keeps its gateway port and token: the configuration copied from Connect still works', async () => {
    const tmp = tempDir('gatehouse-port-');
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const demo = path.join(repoRoot, 'workspace-profiles', 'demo.yaml');
    pinProfile(dataDir, demo);
    // No GATEHOUSE_TOKEN: the token must come back from the secret store (the encrypted file here).
    const env = { ...process.env, GATEHOUSE_TOKEN: undefined, GATEHOUSE_SECRET_STORE: 'file', HOME: tmp.dir };

    async function launchDemo(): Promise<{ child: ChildProcess; url: string; token: string; stderr: () => string }> {
      const child = spawn(process.execPath, [bundle.entry('cli'), 'launch', '--profile', demo, '--no-approver', '--data-dir', dataDir], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      cleanups.push(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      const m = await waitFor(() => /gateway {2}(\S+)\n.*token {4}(\S+)/s.exec(stderr), { what: `the gateway line (stderr so far: ${stderr})`, timeoutMs: 60_000 });
      return { child, url: m[1]!, token: m[2]!, stderr: () => stderr };
    }
    async function stop(child: ChildProcess): Promise<void> {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }

    const first = await launchDemo();
    // What Connect shows for Claude Code (the same text `gatehouse connect` prints).
    const connect = spawnSync(process.execPath, [bundle.entry('cli'), 'connect', '--profile', demo, '--client', 'claude-code', '--url', first.url], { env, encoding: 'utf8' });
    expect(connect.status, connect.stderr).toBe(0);
    const copied = (JSON.parse(connect.stdout) as { mcpServers: { gatehouse: { url: string } } }).mcpServers.gatehouse.url;
    const copiedToken = first.token;
    // Generated (base64url), not "(from GATEHOUSE_TOKEN)".
    expect(copiedToken).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    await stop(first.child);

    const second = await launchDemo();
    expect(second.url).toBe(copied);
    expect(second.token).toBe(copiedToken);
    const client = new Client({ name: 'copied-config', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(copied), { requestInit: { headers: { Authorization: `Bearer ${copiedToken}` } } }));
    cleanups.push(() => client.close());
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('create_directory');
    await client.close();
    await stop(second.child);

    // Kept where no sandbox reads it, and never in clear: the data dir (hidden from every server
    // and agent, main/sandbox/hidden-paths.ts) holds it only encrypted.
    for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(copiedToken), file).toBe(false);
  }, 180_000);
});

describe('a remembered port that is taken', () => {
  it('listens on another port, keeps that one, and says so on stderr and to the window', async () => {
    const tmp = tempDir('gatehouse-port-taken-');
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const file = writeProfile(tmp.dir, 'name: taken\nworkspace: ./ws\nservers:\n  workspace:\n    builtin: workspace-tools\npolicy: { default: allow }\n');
    pinProfile(dataDir, file);
    const host = new Host({ dataDir, env: { ...process.env, GATEHOUSE_TOKEN: undefined, GATEHOUSE_SECRET_STORE: 'file' } });
    cleanups.push(() => host.shutdown());
    const first = await host.launch(file, { httpPort: 0 });
    const kept = first.endpoint!.port;
    expect(rememberedPort(dataDir, file)).toBe(kept);
    await host.stop(first.id);

    const squatter = net.createServer();
    await new Promise<void>((resolve, reject) => squatter.once('error', reject).listen(kept, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise<void>((r) => squatter.close(() => r())));
    const api = createHostApiDispatcher(host, { shell: 'web' });
    const seen: Array<{ event: EventName; payload: unknown }> = [];
    cleanups.push(api.subscribe((event, payload) => seen.push({ event, payload })));
    const stderr = vi.spyOn(process.stderr, 'write');
    cleanups.push(() => stderr.mockRestore());

    const second = await host.launch(file, { httpPort: 0 });
    const moved = second.endpoint!.port;
    expect(moved).not.toBe(kept);
    expect(rememberedPort(dataDir, file)).toBe(moved);
    const said = new RegExp(`port ${kept} .* is taken; it listens on ${moved} now`);
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(said);
    const notices = seen.filter((s) => s.event === 'launch:notice').map((s) => s.payload as { launchId: string; message: string });
    expect(notices).toHaveLength(1);
    expect(notices[0]!.launchId).toBe(second.id);
    expect(notices[0]!.message).toMatch(said);
    expect(second.notices).toEqual([notices[0]!.message]);
  }, 120_000);
});
