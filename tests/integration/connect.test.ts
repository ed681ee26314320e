import { buildTestBundle, type TestBundle } from '../support/build';
// `gatehouse connect` as a user runs it: printing each client's configuration, and --write
// merging into an existing file in a temporary HOME without losing entries, with a .bak.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { buildClientConfigs } from '../../main/api/connect-configs';
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
  // The workspace is the project folder: project-scoped files (.mcp.json…) go there by default.
  fs.writeFileSync(profile, 'name: team\nworkspace: ./project\nservers:\n  echo:\n    command: node\n');
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
    // Codex starts stdio servers without the user's environment: the data dir goes into the args.
    const codex = run(['--profile', profile, '--client', 'codex']);
    const defaultData = path.join(home, '.local', 'state', 'gatehouse');
    expect(parseToml(codex.stdout)).toEqual({
      mcp_servers: {
        gatehouse: { command: path.join(repoRoot, 'bin', 'gatehouse'), args: ['gateway', '--profile', profile, '--quiet', '--profiles-dir', env.GATEHOUSE_PROFILES_DIR, '--data-dir', defaultData] },
      },
    });
    expect(codex.stderr).toMatch(/--data-dir/);
    expect(codex.stderr).toMatch(/--profiles-dir/);
    env.GATEHOUSE_DATA_DIR = path.join(tmp, 'my-data');
    expect((parseToml(run(['--profile', profile, '--client', 'codex']).stdout) as { mcp_servers: { gatehouse: { args: string[] } } }).mcp_servers.gatehouse.args.slice(-2)).toEqual(['--data-dir', path.join(tmp, 'my-data')]);
    expect((parseToml(run(['--profile', profile, '--client', 'codex', '--data-dir', 'rel/dir']).stdout) as { mcp_servers: { gatehouse: { args: string[] } } }).mcp_servers.gatehouse.args.slice(-2)).toEqual(['--data-dir', path.join(project, 'rel', 'dir')]);
  });

  it("puts project-scoped files in the profile's workspace, wherever it is run from (the window too)", () => {
    const elsewhere = spawnSync(process.execPath, [cli, 'connect', '--profile', profile, '--client', 'claude-code', '--url', URL], { env, cwd: home, encoding: 'utf8', timeout: 20_000 });
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    expect(elsewhere.stderr).toContain(`this goes in ${path.join(project, '.mcp.json')}`);
    expect(elsewhere.stderr).not.toContain(path.join(home, '.mcp.json'));
    const vscode = spawnSync(process.execPath, [cli, 'connect', '--profile', profile, '--client', 'vscode', '--url', URL], { env, cwd: home, encoding: 'utf8', timeout: 20_000 });
    expect(vscode.stderr).toContain(path.join(project, '.vscode', 'mcp.json'));
    const chosen = path.join(tmp, 'other');
    const override = run(['--profile', profile, '--client', 'claude-code', '--url', URL, '--project-dir', chosen]);
    expect(override.stderr).toContain(`this goes in ${path.join(chosen, '.mcp.json')}`);
    // The window's Connect view: the launch's workspace, not the folder Gatehouse was started from.
    const window = buildClientConfigs({ url: URL, profileName: 'team', profileFile: profile, workspace: project });
    expect(window.configs.find((c) => c.client === 'claude-code')!.where).toBe(path.join(project, '.mcp.json'));
    expect(window.configs.find((c) => c.client === 'vscode')!.where).toBe(path.join(project, '.vscode', 'mcp.json'));
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
    const merged = parseJsonc(fs.readFileSync(vscode, 'utf8'));
    expect(Object.keys(merged.servers)).toEqual(['fetch', 'gatehouse']);
    expect(merged.inputs).toEqual([expect.objectContaining({ id: 'gatehouse-token', password: true })]);
  });

  it('twice into a commented VS Code mcp.json: comments, other servers and the first backup survive; stdio drops the token input', () => {
    const vscode = path.join(project, '.vscode', 'mcp.json');
    fs.mkdirSync(path.dirname(vscode));
    const original = [
      '// Project MCP servers (team-owned: keep this comment)',
      '{',
      '    "inputs": [',
      '        // the API key for fetch',
      '        { "type": "promptString", "id": "fetch-key", "password": true }',
      '    ],',
      '    "servers": {',
      '        /* the fetch server */',
      '        "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "env": { "KEY": "${input:fetch-key}" } },',
      '    },',
      '}',
      '',
    ].join('\n');
    fs.writeFileSync(vscode, original);
    const first = run(['--profile', profile, '--client', 'vscode', '--url', URL, '--write', '--yes']);
    expect(first.status, first.stderr).toBe(0);
    const afterFirst = fs.readFileSync(vscode, 'utf8');
    for (const kept of ['// Project MCP servers (team-owned: keep this comment)', '// the API key for fetch', '/* the fetch server */', '"fetch": { "type": "stdio", "command": "uvx"']) expect(afterFirst).toContain(kept);
    expect(afterFirst).toMatch(/^ {8}"gatehouse": \{$/m); // written in the file's own 4-space indentation
    expect(parseJsonc(afterFirst).inputs.map((i: { id: string }) => i.id)).toEqual(['fetch-key', 'gatehouse-token']);
    expect(fs.readFileSync(`${vscode}.bak`, 'utf8')).toBe(original);
    // The diff shows our lines only, not a re-indented file: a line of the user's changes only by
    // the comma that now follows it.
    const lines = first.stdout.split('\n');
    const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---'));
    expect(removed).toEqual(['-        { "type": "promptString", "id": "fetch-key", "password": true }']);
    expect(lines).toContain('+        { "type": "promptString", "id": "fetch-key", "password": true },');

    const second = run(['--profile', profile, '--client', 'vscode', '--transport', 'stdio', '--write', '--yes']);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toContain(`${vscode}.bak.2`);
    const afterSecond = fs.readFileSync(vscode, 'utf8');
    for (const kept of ['// Project MCP servers (team-owned: keep this comment)', '// the API key for fetch', '/* the fetch server */']) expect(afterSecond).toContain(kept);
    const doc = parseJsonc(afterSecond);
    expect(Object.keys(doc.servers)).toEqual(['fetch', 'gatehouse']);
    expect(doc.servers.gatehouse).toEqual({ type: 'stdio', command: path.join(repoRoot, 'bin', 'gatehouse'), args: ['gateway', '--profile', profile, '--quiet'] });
    // The token prompt is not used any more: gone; the user's own input stays.
    expect(doc.inputs.map((i: { id: string }) => i.id)).toEqual(['fetch-key']);
    expect(afterSecond).not.toContain('gatehouse-token');
    // The first backup is still the user's original; the second holds the first write.
    expect(fs.readFileSync(`${vscode}.bak`, 'utf8')).toBe(original);
    expect(fs.readFileSync(`${vscode}.bak.2`, 'utf8')).toBe(afterFirst);
    expect(afterSecond).not.toContain(TOKEN);
  });

  it('the window and the CLI give the same text for the same choice', () => {
    const dataDir = path.join(home, '.local', 'state', 'gatehouse');
    const checked = new Set<string>();
    for (const transport of [undefined, 'http', 'stdio'] as const) {
      const window = buildClientConfigs({ url: URL, profileName: 'team', profileFile: profile, dataDir, profilesDir: env.GATEHOUSE_PROFILES_DIR, ...(transport ? { transport } : {}) });
      for (const cfg of window.configs) {
        if (checked.has(cfg.command)) continue; // the same command line: the same text was compared already
        checked.add(cfg.command);
        const args = cfg.command.split(' ');
        expect(args.slice(0, 2)).toEqual(['gatehouse', 'connect']);
        const r = run(args.slice(2));
        expect(r.status, `${cfg.command}: ${r.stderr}`).toBe(0);
        expect(r.stdout, cfg.command).toBe(cfg.text);
      }
      // Without a choice, a client that speaks HTTP gets it in both (the window knows the URL; so does --url).
      if (!transport) expect(window.configs.find((c) => c.client === 'claude-code')!.transport).toBe('http');
    }
    expect(run(['--profile', profile, '--client', 'claude-code', '--transport', 'http']).stderr).toMatch(/needs the running gateway's URL: pass --url/);
    expect(run(['--profile', profile, '--client', 'claude-code', '--transport', 'sse']).status).toBe(2);
  }, 180_000);

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
