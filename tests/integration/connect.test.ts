import { buildTestBundle, type TestBundle } from '../support/build';
// `gatehouse connect` as a user runs it: printing each client's configuration, and --write
// merging into an existing file in a temporary HOME without losing entries, with a .bak.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/supervisor';

// A private bundle (tests/support/build.ts), so this test never races a run rewriting out/cli.mjs.
let bundle: TestBundle;
let cli: string;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'connect-test');
  cli = bundle.entry('cli');
}, 60_000);
afterAll(() => bundle.cleanup());

const URL = 'http://127.0.0.1:45678/mcp';
const TOKEN = 'secret-token-value-never-printed';
let tmp: string;
let home: string;
let project: string;
let profile: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-connect-'));
  home = path.join(tmp, 'home');
  project = path.join(tmp, 'project');
  fs.mkdirSync(home);
  fs.mkdirSync(project);
  profile = path.join(tmp, 'team.yaml');
  fs.writeFileSync(profile, 'name: team\nworkspace: .\nservers:\n  echo:\n    command: node\n');
  env = { PATH: process.env.PATH, HOME: home, GATEHOUSE_PROFILES_DIR: path.join(tmp, 'profiles'), GATEHOUSE_TOKEN: TOKEN };
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const run = (args: string[], input?: string) => spawnSync(process.execPath, [cli, 'connect', ...args], { env, cwd: project, encoding: 'utf8', input, timeout: 20_000 });

describe('printing', () => {
  it('prints the HTTP form with a token reference, and notes on stderr', () => {
    const r = run(['--profile', profile, '--client', 'claude-code', '--url', URL]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ mcpServers: { gatehouse: { type: 'http', url: URL, headers: { Authorization: 'Bearer ${GATEHOUSE_TOKEN}' } } } });
    expect(r.stderr).toContain(path.join(project, '.mcp.json'));
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('prints the stdio form for Claude Desktop and for any client without --url', () => {
    for (const client of ['claude-desktop', 'cursor', 'gemini']) {
      const r = run(['--profile', profile, '--client', client]);
      expect(r.status).toBe(0);
      const entry = JSON.parse(r.stdout).mcpServers.gatehouse;
      expect(entry).toEqual({ command: path.join(repoRoot, 'bin', 'gatehouse'), args: ['gateway', '--profile', profile, '--quiet'] });
    }
    const codex = run(['--profile', profile, '--client', 'codex']);
    expect(parseToml(codex.stdout)).toEqual({ mcp_servers: { gatehouse: { command: path.join(repoRoot, 'bin', 'gatehouse'), args: ['gateway', '--profile', profile, '--quiet'] } } });
  });

  it('exits 2 on usage errors and 1 on a bad profile', () => {
    expect(run(['--client', 'codex']).status).toBe(2);
    expect(run(['--profile', profile]).status).toBe(2);
    expect(run(['--profile', profile, '--client', 'notepad']).status).toBe(2);
    expect(run(['--profile', profile, '--client', 'codex', '--url', 'ftp://x']).status).toBe(2);
    expect(run(['--profile', profile, '--client', 'codex', '--yes']).status).toBe(2);
    fs.writeFileSync(profile, 'servers: 3\n');
    const bad = run(['--profile', profile, '--client', 'codex']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(profile);
    expect(run(['--profile', 'no-such-profile', '--client', 'codex']).status).toBe(1);
  });
});

describe('--write', () => {
  it('merges into an existing Codex config.toml without losing entries or comments, keeping a .bak', () => {
    const file = path.join(home, '.codex', 'config.toml');
    fs.mkdirSync(path.dirname(file));
    const before = '# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-server" # keep\n';
    fs.writeFileSync(file, before);
    const r = run(['--profile', profile, '--client', 'codex', '--url', URL, '--write', '--yes']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^--- ${file}\\n\\+\\+\\+ ${file}\\n@@ `));
    expect(r.stdout).toContain('+[mcp_servers.gatehouse]');
    expect(r.stderr).toContain(`${file}.bak`);
    expect(fs.readFileSync(`${file}.bak`, 'utf8')).toBe(before);
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(parseToml(after)).toEqual({ model: 'o3', mcp_servers: { docs: { command: 'docs-server' }, gatehouse: { url: URL, bearer_token_env_var: 'GATEHOUSE_TOKEN' } } });
    expect(after).not.toContain(TOKEN);

    // Running it again changes nothing.
    const again = run(['--profile', profile, '--client', 'codex', '--url', URL, '--write', '--yes']);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/nothing to change/);
  });

  it('merges into an existing Cursor mcp.json and VS Code mcp.json', () => {
    const cursor = path.join(home, '.cursor', 'mcp.json');
    fs.mkdirSync(path.dirname(cursor));
    fs.writeFileSync(cursor, JSON.stringify({ mcpServers: { notion: { command: 'npx', args: ['-y', '@notionhq/notion-mcp-server'] } } }, null, 2));
    expect(run(['--profile', profile, '--client', 'cursor', '--url', URL, '--write', '--yes']).status).toBe(0);
    expect(Object.keys(JSON.parse(fs.readFileSync(cursor, 'utf8')).mcpServers)).toEqual(['notion', 'gatehouse']);
    expect(fs.existsSync(`${cursor}.bak`)).toBe(true);

    const vscode = path.join(project, '.vscode', 'mcp.json');
    fs.mkdirSync(path.dirname(vscode));
    fs.writeFileSync(vscode, '{\n  "servers": { "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"] } },\n}\n');
    expect(run(['--profile', profile, '--client', 'vscode', '--url', URL, '--write', '--yes']).status).toBe(0);
    const merged = JSON.parse(fs.readFileSync(vscode, 'utf8'));
    expect(Object.keys(merged.servers)).toEqual(['fetch', 'gatehouse']);
    expect(merged.inputs).toEqual([expect.objectContaining({ id: 'gatehouse-token', password: true })]);
  });

  it('creates a missing file after a "y", and writes nothing after a "n" or end of input', () => {
    const file = path.join(home, '.gemini', 'settings.json');
    const no = run(['--profile', profile, '--client', 'gemini', '--url', URL, '--write'], 'n\n');
    expect(no.status).toBe(1);
    expect(no.stdout).toMatch(/^--- \/dev\/null\n/);
    expect(no.stderr).toMatch(/Create .*settings\.json\? \[y\/N\] nothing written/);
    expect(fs.existsSync(file)).toBe(false);
    expect(run(['--profile', profile, '--client', 'gemini', '--url', URL, '--write'], '').status).toBe(1);
    expect(fs.existsSync(file)).toBe(false);

    const yes = run(['--profile', profile, '--client', 'gemini', '--url', URL, '--write'], 'y\n');
    expect(yes.status).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.gatehouse.httpUrl).toBe(URL);
    expect(fs.existsSync(`${file}.bak`)).toBe(false);
  });

  it('refuses to merge into a file it cannot parse, leaving it untouched', () => {
    const file = path.join(project, '.mcp.json');
    fs.writeFileSync(file, '{ not json');
    const r = run(['--profile', profile, '--client', 'claude-code', '--url', URL, '--write', '--yes']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot merge into/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ not json');
  });
});
