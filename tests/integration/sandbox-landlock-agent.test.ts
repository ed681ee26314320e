// The hostile agent of sandbox-agent.test.ts (tests/fixtures/agents/hostile.mjs), in a real pty,
// under the reduced landlock kind (bwrap refused as Ubuntu's AppArmor refuses it): it cannot
// read the host's environment or stderr through /proc, list the data directory or reach the web
// shell's port, and its gateway calls still work. docs/sandbox.md "Sandbox kinds" says what is
// left (the relay socket stays connectable by path, and grants nothing: relay-server.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { startApprovalRelay } from '../../main/approvals/relay-server';
import { startGrantsControl } from '../../main/approvals/grants-control';
import { relaySocketPath } from '../../main/approvals/relay-wire';
import { createHostApiDispatcher } from '../../main/api/dispatcher';
import { startWebServer } from '../../main/web/server';
import { appRoot } from '../../main/paths';
import { landlockLauncherPath } from '../../main/sandbox/availability';
import { tempDir, writeProfile } from '../support/temp';
import { repoRoot, waitFor } from '../support/supervisor';

const DENIED_BWRAP = path.join(repoRoot, 'tests', 'fixtures', 'sandbox', 'bwrap-apparmor-denied.sh');
const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'agents');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Attempt = { ok: boolean; code?: string; value?: unknown };

describe.skipIf(!existsSync(landlockLauncherPath(process.env)))('an agent terminal under the landlock kind', () => {
  it('gets nothing of the host (proc, data dir, web shell) and still calls the gateway', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const host = new Host({ dataDir, env: { ...process.env, GATEHOUSE_BWRAP: DENIED_BWRAP } });
    cleanups.push(() => host.shutdown());
    const relay = await startApprovalRelay(host);
    cleanups.push(() => relay.close());
    const grants = await startGrantsControl(host);
    cleanups.push(() => grants.close());
    const web = await startWebServer({ dispatcher: createHostApiDispatcher(host, { shell: 'web' }), rendererDir: path.join(appRoot(), 'out', 'renderer'), port: 0 });
    cleanups.push(() => web.close());
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
    const out = JSON.parse(line[1]!) as Record<string, Attempt>;
    expect(launch.supervisor.get('workspace')!.status().sandbox).toMatchObject({ kind: 'landlock' });
    expect(out.environ).toMatchObject({ ok: false, code: 'EACCES' });
    expect(out.stderr).toMatchObject({ ok: false, code: 'EACCES' });
    expect(out.ppidEnviron!.value ?? false).toBe(false);
    expect(out.procEnvirons).toBe(0);
    expect(out.dataDir).toMatchObject({ ok: false, code: 'EACCES' });
    // The grants control socket connects by path under Landlock; the host refuses the agent as sandboxed.
    expect(out.grants).toMatchObject({ ok: true, value: { ok: false, error: expect.stringMatching(/^refused: a sandboxed process cannot use this socket/) } });
    // Only the gateway's port is granted (a Landlock TCP connect rule): the web shell's is refused.
    expect(out.web).toMatchObject({ ok: false, code: 'EACCES' });
    expect(out.gateway).toEqual({ ok: true, value: 'gateway works\n' });
  }, 90_000);
});
