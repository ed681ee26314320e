// Package launchers (docs/packages.md): a server written `npx -y pkg` is installed once into
// the package cache, outside the sandbox, and runs from there in a sandbox with no network (it
// used to hang on npx's registry retries under `network: none`). A second launch with the
// registry unreachable starts from the cache; a package that cannot be installed stops only its
// own server, with one line that says why, and the others start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { parseLauncher } from '../../main/packages/launchers';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml } from '../support/supervisor';
import { connectHttp, textOf } from '../support/gateway';

const MEMORY = '@modelcontextprotocol/server-memory';
/** A registry and a package index nothing listens on: "offline", whatever this machine can reach. */
const NOWHERE = 'http://127.0.0.1:9/';

let tmp: ReturnType<typeof tempDir>;
let cache: string;
let profileFile: string;

beforeAll(() => {
  tmp = tempDir('gatehouse-packages-');
  cache = path.join(tmp.dir, 'cache');
  profileFile = writeProfile(
    tmp.dir,
    profileYaml('package-launchers', {
      memory: { command: 'npx', args: ['-y', MEMORY], env: { MEMORY_FILE_PATH: '${workspace}/memory.jsonl' } },
      fetch: { command: 'uvx', args: ['mcp-server-fetch'] },
    }),
  );
});

afterAll(() => tmp?.cleanup());

function hostWith(env: NodeJS.ProcessEnv): Host {
  return new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_PACKAGE_CACHE: cache, PIP_INDEX_URL: `${NOWHERE}simple`, ...env } });
}

describe('package launchers', () => {
  it('reads what npx, uvx and pipx name', () => {
    expect(parseLauncher('npx', ['-y', '@scope/pkg@1.2.3', '--root', '/x'])).toMatchObject({ tool: 'npx', ecosystem: 'npm', name: '@scope/pkg', version: '1.2.3', rest: ['--root', '/x'] });
    expect(parseLauncher('npx', ['-y', '-p', 'pkg', 'prog', 'a'])).toMatchObject({ name: 'pkg', bin: 'prog', rest: ['a'] });
    expect(parseLauncher('/usr/bin/npx', ['pkg@latest'])).toMatchObject({ name: 'pkg', spec: 'pkg@latest' });
    expect(parseLauncher('npx', ['-y', './local-script.js'])).toBeUndefined();
    expect(parseLauncher('uvx', ['--from', 'git-mcp==2.0', 'git-server', '--repo', '.'])).toMatchObject({ ecosystem: 'pypi', name: 'git-mcp', version: '2.0', bin: 'git-server', rest: ['--repo', '.'] });
    expect(parseLauncher('uvx', ['mcp-server-fetch@2025.1.1'])).toMatchObject({ name: 'mcp-server-fetch', version: '2025.1.1', bin: 'mcp-server-fetch' });
    expect(parseLauncher('pipx', ['run', 'pkg'])).toMatchObject({ tool: 'pipx', name: 'pkg' });
    expect(parseLauncher('pipx', ['install', 'pkg'])).toBeUndefined();
    expect(parseLauncher('node', ['server.js'])).toBeUndefined();
  });

  it('installs the npx package once and runs it sandboxed with no network; a package that cannot be had stops only its server', async () => {
    const host = hostWith({});
    try {
      const launch = await host.launch(profileFile, { httpPort: 0, token: 'package-launchers-token-123456' });
      const byId = Object.fromEntries(launch.statuses().map((s) => [s.id, s]));
      expect(byId.memory!.state, byId.memory!.reason).toBe('ready');
      expect(byId.memory!.sandbox?.network).toBe('none');
      const command = byId.memory!.command ?? '';
      expect(command).toContain(cache);
      expect(command).not.toMatch(/\bnpx\b/);
      expect(launch.notices.join('\n')).toMatch(/memory: installed @modelcontextprotocol\/server-memory@\d/);
      // The installed server really answers through the gateway.
      const client = await connectHttp(launch);
      const graph = await client.callTool({ name: 'read_graph', arguments: {} });
      expect(graph.isError ?? false, textOf(graph)).toBe(false);
      await client.close();
      // PyPI is unreachable: one line says why, and nothing else is held up.
      expect(byId.fetch!.state).not.toBe('ready');
      expect(byId.fetch!.reason).toMatch(/^uvx package mcp-server-fetch could not be installed: /);
      expect(byId.fetch!.reason).not.toContain('\n');
      // No half-written install is left behind.
      for (const eco of ['npm', 'pypi']) {
        const dir = path.join(cache, eco);
        if (existsSync(dir)) expect(readdirSync(dir).filter((n) => n.startsWith('.partial-'))).toEqual([]);
      }
    } finally {
      await host.shutdown();
    }
  }, 240_000);

  it('starts from the cache with the registry unreachable', async () => {
    const host = hostWith({ npm_config_registry: NOWHERE });
    try {
      const launch = await host.launch(profileFile, { httpPort: 0, token: 'package-launchers-token-123456' });
      const memory = launch.statuses().find((s) => s.id === 'memory')!;
      expect(memory.state, memory.reason).toBe('ready');
      expect(launch.notices.join('\n')).not.toMatch(/installed/);
    } finally {
      await host.shutdown();
    }
  }, 120_000);
});
