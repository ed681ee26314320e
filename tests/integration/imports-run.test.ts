// An imported Claude Desktop config runs (docs/packages.md): six servers as people write them
// (npx ×3, uvx, docker, a program by absolute path, one of them with a filesystem root outside
// the workspace) import and launch with no edit. Every server that can run offline on this
// machine starts, sandboxed, the filesystem root visible through the grant the import made; the
// ones that cannot (PyPI blocked, no Docker engine) stop with one line each saying why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ServerStatus } from '../../main/supervisor/types';
import { Host, type Launch } from '../../main/host';
import { importFile } from '../../main/profiles/importers/index';
import { tempDir } from '../support/temp';
import { serverFixture } from '../support/supervisor';
import { autoApprover, connectHttp, textOf } from '../support/gateway';

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let projects: string;
let warnings: string[];
const hasDocker = spawnSync('sh', ['-c', 'command -v docker']).status === 0;
const byId = (): Record<string, ServerStatus> => Object.fromEntries(launch.statuses().map((s) => [s.id, s]));

beforeAll(async () => {
  tmp = tempDir('gatehouse-imports-run-');
  projects = path.join(tmp.dir, 'projects');
  mkdirSync(projects);
  writeFileSync(path.join(projects, 'plan.md'), 'the plan\n');
  const ws = path.join(tmp.dir, 'ws');
  mkdirSync(ws);
  // A server run by its absolute path, as people point at a checkout.
  const bin = path.join(tmp.dir, 'bin');
  mkdirSync(bin);
  const local = path.join(bin, 'probe-server.mjs');
  copyFileSync(serverFixture('probe-server.mjs'), local);
  writeFileSync(local, `#!/usr/bin/env node\n${readFileSync(local, 'utf8')}`);
  chmodSync(local, 0o755);
  const config = path.join(tmp.dir, 'claude_desktop_config.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', projects] },
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'] },
        fetch: { command: 'uvx', args: ['mcp-server-fetch'] },
        github: { command: 'docker', args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_FAKEfake0123456789FAKEfake0123456789' } },
        local: { command: local },
      },
    }),
  );
  const imported = importFile(config, { out: path.join(tmp.dir, 'imported.yaml'), workspace: ws });
  warnings = imported.warnings;
  const secrets = Object.fromEntries(imported.secrets.map((s) => [`GATEHOUSE_SECRET_${s.name}`, 'ghp_FAKEfake0123456789FAKEfake0123456789']));
  host = new Host({
    dataDir: path.join(tmp.dir, 'data'),
    env: { ...process.env, ...secrets, GATEHOUSE_PACKAGE_CACHE: path.join(tmp.dir, 'cache'), PIP_INDEX_URL: 'http://127.0.0.1:9/simple', DOCKER_HOST: `unix://${tmp.dir}/no-docker.sock` },
  });
  launch = await host.launch(imported.file, { httpPort: 0, token: 'imports-run-token-1234567890' });
}, 300_000);

afterAll(async () => {
  await host?.shutdown();
  tmp?.cleanup();
});

describe('an imported Claude Desktop config of six servers', () => {
  it('shows the grant it made for the filesystem root in the review', () => {
    expect(warnings).toContainEqual(`mcpServers.filesystem: granted write ${projects} in its sandbox (absolute paths in its args)`);
  });

  it('starts every server that can run offline here, each sandboxed', () => {
    const s = byId();
    for (const id of ['filesystem', 'memory', 'everything', 'local']) {
      expect(s[id]!.state, `${id}: ${s[id]!.reason}`).toBe('ready');
      expect(['bubblewrap', 'landlock']).toContain(s[id]!.sandbox?.kind);
      expect(s[id]!.sandbox?.network).toBe('none');
    }
  });

  it('explains the two that cannot, in one line each', () => {
    const s = byId();
    expect(s.fetch!.state).not.toBe('ready');
    expect(s.fetch!.reason).toMatch(/^uvx package mcp-server-fetch could not be installed: /);
    expect(s.github!.state).not.toBe('ready');
    // The docker client is on this kind of machine; where it is not, the one line says that instead.
    expect(s.github!.reason).toMatch(hasDocker ? /^docker: no Docker engine is running here/ : /docker.*not found/);
    for (const id of ['fetch', 'github']) expect(s[id]!.reason).not.toContain('\n');
  });

  it('lets the filesystem server reach the root the source config gave it, through the sandbox', async () => {
    // An imported profile asks before every call (policy.default: approve): a person allows this one.
    const approver = autoApprover(host, () => 'allow_once');
    const client = await connectHttp(launch);
    try {
      const res = await client.callTool({ name: 'list_directory', arguments: { path: projects } });
      expect(res.isError ?? false, textOf(res)).toBe(false);
      expect(textOf(res)).toContain('plan.md');
    } finally {
      approver.detach();
      await client.close();
    }
  });
});
