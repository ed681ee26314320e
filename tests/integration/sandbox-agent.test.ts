// An agent terminal inside its sandbox, attacked from the inside (tests/fixtures/agents/hostile.mjs):
// it cannot read the host's /proc/<pid>/environ or /proc/<pid>/fd/2, cannot list the data
// directory, cannot connect to the approvals relay socket or to the web shell's port — and its
// gateway calls still work. A real pty, real bwrap, the real relay and web shell on 127.0.0.1.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Host } from '../../main/host';
import { startApprovalRelay } from '../../main/approvals/relay-server';
import { startGrantsControl } from '../../main/approvals/grants-control';
import { relaySocketPath } from '../../main/approvals/relay-wire';
import { createHostApiDispatcher } from '../../main/api/dispatcher';
import { startWebServer } from '../../main/web/server';
import { appRoot } from '../../main/paths';
import { tempDir, writeProfile } from '../support/temp';
import { waitFor } from '../support/supervisor';

const fixtures = path.resolve(__dirname, '../fixtures/agents');
let tmp: ReturnType<typeof tempDir>;
const cleanups: Array<() => Promise<void> | void> = [];
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  tmp.cleanup();
});

type Attempt = { ok: boolean; code?: string; value?: unknown };

async function runAgent(sandboxYaml: string): Promise<{ out: Record<string, Attempt>; sandbox: unknown }> {
  const dataDir = path.join(tmp.dir, 'data');
  const host = new Host({ dataDir });
  cleanups.push(() => host.shutdown());
  const relay = await startApprovalRelay(host);
  cleanups.push(() => relay.close());
  const grants = await startGrantsControl(host);
  cleanups.push(() => grants.close());
  const web = await startWebServer({ dispatcher: createHostApiDispatcher(host, { shell: 'web' }), rendererDir: path.join(appRoot(), 'out', 'renderer'), port: 0 });
  cleanups.push(() => web.close());
  // The relay and the web shell are really there, for an unsandboxed process.
  await new Promise<void>((resolve, reject) => net.connect(relaySocketPath(dataDir)).on('connect', function (this: net.Socket) { this.destroy(); resolve(); }).on('error', reject));
  expect(readdirSync(dataDir).length).toBeGreaterThan(0);
  const file = writeProfile(
    tmp.dir,
    `
name: hostile
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: allow
agent:
  preset: custom
  command: node
  args: ["${path.join(fixtures, 'hostile.mjs')}", "${process.pid}", "${dataDir}", "${relaySocketPath(dataDir)}", "${web.port}"]
  autostart: false
${sandboxYaml}
`,
  );
  writeFileSync(path.join(tmp.dir, 'ws', 'note.txt'), 'gateway works\n');
  const launch = await host.launch(file, { httpPort: 0 });
  const opened = await host.openTerminal(launch.id);
  if ('unavailable' in opened) throw new Error(opened.unavailable);
  const session = host.terminals.get(opened.id)!;
  let output = session.replay();
  session.on('data', (d) => (output += d));
  await waitFor(() => session.status().exit !== undefined, { timeoutMs: 60_000 });
  const line = /HOSTILE (\{.*\})/.exec(output.replace(/\r?\n/g, '\n'));
  if (!line) throw new Error(`no HOSTILE line in: ${output}`);
  return { out: JSON.parse(line[1]!) as Record<string, Attempt>, sandbox: host.terminals.list(launch.id)[0]?.sandbox };
}

describe('an agent terminal in its sandbox (strict, the default)', () => {
  it('gets nothing of the host (proc, data dir, relay, web shell) and still calls the gateway', async () => {
    const { out, sandbox } = await runAgent('');
    expect(sandbox).toMatchObject({ mode: 'strict', network: 'loopback' });
    expect(out.environ).toMatchObject({ ok: false, code: 'ENOENT' });
    expect(out.stderr).toMatchObject({ ok: false, code: 'ENOENT' });
    expect(out.ppidEnviron!.value ?? false).toBe(false);
    expect(out.procEnvirons).toBe(0);
    // Only the mount point of its own run folder (its generated config) shows; no audit store, no socket.
    expect(out.dataDir).toSatisfy((r: Attempt) => !r.ok || (Array.isArray(r.value) && r.value.every((n) => n === 'run')));
    expect(out.relay).toMatchObject({ ok: false });
    // The grants control socket is in the hidden data dir: not there at all.
    expect(out.grants).toMatchObject({ ok: false, code: 'ENOENT' });
    expect(out.web).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    expect(out.gateway).toEqual({ ok: true, value: 'gateway works\n' });
  }, 90_000);

  it('with `sandbox: off` the same script reaches all of it (what the sandbox takes away)', async () => {
    const { out, sandbox } = await runAgent('  sandbox: off');
    expect(sandbox).toMatchObject({ mode: 'off' });
    expect(out.environ!.ok).toBe(true);
    expect(out.procEnvirons).toBeGreaterThan(0);
    expect(out.relay).toMatchObject({ ok: true });
    expect(out.grants).toMatchObject({ ok: true, value: { ok: true, revoked: [] } });
    expect(out.web).toMatchObject({ ok: true });
    expect(out.gateway).toEqual({ ok: true, value: 'gateway works\n' });
  }, 90_000);
});
