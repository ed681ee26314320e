// The supervisor against the reference MCP servers from npm (bare names resolve through
// Gatehouse's node_modules/.bin): they start from a profile and answer tools/list, their
// environment is exactly the least-privilege set, and a missing command fails at once.
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host } from '../../main/host';
import { tempDir, writeProfile } from '../support/temp';
import { FAST_RESTART, profileYaml } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup(env?: NodeJS.ProcessEnv) {
  const tmp = tempDir();
  const host = new Host({ dataDir: path.join(tmp.dir, 'data'), env, stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(tmp.cleanup, () => host.shutdown());
  return { dir: tmp.dir, host };
}

describe('reference servers from npm', () => {
  it('filesystem, memory and everything start from a profile and answer tools/list', async () => {
    const { dir, host } = setup();
    const file = writeProfile(
      dir,
      profileYaml('refs', {
        files: { command: 'mcp-server-filesystem', args: ['${workspace}'] },
        memory: { command: 'mcp-server-memory', env: { MEMORY_FILE_PATH: '${data}/memory.jsonl' } },
        everything: { command: 'mcp-server-everything', args: ['stdio'] },
      }),
    );
    const launch = await host.launch(file);
    const states = Object.fromEntries(launch.statuses().map((s) => [s.id, s.state]));
    expect(states).toEqual({ files: 'ready', memory: 'ready', everything: 'ready' });

    for (const [id, expected] of [
      ['files', 'list_directory'],
      ['memory', 'create_entities'],
      ['everything', 'echo'],
    ] as const) {
      const server = launch.supervisor.get(id)!;
      expect(server.status().pid).toBeGreaterThan(0);
      const { tools } = await server.client!.listTools();
      expect(tools.map((t) => t.name)).toContain(expected);
      expect(server.tools().map((t) => t.name)).toContain(expected);
      expect(server.status().toolCount).toBe(tools.length);
    }
  }, 60_000);
});

describe('least privilege environment', () => {
  it("server-everything's get-env shows only the safe set, the profile env and inherit_env", async () => {
    const { dir, host } = setup({
      ...process.env,
      GATEHOUSE_CANARY: 'canary-must-not-leak',
      GATEHOUSE_PASSED: 'passed-through',
      GATEHOUSE_NOT_LISTED: 'not-listed',
    });
    const file = writeProfile(
      dir,
      profileYaml('env', {
        everything: {
          command: 'mcp-server-everything',
          args: ['stdio'],
          env: { PROFILE_VAR: 'from-the-profile', COPIED: '${env:GATEHOUSE_PASSED}' },
          inherit_env: ['GATEHOUSE_PASSED', 'GATEHOUSE_ABSENT_VAR'],
          restart: FAST_RESTART,
        },
      }),
    );
    const launch = await host.launch(file);
    const server = launch.supervisor.get('everything')!;
    expect(server.status().state).toBe('ready');
    const names = server.tools().map((t) => t.name);
    expect(names).toContain('get-env');

    const res = await server.client!.request({ method: 'tools/call', params: { name: 'get-env', arguments: {} } }, CallToolResultSchema);
    const text = (res.content[0] as { text: string }).text;
    const env = JSON.parse(text) as Record<string, string>;

    expect(env.GATEHOUSE_CANARY).toBeUndefined();
    expect(env.GATEHOUSE_NOT_LISTED).toBeUndefined();
    expect(env.PROFILE_VAR).toBe('from-the-profile');
    expect(env.COPIED).toBe('passed-through');
    expect(env.GATEHOUSE_PASSED).toBe('passed-through');
    expect(env.GATEHOUSE_ABSENT_VAR).toBeUndefined();
    expect(text).not.toContain('canary-must-not-leak');
    // Plus what the sandbox itself sets (it runs strict by default): TMPDIR (its private /tmp) and
    // PWD (bwrap's --chdir); neither carries anything of the host.
    const allowed = new Set(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'PROFILE_VAR', 'COPIED', 'GATEHOUSE_PASSED', 'TMPDIR', 'PWD']);
    expect(env.TMPDIR ?? '/tmp').toBe('/tmp');
    expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
  }, 60_000);
});

describe('missing command', () => {
  it('fails at once, naming the PATH searched, without a restart loop', async () => {
    const { dir, host } = setup();
    const file = writeProfile(
      dir,
      profileYaml('missing', {
        ghost: { command: 'no-such-binary-xyz', restart: { ...FAST_RESTART, max_restarts: 5 } },
      }),
    );
    const seen: string[] = [];
    host.on('server-status', (_id, s) => seen.push(s.state));
    const launch = await host.launch(file);
    const status = launch.supervisor.get('ghost')!.status();
    expect(status.state).toBe('failed');
    expect(status.reason).toContain("'no-such-binary-xyz' not found");
    expect(status.reason).toContain('searched PATH');
    expect(status.reason).toContain('not restarted');
    expect(status.reason).not.toContain('gave up after');
    expect(status.reason).toContain(path.join('node_modules', '.bin'));
    expect(status.restarts).toBe(0);
    expect(status.run).toBe(1);
    expect(seen).not.toContain('restarting');
    expect(seen.at(-1)).toBe('failed');
  });
});
