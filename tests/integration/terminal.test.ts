// Agents in a real pseudo-terminal (node-pty): wired to the gateway through their own token,
// attributed in the audit store, and their output delivered complete, in order and under flow
// control, multibyte characters intact.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { HIGH_WATERMARK } from '../../main/agents/terminal-session';
import { tempDir, writeProfile } from '../support/temp';
import { waitFor } from '../support/supervisor';

const fixtures = path.resolve(__dirname, '../fixtures/agents');

let tmp: ReturnType<typeof tempDir>;
let host: Host;

beforeEach(() => {
  tmp = tempDir();
});

afterEach(async () => {
  await host?.shutdown();
  tmp.cleanup();
});

function profile(agent: string): string {
  const file = writeProfile(
    tmp.dir,
    `
name: term-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: allow
agent:
${agent}
`,
  );
  writeFileSync(path.join(tmp.dir, 'ws', 'note.txt'), 'hello from the terminal test\n');
  return file;
}

describe('agents in a terminal', () => {
  it('a shell-preset agent calls a tool through the gateway with its own token, attributed to its terminal', async () => {
    const file = profile(`  preset: custom
  command: node
  args: ["${path.join(fixtures, 'call-tool.mjs')}", "read_file", '{"file_path":"note.txt"}']
  autostart: false`);
    host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_TOKEN: 'main-token-must-not-leak' } });
    const launch = await host.launch(file, { httpPort: 0 });
    const opened = await host.openTerminal(launch.id);
    if ('unavailable' in opened) throw new Error(opened.unavailable);
    let output = '';
    const session = host.terminals.get(opened.id)!;
    session.on('data', (d) => (output += d));
    await waitFor(() => session.status().exit !== undefined, { timeoutMs: 30_000 });
    expect(output).toContain('AGENT-RESULT {"file_content":"hello from the terminal test\\n"');
    // Nothing the agent can read carries the host's own gateway token or UI credentials.
    expect(output).toContain('AGENT-ENV-HAS-UI-SECRET false');
    expect(session.status().exit?.code).toBe(0);

    host.audit!.flush();
    const detail = host.audit!.getSession(launch.id)!;
    const agent = detail.agentSessions.find((a) => a.terminal === opened.id);
    expect(agent, 'the agent session is attributed to the terminal').toBeDefined();
    const decisions = host.audit!.queryDecisions({ session: launch.id });
    expect(decisions.some((d) => d.tool === 'fs.read' && d.agentSession === agent!.id)).toBe(true);
    // The generated run folder (with the terminal's token) is gone with the terminal.
    await waitFor(() => !existsSync(path.join(tmp.dir, 'data', 'run', opened.id)), { timeoutMs: 5000 });
  });

  it('a preset whose program is not installed is reported unavailable with how to install it', async () => {
    const file = profile(`  preset: codex
  autostart: false`);
    host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, PATH: '/usr/bin:/bin' } });
    const launch = await host.launch(file, { httpPort: 0 });
    const opened = await host.openTerminal(launch.id);
    expect('unavailable' in opened && opened.unavailable).toMatch(/Codex is not installed/);
    expect('install' in opened && opened.install).toBe('npm install -g @openai/codex');
  });

  it('delivers 50 MB of multibyte output complete and in order, pausing the pty while the viewer lags', async () => {
    const lines = 540_000; // ~52 MB at ~96 bytes a line (CRLF from the pty included)
    const file = profile(`  preset: custom
  command: node
  args: ["${path.join(fixtures, 'flood.mjs')}", "${lines}", "--hold"]
  autostart: false`);
    host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    const launch = await host.launch(file, { httpPort: 0 });
    const opened = await host.openTerminal(launch.id);
    if ('unavailable' in opened) throw new Error(opened.unavailable);
    const session = host.terminals.get(opened.id)!;
    const leave = session.joinFlowControl();
    let carry = '';
    let next = 0;
    let bytes = 0;
    let maxUnacked = 0;
    let sawPause = false;
    let owed = 0;
    let done = false;
    const pad = 'ü€😀 '.repeat(8);
    session.on('data', (chunk) => {
      bytes += Buffer.byteLength(chunk);
      const text = carry + chunk;
      const parts = text.split('\n');
      carry = parts.pop()!;
      for (const raw of parts) {
        const line = raw.replace(/\r$/, '');
        if (line === 'FLOOD-DONE') {
          done = true;
          continue;
        }
        // Every line intact (no replacement characters from a split multibyte sequence), in order.
        expect(line).toBe(`L${next} ${pad}${next}`);
        next += 1;
      }
      const flow = session.flowState();
      maxUnacked = Math.max(maxUnacked, flow.unacked);
      owed += chunk.length;
      // A viewer that lags: it acknowledges only once the host has had to pause the pty, then
      // all it owes at once, a moment later. So every pause/resume cycle is exercised.
      if (flow.paused) {
        sawPause = true;
        const n = owed;
        owed = 0;
        setTimeout(() => session.acknowledge(n), 5);
      }
    });
    await waitFor(() => done, { timeoutMs: 240_000, intervalMs: 50 });
    // Everything arrived while the program still runs; now end it.
    session.kill('SIGTERM');
    await waitFor(() => session.status().exit !== undefined, { timeoutMs: 30_000 });
    leave();
    expect(next).toBe(lines);
    expect(bytes).toBeGreaterThan(50_000_000);
    expect(sawPause, 'the pty was paused above the high watermark').toBe(true);
    // The window of unacknowledged output stays bounded (one batch past the watermark at most).
    expect(maxUnacked).toBeLessThan(HIGH_WATERMARK + 400_000);
    // The scrollback is bounded too.
    expect(session.replay().length).toBeLessThanOrEqual(2_000_000 + 200_000);
  }, 300_000);

  it('holds a fast producer at the high watermark while its window does not acknowledge, and ends it on close', async () => {
    const file = profile(`  preset: custom
  command: node
  args: ["${path.join(fixtures, 'flood.mjs')}", "1000000"]
  autostart: false`);
    host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    const launch = await host.launch(file, { httpPort: 0 });
    const opened = await host.openTerminal(launch.id);
    if ('unavailable' in opened) throw new Error(opened.unavailable);
    const session = host.terminals.get(opened.id)!;
    session.joinFlowControl(); // and never acknowledges anything
    let received = 0;
    session.on('data', (chunk) => (received += chunk.length));
    await waitFor(() => session.flowState().paused, { timeoutMs: 30_000 });
    const atPause = received;
    // Paused, the program blocks on its writes: output stops growing, memory stays bounded.
    await new Promise((r) => setTimeout(r, 500));
    expect(received - atPause).toBeLessThan(300_000);
    expect(session.flowState().unacked).toBeLessThan(HIGH_WATERMARK + 400_000);
    expect(session.status().exit).toBeUndefined();
    host.terminals.close(opened.id);
    await waitFor(() => session.status().exit !== undefined, { timeoutMs: 10_000 });
  }, 120_000);
});
