// Every generated client configuration parses in its client's format, never embeds a token, and
// round-trips through `profiles import` to a profile whose gateway entry points at the same
// URL / command. Merging keeps the other entries of an existing file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectFormat, importConfigText, type ImportFormat } from '../profiles/importers/index';
import { CLIENTS, ENTRY_NAME, clientConfig, clientConfigPath, mergeClientConfig, unifiedDiff, type ClientId } from './client-configs';

const URL = 'http://127.0.0.1:48123/mcp';
const TOKEN_VALUE = 'tok-should-never-appear-0123456789';

let tmp: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-client-configs-'));
  env = { HOME: path.join(tmp, 'home'), GATEHOUSE_TOKEN: TOKEN_VALUE };
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const base = () => ({ profileName: 'demo', profileFile: path.join(tmp, 'demo.yaml'), gatehouseCommand: '/opt/gatehouse/bin/gatehouse', cwd: path.join(tmp, 'proj'), env, platform: 'linux' as const });

function parsed(text: string, format: string): Record<string, unknown> {
  return (format === 'toml' ? parseToml(text) : JSON.parse(text)) as Record<string, unknown>;
}

const importAs: Record<ClientId, ImportFormat> = {
  'claude-code': 'claude-code',
  codex: 'codex',
  gemini: 'gemini',
  vscode: 'vscode',
  cursor: 'cursor',
  'claude-desktop': 'claude-desktop',
  // The Inspector's mcp.json has `type` on each entry: read as Claude Code's.
  inspector: 'claude-code',
};

describe.each(CLIENTS)('%s', (client) => {
  it('over HTTP (where supported): parses, references the token, round-trips through import', () => {
    const cfg = clientConfig(client, { ...base(), url: URL });
    const doc = parsed(cfg.text, cfg.format);
    expect(cfg.text).not.toContain(TOKEN_VALUE);
    expect(cfg.where).toBe(clientConfigPath(client, { cwd: base().cwd, env, platform: 'linux' }));
    if (client === 'inspector') {
      // Header values are literal in the Inspector's file: the token goes on its command line, from the shell.
      expect(doc).toEqual({ mcpServers: { gatehouse: { type: 'streamable-http', url: URL } } });
      expect(cfg.run).toBe(`npx @modelcontextprotocol/inspector --cli --config ${cfg.where} --server gatehouse --header "Authorization: Bearer $GATEHOUSE_TOKEN" --method tools/list`);
      return;
    }
    // The file the client would read is recognised as its format.
    expect(detectFormat(cfg.where, cfg.text)).toBe(importAs[client]);
    const r = importConfigText(cfg.text, { fileName: cfg.where });
    const server = r.profile.servers![IMPORTED_NAME] as Record<string, unknown>;
    if (client === 'claude-desktop') {
      // Stdio only: --url does not apply.
      expect(cfg.transport).toBe('stdio');
      expect(server).toMatchObject({ command: '/opt/gatehouse/bin/gatehouse', args: ['gateway', '--profile', base().profileFile, '--quiet'] });
      return;
    }
    expect(cfg.transport).toBe('http');
    expect(doc).toBeTypeOf('object');
    expect(server.url).toBe(URL);
    // The token comes back as a secret reference to the same variable.
    expect(server.headers).toEqual({ Authorization: 'Bearer ${secret:GATEHOUSE_TOKEN}' });
    expect(r.secrets.map((s) => s.name)).toEqual(['GATEHOUSE_TOKEN']);
  });

  it('without a URL: the stdio form, round-tripping to the same command', () => {
    const cfg = clientConfig(client, base());
    expect(cfg.transport).toBe('stdio');
    parsed(cfg.text, cfg.format);
    const r = importConfigText(cfg.text, { fileName: cfg.where });
    expect(r.profile.servers).toEqual({
      // Codex and the Inspector do not pass the user's environment: the profiles and data dirs travel in the args.
      [IMPORTED_NAME]: {
        command: '/opt/gatehouse/bin/gatehouse',
        args: ['gateway', '--profile', base().profileFile, '--quiet', ...(client === 'codex' || client === 'inspector' ? ['--profiles-dir', expect.any(String), '--data-dir', expect.any(String)] : [])],
      },
    });
    expect(r.warnings).toEqual([expect.stringContaining(`imported as server "${IMPORTED_NAME}"`)]);
  });
});


// The entry is named `gatehouse`, a built-in tools' prefix that no profile server may take
// (profiles/schema.ts RESERVED_SERVER_IDS): importing it back renames it, and says so.
const IMPORTED_NAME = `${ENTRY_NAME}-server`;
describe('exact shapes', () => {
  it('writes what each client documents', () => {
    const json = (c: ClientId) => JSON.parse(clientConfig(c, { ...base(), url: URL }).text);
    expect(json('claude-code')).toEqual({ mcpServers: { gatehouse: { type: 'http', url: URL, headers: { Authorization: 'Bearer ${GATEHOUSE_TOKEN}' } } } });
    expect(json('gemini')).toEqual({ mcpServers: { gatehouse: { httpUrl: URL, headers: { Authorization: 'Bearer ${GATEHOUSE_TOKEN}' } } } });
    expect(json('cursor')).toEqual({ mcpServers: { gatehouse: { url: URL, headers: { Authorization: 'Bearer ${env:GATEHOUSE_TOKEN}' } } } });
    expect(json('vscode')).toEqual({
      inputs: [{ type: 'promptString', id: 'gatehouse-token', description: 'Gatehouse gateway token (GATEHOUSE_TOKEN)', password: true }],
      servers: { gatehouse: { type: 'http', url: URL, headers: { Authorization: 'Bearer ${input:gatehouse-token}' } } },
    });
    expect(parseToml(clientConfig('codex', { ...base(), url: URL }).text)).toEqual({ mcp_servers: { gatehouse: { url: URL, bearer_token_env_var: 'GATEHOUSE_TOKEN' } } });
    expect(clientConfig('codex', { ...base(), url: URL, tokenEnv: 'MY_GH_TOKEN' }).text).toContain('bearer_token_env_var = "MY_GH_TOKEN"');
  });

  it('knows each client standard location', () => {
    const home = env.HOME!;
    const at = (c: ClientId, platform: NodeJS.Platform = 'linux', e = env) => clientConfigPath(c, { cwd: '/p', env: e, platform });
    expect(at('claude-code')).toBe('/p/.mcp.json');
    expect(at('vscode')).toBe('/p/.vscode/mcp.json');
    expect(at('codex')).toBe(path.join(home, '.codex', 'config.toml'));
    expect(at('codex', 'linux', { ...env, CODEX_HOME: '/c' })).toBe('/c/config.toml');
    expect(at('inspector')).toBe(path.join(home, '.mcp-inspector', 'mcp.json'));
    expect(at('inspector', 'linux', { ...env, MCP_CATALOG_PATH: 'cat.json' })).toBe('/p/cat.json');
    expect(at('gemini')).toBe(path.join(home, '.gemini', 'settings.json'));
    expect(at('cursor')).toBe(path.join(home, '.cursor', 'mcp.json'));
    expect(at('claude-desktop', 'darwin')).toBe(path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'));
    expect(at('claude-desktop', 'linux')).toBe(path.join(home, '.config', 'Claude', 'claude_desktop_config.json'));
  });
});

describe('mergeClientConfig', () => {
  it('adds our entry to a JSON file and keeps every other entry and setting', () => {
    const cfg = clientConfig('gemini', { ...base(), url: URL });
    const existing = JSON.stringify({ theme: 'Dracula', mcpServers: { git: { command: 'uvx', args: ['mcp-server-git'] }, gatehouse: { command: 'old' } } });
    const merged = JSON.parse(mergeClientConfig(cfg, existing).text);
    expect(merged).toEqual({ theme: 'Dracula', mcpServers: { git: { command: 'uvx', args: ['mcp-server-git'] }, gatehouse: cfg.entry } });
  });

  it('merges VS Code inputs by id, keeping comments and layout', () => {
    const cfg = clientConfig('vscode', { ...base(), url: URL });
    const existing = `{\n  // mine\n  "inputs": [{"type": "promptString", "id": "other", "password": true}, {"id": "gatehouse-token", "type": "promptString"}],\n  "servers": {"x": {"command": "x"}},\n}\n`;
    const { text, notes } = mergeClientConfig(cfg, existing);
    const merged = parseJsonc(text) as { inputs: { id: string; password?: boolean }[]; servers: Record<string, unknown> };
    expect(merged.inputs.map((i) => i.id)).toEqual(['other', 'gatehouse-token']);
    expect(merged.inputs[1]!.password).toBe(true);
    expect(Object.keys(merged.servers)).toEqual(['x', 'gatehouse']);
    expect(text).toContain('  // mine\n');
    // The other input is untouched on its line (jsonc-parser only reformats what it inserts into).
    expect(text).toContain('"inputs": [{"type": "promptString", "id": "other", "password": true}, {');
    expect(notes).toEqual([]);
  });

  it('VS Code back to stdio: the token input it added goes, the user\'s stay', () => {
    const http = mergeClientConfig(clientConfig('vscode', { ...base(), url: URL }), '{\n\t"inputs": [{ "id": "other", "type": "promptString" }],\n\t"servers": {}\n}\n').text;
    expect(http).toContain('gatehouse-token');
    const stdio = mergeClientConfig(clientConfig('vscode', { ...base(), url: URL, transport: 'stdio' }), http).text;
    const doc = parseJsonc(stdio) as { inputs: { id: string }[]; servers: { gatehouse: { type: string } } };
    expect(doc.inputs.map((i) => i.id)).toEqual(['other']);
    expect(doc.servers.gatehouse.type).toBe('stdio');
    expect(stdio).not.toContain('gatehouse-token');
    expect(stdio).toMatch(/^\t"servers"/m); // tabs stay tabs
    // With no other inputs, the key itself goes.
    const alone = mergeClientConfig(clientConfig('vscode', { ...base(), url: URL, transport: 'stdio' }), clientConfig('vscode', { ...base(), url: URL }).text).text;
    expect(parseJsonc(alone)).not.toHaveProperty('inputs');
  });

  it('edits TOML as text: comments and other tables survive, our old table is replaced', () => {
    const cfg = clientConfig('codex', { ...base(), url: URL });
    const existing = [
      '# my settings',
      'model = "o3"',
      '',
      "# Gatehouse gateway for profile 'old' (written by `gatehouse connect`)",
      '[mcp_servers.gatehouse]',
      'command = "old"',
      '',
      '[mcp_servers.gatehouse.env]',
      'A = "1"',
      '',
      '[mcp_servers.docs] # docs',
      'command = "docs-server"',
      '',
    ].join('\n');
    const { text, notes } = mergeClientConfig(cfg, existing);
    expect(notes).toEqual([]);
    expect(text).toContain('# my settings');
    expect(text).toContain('[mcp_servers.docs] # docs');
    expect(text).not.toContain("profile 'old'");
    expect(parseToml(text)).toEqual({ model: 'o3', mcp_servers: { docs: { command: 'docs-server' }, gatehouse: { url: URL, bearer_token_env_var: 'GATEHOUSE_TOKEN' } } });
  });

  it('falls back to rewriting TOML when our entry is an inline table', () => {
    const cfg = clientConfig('codex', { ...base(), url: URL });
    const { text, notes } = mergeClientConfig(cfg, 'mcp_servers = { gatehouse = { command = "old" }, docs = { command = "d" } }\n');
    expect(parseToml(text)).toEqual({ mcp_servers: { docs: { command: 'd' }, gatehouse: { url: URL, bearer_token_env_var: 'GATEHOUSE_TOKEN' } } });
    expect(notes).toEqual([expect.stringMatching(/rewritten as a whole/)]);
  });

  it('refuses files it cannot read', () => {
    expect(() => mergeClientConfig(clientConfig('cursor', base()), '{ nope')).toThrow(/cannot merge into/);
    expect(() => mergeClientConfig(clientConfig('codex', base()), '[[[')).toThrow(/not valid TOML/);
  });
});

describe('unifiedDiff', () => {
  it('shows changed lines with context and hunk headers', () => {
    const a = 'abcdefghijkl'.split('').join('\n') + '\n';
    const b = 'abcDefghijklm'.split('').join('\n') + '\n';
    expect(unifiedDiff(a, b, 'old', 'new')).toBe(
      ['--- old', '+++ new', '@@ -1,7 +1,7 @@', ' a', ' b', ' c', '-d', '+D', ' e', ' f', ' g', '@@ -10,3 +10,4 @@', ' j', ' k', ' l', '+m', ''].join('\n'),
    );
    // Changes closer than twice the context share one hunk.
    expect(unifiedDiff('a\nb\nc\n', 'A\nb\nC\n', 'o', 'n')).toBe('--- o\n+++ n\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n-c\n+C\n');
    expect(unifiedDiff(a, a, 'old', 'new')).toBe('');
    expect(unifiedDiff('', 'x\n', '/dev/null', 'f')).toBe('--- /dev/null\n+++ f\n@@ -0,0 +1,1 @@\n+x\n');
  });
});
