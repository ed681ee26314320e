// `gatehouse connect --client inspector` as a user runs it, then the real MCP Inspector CLI on the
// file it wrote, with the command line it printed, under an EMPTY environment (PATH only): the
// Inspector, like Codex, passes a stdio server no GATEHOUSE_* variables, so the data dir and the
// profiles folder must travel as the gateway's arguments (docs/gateway.md, "Connecting a client").
// The HTTP form needs the gateway's token, which the Inspector's command line carries as a header.
// Uses the built bundle (out/cli.mjs, out/tools-server.mjs, like inspector-strict.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureToolsPackage } from '../support/tools-package';
import { repoRoot } from '../support/supervisor';
import { tempDir } from '../support/temp';

const inspector = ensureToolsPackage('inspector');
const gatehouse = path.join(repoRoot, 'bin', 'gatehouse');
const TOKEN = 'inspector-test-token-never-printed-0123456789';
// The CLI runs only when argv[1] is its real path (it compares them; tools/*/node_modules may be a symlink).
const inspectorCli = () => realpathSync(inspector.cli!);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A shell command line under `env -i PATH=…` (plus `extra`), in `cwd`. */
function sh(line: string, cwd: string, extra: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const vars = Object.entries({ PATH: process.env.PATH ?? '', ...extra }).map(([k, v]) => `${k}=${v}`);
    const child = spawn('/usr/bin/env', ['-i', ...vars, '/bin/sh', '-c', line], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The Inspector command line `gatehouse connect` printed ("Run it: …"), with `npx
 * @modelcontextprotocol/inspector --cli` replaced by the installed CLI (no registry here).
 */
function runLine(connectStderr: string): string {
  const m = /Run it: (npx @modelcontextprotocol\/inspector --cli )(.*) \(without --cli/.exec(connectStderr);
  if (!m) throw new Error(`gatehouse connect printed no Inspector command line: ${connectStderr}`);
  return `${q(inspector.node!)} ${q(inspectorCli())} ${m[2]} --format json`;
}

function toolNames(run: Run): string[] {
  const line = run.stdout.trim().split('\n').pop() ?? '';
  try {
    return ((JSON.parse(line) as { result: { tools: { name: string }[] } }).result.tools ?? []).map((t) => t.name);
  } catch {
    throw new Error(`the Inspector printed no tool list (exit ${run.code}): ${run.stdout.slice(0, 500)} ${run.stderr.slice(0, 2000)}`);
  }
}

let tmp: ReturnType<typeof tempDir>;
let home: string;
let dataDir: string;
let profilesDir: string;
let profile: string;
let connectEnv: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir('gatehouse-connect-inspector-');
  home = path.join(tmp.dir, 'home');
  dataDir = path.join(tmp.dir, 'data');
  profilesDir = path.join(tmp.dir, 'profiles');
  for (const d of [home, profilesDir, path.join(tmp.dir, 'ws')]) mkdirSync(d, { recursive: true });
  profile = path.join(profilesDir, 'insp.yaml');
  writeFileSync(profile, 'name: insp\nworkspace: ../ws\nservers:\n  workspace:\n    builtin: workspace-tools\n');
  // The user's shell: GATEHOUSE_DATA_DIR and GATEHOUSE_PROFILES_DIR set, which the Inspector will not pass on.
  connectEnv = { PATH: process.env.PATH, HOME: home, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_PROFILES_DIR: profilesDir };
});
afterAll(() => tmp?.cleanup());

const connect = (args: string[]) => spawnSync(process.execPath, [gatehouse, 'connect', '--profile', profile, '--client', 'inspector', ...args], { env: connectEnv, cwd: tmp.dir, encoding: 'utf8', timeout: 30_000 });

describe.skipIf(inspector.skip)('gatehouse connect --client inspector, run by the real Inspector', () => {
  beforeAll(() => {
    if (!inspector.ok) throw new Error(`the Inspector is not usable: ${inspector.reason}. Install it with: ${inspector.fix}`);
    if (!existsSync(path.join(repoRoot, 'out', 'cli.mjs'))) throw new Error('out/cli.mjs is missing: run `node scripts/build.mjs` first');
  });

  it('stdio: the written mcp.json starts the gateway with an empty environment, on the same data dir', async () => {
    const w = connect(['--write', '--yes']);
    expect(w.status, w.stderr).toBe(0);
    const file = path.join(home, '.mcp-inspector', 'mcp.json');
    const entry = JSON.parse(readFileSync(file, 'utf8')).mcpServers.gatehouse;
    expect(entry).toEqual({ type: 'stdio', command: gatehouse, args: ['gateway', '--profile', profile, '--quiet', '--profiles-dir', profilesDir, '--data-dir', dataDir] });

    const run = await sh(runLine(w.stderr), tmp.dir);
    const names = toolNames(run);
    expect(names).toContain('gatehouse_capabilities');
    expect(names).toContain('read_file');
    expect(run.code).toBe(0);
    // The gateway kept its audit in the user's data dir (the one GATEHOUSE_DATA_DIR named), not in some default.
    expect(existsSync(path.join(dataDir, 'gatehouse.db'))).toBe(true);
  }, 120_000);

  it('gateway --profiles-dir: a profile found by name with no GATEHOUSE_PROFILES_DIR in the environment', async () => {
    const byName = path.join(tmp.dir, 'by-name.json');
    const args = ['gateway', '--profile', 'insp', '--quiet', '--profiles-dir', profilesDir, '--data-dir', path.join(tmp.dir, 'data-by-name')];
    writeFileSync(byName, JSON.stringify({ mcpServers: { gatehouse: { type: 'stdio', command: gatehouse, args } } }));
    const line = `${q(inspector.node!)} ${q(inspectorCli())} --config ${q(byName)} --server gatehouse --method tools/list --format json`;
    const found = await sh(line, tmp.dir);
    expect(toolNames(found)).toContain('read_file');
    // The control: without the flag, the name is looked up elsewhere and not found.
    writeFileSync(byName, JSON.stringify({ mcpServers: { gatehouse: { type: 'stdio', command: gatehouse, args: args.filter((a, i) => a !== '--profiles-dir' && args[i - 1] !== '--profiles-dir') } } }));
    const missing = await sh(line, tmp.dir);
    expect(missing.code).not.toBe(0);
  }, 120_000);

  describe('over HTTP', () => {
    let gateway: ChildProcess;
    let url: string;
    beforeAll(async () => {
      gateway = spawn(process.execPath, [gatehouse, 'gateway', '--profile', profile, '--http', '0', '--data-dir', path.join(tmp.dir, 'data-http')], {
        env: { ...connectEnv, GATEHOUSE_TOKEN: TOKEN },
        cwd: tmp.dir,
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      url = await new Promise<string>((resolve, reject) => {
        let err = '';
        const timer = setTimeout(() => reject(new Error(`the gateway printed no URL: ${err}`)), 60_000);
        gateway.stderr!.on('data', (c: Buffer) => {
          err += c.toString();
          const m = /listening on (http:\/\/\S+)/.exec(err);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        gateway.on('exit', (code) => reject(new Error(`the gateway exited (${code}): ${err}`)));
      });
    }, 90_000);
    afterAll(() => {
      gateway?.kill('SIGTERM');
    });

    it('the streamable-http entry, with the token header from the shell, lists the tools; without it, none', async () => {
      const file = path.join(tmp.dir, 'http', 'mcp.json');
      connectEnv.MCP_CATALOG_PATH = file;
      const w = connect(['--url', url, '--write', '--yes']);
      expect(w.status, w.stderr).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(JSON.parse(text).mcpServers.gatehouse).toEqual({ type: 'streamable-http', url });
      expect(text + w.stdout + w.stderr).not.toContain(TOKEN);

      const line = runLine(w.stderr);
      expect(line).toContain('--header "Authorization: Bearer $GATEHOUSE_TOKEN"');
      const run = await sh(line, tmp.dir, { GATEHOUSE_TOKEN: TOKEN });
      expect(toolNames(run)).toContain('read_file');
      expect(run.code).toBe(0);

      // The boundary: the same command with a wrong token gets no tools.
      const wrong = await sh(line, tmp.dir, { GATEHOUSE_TOKEN: 'not-the-token' });
      expect(wrong.code).not.toBe(0);
      expect(wrong.stdout).not.toContain('read_file');
    }, 120_000);
  });
});
