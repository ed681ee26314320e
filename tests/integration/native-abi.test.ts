// A native module built for another Node: `bin/gatehouse gateway` started by a Node 22 (a client
// with Node 22 first on its PATH) while better-sqlite3 and node-pty are built for the project's
// Node 20. The audit store turns off with one warning line naming the fix; the gateway keeps
// serving. The Node 22 comes from tools/node22/ (its own lockfile; scripts/ensure-tools-package.mjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TerminalManager } from '../../main/agents/terminal-manager';
import { Host } from '../../main/host';
import { isNativeLoadError, nativeLoadProblem } from '../../main/native/abi-mismatch';
import { ensureToolsPackage } from '../support/tools-package';
import { repoRoot } from '../support/supervisor';
import { tempDir, writeProfile } from '../support/temp';

const node22 = ensureToolsPackage('node22');

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('gatehouse-abi-');
});
afterAll(() => tmp?.cleanup());

/** The error a Node 22 really throws when it loads `module` built for this Node. */
function loadErrorUnderNode22(module: string): Error {
  const r = spawnSync(node22.node!, ['-e', `try { require(${JSON.stringify(module)}) && new (require(${JSON.stringify(module)}))(':memory:'); console.log('{}') } catch (e) { console.log(JSON.stringify({ message: e.message, code: e.code })) }`], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  const { message, code } = JSON.parse(r.stdout.trim().split('\n').pop()!) as { message?: string; code?: string };
  if (!message) throw new Error(`${module} loaded under Node 22: nothing to test (was it rebuilt for Node 22?)`);
  return Object.assign(new Error(message), { code });
}

describe.skipIf(node22.skip)('native modules built for another Node', () => {
  beforeAll(() => {
    if (!node22.ok) throw new Error(`tools/node22 is not usable: ${node22.reason}. Install it with: ${node22.fix}`);
  });

  it('names the module, both Nodes and the fix, from the real loader errors', () => {
    // node-pty 1.x is an N-API addon and loads in any Node; better-sqlite3 is not, so its real
    // error stands in for both.
    const err = loadErrorUnderNode22('better-sqlite3');
    for (const [module, feature] of [
      ['better-sqlite3', 'the audit store is off'],
      ['node-pty', 'terminals are unavailable'],
    ] as const) {
      expect(isNativeLoadError(err)).toBe(true);
      const line = nativeLoadProblem(err, module, feature)!;
      expect(line).toMatch(new RegExp(`^${feature}: ${module} was built for Node 20 \\(NODE_MODULE_VERSION 115\\) but this is Node ${process.versions.node.replace(/\./g, '\\.')} \\(127\\); run \`npm rebuild ${module}\` with this Node, or start Gatehouse with Node 20$`));
      expect(line).not.toContain('\n');
    }
    expect(nativeLoadProblem(new Error('ENOENT: no such file'), 'better-sqlite3', 'x')).toBeUndefined();
  });

  it('a pty backend that cannot load makes terminals unavailable, saying why and how to fix it', async () => {
    const file = writeProfile(tmp.dir, 'name: pty\nworkspace: ./ws\nservers: {}\nagent:\n  preset: shell\n', 'pty.yaml');
    const host = new Host({ dataDir: path.join(tmp.dir, 'pty-data'), audit: false });
    try {
      const launch = await host.launch(file, { httpPort: 0 });
      const err = loadErrorUnderNode22('better-sqlite3');
      const terminals = new TerminalManager({
        dataDir: path.join(tmp.dir, 'pty-data'),
        hostEnv: process.env,
        searchPath: async () => process.env.PATH ?? '',
        loadBackend: () => {
          throw err;
        },
      });
      const opened = await terminals.open({ launchId: launch.id, profile: launch.profile, url: launch.endpoint!.url, tokens: { issue: (label) => launch.endpoint!.issueToken(label) } });
      expect(opened).toMatchObject({ install: 'npm rebuild node-pty' });
      expect('unavailable' in opened && opened.unavailable).toMatch(/^terminals are unavailable: node-pty was built for Node 20 .*npm rebuild node-pty/);
      // The host itself still serves: the gateway answers.
      expect(launch.gateway.capabilitiesReport().contract_version).toBe('2');
    } finally {
      await host.shutdown();
    }
  });

  it('bin/gatehouse gateway under Node 22 keeps serving tools, with one warning line on stderr', async () => {
    const file = writeProfile(tmp.dir, 'name: abi\nworkspace: ./ws\nservers:\n  workspace:\n    builtin: workspace-tools\npolicy:\n  default: allow\n', 'abi.yaml');
    writeFileSync(path.join(tmp.dir, 'ws', 'hello.txt'), 'hello from Node 22\n');
    const dataDir = path.join(tmp.dir, 'data');
    const transport = new StdioClientTransport({
      command: node22.node!,
      args: [path.join(repoRoot, 'bin', 'gatehouse'), 'gateway', '--profile', file, '--data-dir', dataDir],
      env: { PATH: process.env.PATH ?? '', HOME: tmp.dir },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'abi-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'read_file', arguments: { file_path: 'hello.txt' } });
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect((r.structuredContent as { file_content: string }).file_content).toBe('hello from Node 22\n');
      const caps = await client.callTool({ name: 'gatehouse_capabilities', arguments: {} });
      expect(caps.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const warnings = stderr.split('\n').filter((l) => l.includes('the audit store is off'));
    expect(warnings, stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(/^gatehouse: the audit store is off: better-sqlite3 was built for Node 20 .* run `npm rebuild better-sqlite3` with this Node, or start Gatehouse with Node 20$/);
    expect(stderr).not.toMatch(/internal error|compiled against a different Node\.js version/);
    // Nothing was recorded, and nothing pretended to be.
    expect(existsSync(path.join(dataDir, 'gatehouse.db'))).toBe(false);
  }, 120_000);
});
