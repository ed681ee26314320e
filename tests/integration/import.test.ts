// `gatehouse profiles import` as a library: the sample configurations in
// tests/fixtures/client-configs/ (one per JSON client; Codex's TOML is in import-codex.test.ts)
// become the expected profiles, secrets become ${secret:…} references and never reach the
// written file, and what cannot be represented is reported by key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportError, detectFormat, importConfigText, importFile } from '../../main/profiles/importers/index';
import { loadProfileFile } from '../../main/profiles/loader';
import { repoRoot } from '../support/supervisor';

const fixtures = path.join(repoRoot, 'tests', 'fixtures', 'client-configs');
const fixture = (rel: string) => path.join(fixtures, rel);
const read = (rel: string) => fs.readFileSync(fixture(rel), 'utf8');

/** Every fake secret value in the JSON fixtures: none may appear in an imported profile. */
export const FAKE_SECRETS = [
  'ghp_FAKEfake0123456789FAKEfake0123456789',
  'BSAfakeFAKEfake0123456789',
  'sk-proj-FAKEfake0123456789FAKEfake',
  'sk-ant-api03-FAKEfake0123456789FAKEfake0123',
  's3cretPassw0rd',
  'xoxb-FAKE-1234567890-abcdefghijkl',
  'ctx7sk-FAKEfake-0123-4567-89ab',
];

let tmp: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-import-'));
  env = { HOME: path.join(tmp, 'home'), GATEHOUSE_PROFILES_DIR: path.join(tmp, 'profiles') };
  fs.mkdirSync(env.HOME!);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('format detection', () => {
  it('knows each sample by its file name or content', () => {
    expect(detectFormat(fixture('claude_desktop_config.json'), read('claude_desktop_config.json'))).toBe('claude-desktop');
    expect(detectFormat(fixture('claude-code/.mcp.json'), read('claude-code/.mcp.json'))).toBe('claude-code');
    expect(detectFormat(fixture('vscode-project/.vscode/mcp.json'), read('vscode-project/.vscode/mcp.json'))).toBe('vscode');
    expect(detectFormat(fixture('cursor-project/.cursor/mcp.json'), read('cursor-project/.cursor/mcp.json'))).toBe('cursor');
    expect(detectFormat(fixture('gemini-project/.gemini/settings.json'), read('gemini-project/.gemini/settings.json'))).toBe('gemini');
    // Content alone, under an anonymous name.
    expect(detectFormat('/tmp/x.json', read('vscode-project/.vscode/mcp.json'))).toBe('vscode');
    expect(detectFormat('/tmp/x.json', read('claude-code/.mcp.json'))).toBe('claude-code');
    expect(detectFormat('/tmp/x.json', '{"mcpServers": {"a": {"command": "a"}}}')).toBe('claude-desktop');
    expect(detectFormat('/tmp/x.json', '{"unrelated": true}')).toBeUndefined();
  });
});

describe('Claude Desktop', () => {
  it('imports command/args/env, renames ids, hides tokens in env and in flags', () => {
    const r = importConfigText(read('claude_desktop_config.json'), { fileName: 'claude_desktop_config.json' });
    expect(r.profile).toEqual({
      description: 'Imported from claude_desktop_config.json (Claude Desktop).',
      workspace: '.',
      tool_surface: 'friendly',
      servers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/alice/Desktop', '/Users/alice/Downloads'] },
        github: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:GITHUB_PERSONAL_ACCESS_TOKEN}' },
        },
        'brave-search': {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-brave-search'],
          env: { BRAVE_API_KEY: '${secret:BRAVE_API_KEY}', LOG_LEVEL: 'info' },
        },
        'openai-helper': { command: 'uvx', args: ['openai-mcp', '--api-key', '${secret:OPENAI_HELPER_API_KEY}'] },
      },
      policy: { default: 'approve' },
    });
    expect(r.secrets).toEqual([
      { name: 'GITHUB_PERSONAL_ACCESS_TOKEN', from: 'mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN', kind: 'clear-text' },
      { name: 'BRAVE_API_KEY', from: 'mcpServers["Brave Search"].env.BRAVE_API_KEY', kind: 'clear-text' },
      { name: 'OPENAI_HELPER_API_KEY', from: 'mcpServers.openai_helper.args[2]', kind: 'clear-text' },
    ]);
    expect(r.serverIds).toMatchObject({ 'Brave Search': 'brave-search', openai_helper: 'openai-helper' });
    expect(r.warnings).toEqual([
      // Paths from another machine are not granted, and the review says so.
      'mcpServers.filesystem.args: /Users/alice/Desktop: not granted (it does not exist on this machine; add it to sandbox.write once it does)',
      'mcpServers.filesystem.args: /Users/alice/Downloads: not granted (it does not exist on this machine; add it to sandbox.write once it does)',
      expect.stringMatching(/^mcpServers\["Brave Search"\]: imported as server "brave-search"/),
      expect.stringMatching(/^mcpServers\.openai_helper: imported as server "openai-helper"/),
    ]);
  });
});

describe('Claude Code', () => {
  it('maps types, ${VAR} and ${VAR:-default}, and reports headersHelper', () => {
    const r = importConfigText(read('claude-code/.mcp.json'), { fileName: '.mcp.json', workspace: '/work/proj', profileName: 'proj' });
    expect(r.profile).toMatchObject({ name: 'proj', workspace: '/work/proj', tool_surface: 'friendly', policy: { default: 'approve' } });
    expect(r.profile.servers).toEqual({
      memory: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: { MEMORY_FILE_PATH: '${env:MEMORY_DIR:-/tmp}/memory.jsonl' },
      },
      sentry: { url: 'https://mcp.sentry.dev/mcp', headers: { Authorization: 'Bearer ${secret:SENTRY_AUTH_TOKEN}' }, transport: 'streamable-http' },
      // Claude Code signs in to a remote server that answers 401; so does the imported profile.
      linear: { url: 'https://mcp.linear.app/sse', transport: 'sse', auth: 'oauth' },
      'anthropic-tools': {
        command: 'node',
        args: ['${workspace}/tools/server.js', '--port', '${env:TOOLS_PORT:-7000}'],
        env: { ANTHROPIC_API_KEY: '${secret:ANTHROPIC_API_KEY}' },
      },
      internal: { url: 'https://internal.example.com/mcp', transport: 'streamable-http' },
    });
    expect(r.secrets).toEqual([
      { name: 'SENTRY_AUTH_TOKEN', from: 'mcpServers.sentry.headers.Authorization', kind: 'reference' },
      { name: 'ANTHROPIC_API_KEY', from: 'mcpServers.anthropic-tools.env.ANTHROPIC_API_KEY', kind: 'clear-text' },
    ]);
    expect(r.warnings).toEqual([expect.stringMatching(/^mcpServers\.internal\.headersHelper: not imported/)]);
  });
});

describe('VS Code', () => {
  it('reads JSONC, turns inputs into secrets and ${workspaceFolder} into ${workspace}, reports envFile and dev', () => {
    const r = importConfigText(read('vscode-project/.vscode/mcp.json'), { fileName: '.vscode/mcp.json' });
    expect(r.profile.servers).toEqual({
      github: { url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${secret:GITHUB_TOKEN}' }, transport: 'streamable-http' },
      perplexity: { command: 'npx', args: ['-y', 'server-perplexity-ask'], env: { PERPLEXITY_API_KEY: '${secret:PERPLEXITY_KEY}' } },
      fetch: { command: 'uvx', args: ['mcp-server-fetch'] },
      playwright: { command: 'npx', args: ['@playwright/mcp@latest', '--output-dir', '${workspace}/out'] },
    });
    expect(r.secrets).toEqual([
      { name: 'GITHUB_TOKEN', from: 'inputs.github-token', kind: 'input', description: 'GitHub Personal Access Token' },
      { name: 'PERPLEXITY_KEY', from: 'inputs.perplexity-key', kind: 'input', description: 'Perplexity API Key' },
    ]);
    expect(r.warnings).toEqual([
      expect.stringMatching(/^servers\.fetch\.envFile: not imported/),
      expect.stringMatching(/^servers\.playwright\.dev: /),
    ]);
  });
});

describe('Cursor', () => {
  it('keeps ${env:…}, maps ${workspaceFolder}/${userHome}, hides URL passwords and token-shaped values', () => {
    const r = importConfigText(read('cursor-project/.cursor/mcp.json'), { fileName: '.cursor/mcp.json' });
    expect(r.profile.servers).toEqual({
      postgres: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://app:${secret:POSTGRES_PASSWORD}@localhost:5432/app'] },
      notion: { command: 'npx', args: ['-y', '@notionhq/notion-mcp-server'], env: { NOTION_TOKEN: '${secret:NOTION_TOKEN}', NOTION_VERSION: '2022-06-28' } },
      slack: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-slack'], env: { SLACK_BOT_TOKEN: '${secret:SLACK_BOT_TOKEN}', SLACK_TEAM_ID: 'T01234567' } },
      context7: { url: 'https://mcp.context7.com/mcp', headers: { CONTEXT7_API_KEY: '${secret:CONTEXT7_API_KEY}' } },
      'local-docs': { command: 'node', args: ['${workspace}/scripts/docs-server.mjs', '--home', '${env:HOME}'] },
    });
    expect(r.secrets.map((s) => [s.name, s.kind])).toEqual([
      ['POSTGRES_PASSWORD', 'clear-text'],
      ['NOTION_TOKEN', 'reference'],
      ['SLACK_BOT_TOKEN', 'clear-text'],
      ['CONTEXT7_API_KEY', 'clear-text'],
    ]);
    expect(r.warnings).toEqual([expect.stringMatching(/^mcpServers\.local-docs\.envFile: not imported/)]);
  });
});

describe('Gemini CLI', () => {
  it('maps httpUrl/url, $VAR, timeout (ms) and include/excludeTools', () => {
    const r = importConfigText(read('gemini-project/.gemini/settings.json'), { fileName: '.gemini/settings.json' });
    expect(r.profile.servers).toEqual({
      github: {
        url: 'https://api.githubcopilot.com/mcp/',
        headers: { Authorization: 'Bearer ${secret:GITHUB_PAT}' },
        transport: 'streamable-http',
        request_timeout_s: 30,
        tools: { exclude: ['delete_repository'] },
      },
      'python-tools': {
        command: 'python',
        args: ['-m', 'my_mcp_server'],
        env: { DATABASE_URL: '${env:DB_CONNECTION_STRING}', API_KEY: '${secret:EXTERNAL_API_KEY}' },
        cwd: './mcp-servers/python',
        request_timeout_s: 15,
        tools: { include: ['safe_tool'] },
      },
      events: { url: 'http://localhost:8080/sse', transport: 'sse' },
    });
    expect(r.profile.policy).toEqual({
      default: 'approve',
      rules: [
        { match: ['github.delete_repository'], decision: 'deny', reason: 'excludeTools of mcpServers.github' },
        { match: ['python-tools.safe_tool'], decision: 'allow', reason: 'includeTools of mcpServers.python_tools' },
        { match: 'python-tools.*', decision: 'deny', reason: 'not in includeTools of mcpServers.python_tools' },
      ],
    });
    expect(r.warnings).toContainEqual(expect.stringMatching(/^mcpServers\.python_tools\.trust: not imported/));
  });
});

describe('the secret rule', () => {
  const one = (entry: object) => importConfigText(JSON.stringify({ mcpServers: { s: entry } }), { fileName: 'x.json', format: 'claude-code' });

  it('hides token-shaped values wherever they are, by shape', () => {
    const r = one({ command: 'srv', args: ['--header=X: ghp_FAKEfake0123456789FAKEfake0123456789'], env: { NOTE: 'sk-FAKEfake0123456789abcdef' } });
    expect(JSON.stringify(r.profile)).not.toMatch(/ghp_FAKE|sk-FAKE/);
    expect(r.secrets.map((s) => s.name)).toEqual(['S_TOKEN', 'S_NOTE']);
  });

  it('leaves plain values under secret-sounding names alone when they are flags', () => {
    const r = one({ command: 'srv', env: { AUTH_ENABLED: 'true', KEYBOARD_LAYOUT: 'de', AUTHOR: 'Jane' } });
    expect(r.profile.servers).toEqual({ s: { command: 'srv', env: { AUTH_ENABLED: 'true', KEYBOARD_LAYOUT: 'de', AUTHOR: 'Jane' } } });
    expect(r.secrets).toEqual([]);
  });

  it('gives two different values of the same name two secrets, and one shared value one', () => {
    const r = importConfigText(
      JSON.stringify({
        mcpServers: {
          a: { command: 'a', env: { API_KEY: 'one-value-123456' } },
          b: { command: 'b', env: { API_KEY: 'other-value-123456' } },
          c: { command: 'c', env: { API_KEY: 'one-value-123456' } },
        },
      }),
      { fileName: 'x.json', format: 'claude-desktop' },
    );
    const env = (id: string) => (r.profile.servers![id] as { env: Record<string, string> }).env.API_KEY;
    expect([env('a'), env('b'), env('c')]).toEqual(['${secret:API_KEY}', '${secret:B_API_KEY}', '${secret:API_KEY}']);
    expect(r.secrets.map((s) => s.name)).toEqual(['API_KEY', 'B_API_KEY']);
  });

  it('escapes ${…} forms a client does not expand, and says so', () => {
    const r = importConfigText(JSON.stringify({ mcpServers: { s: { command: 'srv', args: ['${HOME}/x'] } } }), { fileName: 'claude_desktop_config.json' });
    expect(r.profile.servers).toEqual({ s: { command: 'srv', args: ['$${HOME}/x'] } });
    expect(r.warnings).toEqual([expect.stringMatching(/Claude Desktop does not expand/)]);
  });

  it('dedupes sanitized ids deterministically', () => {
    const r = importConfigText(JSON.stringify({ mcpServers: { 'My Server': { command: 'a' }, my_server: { command: 'b' }, '9lives': { command: 'c' } } }), {
      fileName: 'x.json',
      format: 'claude-desktop',
    });
    expect(Object.keys(r.profile.servers!)).toEqual(['my-server', 'my-server-2', 'server-9lives']);
  });
});

describe('importFile', () => {
  const samples = [
    'claude_desktop_config.json',
    'claude-code/.mcp.json',
    'vscode-project/.vscode/mcp.json',
    'cursor-project/.cursor/mcp.json',
    'gemini-project/.gemini/settings.json',
  ];

  it.each(samples)('writes %s as a profile that validates and holds no secret value', (rel) => {
    const r = importFile(fixture(rel), { env, now: new Date('2026-01-02T03:04:05Z') });
    expect(r.file).toBe(path.join(env.GATEHOUSE_PROFILES_DIR!, `${r.format}.yaml`));
    const text = fs.readFileSync(r.file, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=file:\/\/.*profile\.schema\.json$/);
    expect(text).toContain(`from ${fixture(rel)}`);
    expect(text).toContain('on 2026-01-02');
    for (const s of r.secrets) expect(text).toContain(`GATEHOUSE_SECRET_${s.name}`);
    for (const fake of FAKE_SECRETS) expect(text).not.toContain(fake);
    const loaded = loadProfileFile(r.file);
    expect(Object.keys(loaded.raw.servers)).toEqual(r.servers);
  });

  it('uses the project folder of a project-level config as the workspace', () => {
    expect(loadProfileFile(importFile(fixture('claude-code/.mcp.json'), { env }).file).raw.workspace).toBe(fixture('claude-code'));
    expect(loadProfileFile(importFile(fixture('vscode-project/.vscode/mcp.json'), { env }).file).raw.workspace).toBe(fixture('vscode-project'));
    expect(loadProfileFile(importFile(fixture('claude_desktop_config.json'), { env }).file).raw.workspace).toBe('.');
  });

  it('honours --out, --name and --format and refuses to overwrite without force', () => {
    const out = path.join(tmp, 'nested', 'mine.yaml');
    const r = importFile(fixture('cursor-project/.cursor/mcp.json'), { env, out, name: 'team-tools', format: 'cursor' });
    expect(r).toMatchObject({ file: out, name: 'team-tools', format: 'cursor' });
    expect(loadProfileFile(out).raw.name).toBe('team-tools');
    expect(() => importFile(fixture('cursor-project/.cursor/mcp.json'), { env, out })).toThrow(/already exists; pass --force/);
    expect(importFile(fixture('claude_desktop_config.json'), { env, out, force: true }).format).toBe('claude-desktop');
  });

  it('reports unreadable and unrecognisable input as ImportError', () => {
    expect(() => importFile(path.join(tmp, 'missing.json'), { env })).toThrow(ImportError);
    const bad = path.join(tmp, 'bad.json');
    fs.writeFileSync(bad, '{"mcpServers": {');
    expect(() => importFile(bad, { env, format: 'cursor' })).toThrow(/not valid JSON/);
    fs.writeFileSync(bad, '{"nothing": "here"}');
    expect(() => importFile(bad, { env })).toThrow(/cannot tell which client/);
    expect(() => importFile(fixture('claude_desktop_config.json'), { env, name: 'Bad Name' })).toThrow(/not a profile name/);
  });
});

describe('secrets inside args (an mcp-remote wrapper in a Claude Desktop config)', () => {
  const CLEAR = [
    'lin_api_FAKEfake0123456789FAKEfake0123456789abcd',
    'lin_oauth_FAKEfake98765',
    'FAKEenvBearer0123',
    'FAKEquerytok42',
    'FAKEqueryKEY77',
    'FAKEheaderkey55',
    'RkFLRXVzZXI6RkFLRXBhc3M=',
    'FAKEflagKey11',
    'FAKEflagToken22',
    'FAKEanywhere33',
  ];

  it('turns every spelling into a ${secret:…} reference and lists where each value goes', () => {
    const r = importConfigText(read('mcp-remote/claude_desktop_config.json'), { fileName: 'claude_desktop_config.json' });
    const text = JSON.stringify(r.profile);
    for (const v of CLEAR) expect(text, v).not.toContain(v);
    const servers = r.profile.servers as Record<string, { args: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> }>;
    // A wrapper the oauth mapping understands is lifted to the remote server it reaches
    // (main/profiles/importers/oauth.ts); its Authorization header becomes a secret reference.
    expect(servers.linear).toEqual({ url: 'https://mcp.linear.app/sse', headers: { Authorization: 'Bearer ${secret:LINEAR_TOKEN}' } });
    expect(servers['linear-nospace']!.headers).toEqual({ Authorization: 'Bearer ${secret:LINEAR_NOSPACE_TOKEN}' });
    // mcp-remote's own ${AUTH_HEADER} is filled from the entry's env, whose value is a secret.
    expect(servers['via-env']).toEqual({ url: 'https://mcp.example.com/mcp', headers: { Authorization: '${secret:VIA_ENV_TOKEN}' } });
    // One it does not understand stays a command, and every secret in its args becomes a reference.
    expect(servers.keys!.args).toEqual([
      '-y',
      'mcp-remote',
      'https://api.example.com/mcp?token=${secret:KEYS_TOKEN}&api_key=${secret:KEYS_API_KEY}&mode=fast',
      '--header=X-Api-Key: ${secret:KEYS_API_KEY_2}',
      '-H',
      'Proxy-Authorization: Basic ${secret:KEYS_TOKEN_2}',
      '--api-key=${secret:KEYS_API_KEY_3}',
      '--token',
      '${secret:KEYS_TOKEN_3}',
      '--note',
      'prefix Bearer ${secret:KEYS_TOKEN_4} suffix',
      '--header',
      'Accept: text/event-stream',
    ]);
    // The report: one line per value, naming the variable to set and where the value was.
    expect(r.secrets.map((s) => `${s.name} ${s.from} ${s.kind}`)).toEqual([
      'LINEAR_TOKEN mcpServers.linear.headers.Authorization clear-text',
      'LINEAR_NOSPACE_TOKEN mcpServers.linear-nospace.headers.Authorization clear-text',
      'VIA_ENV_TOKEN mcpServers.via-env.headers.Authorization clear-text',
      'KEYS_TOKEN mcpServers.keys.args[2] clear-text',
      'KEYS_API_KEY mcpServers.keys.args[2] clear-text',
      'KEYS_API_KEY_2 mcpServers.keys.args[3] clear-text',
      'KEYS_TOKEN_2 mcpServers.keys.args[5] clear-text',
      'KEYS_API_KEY_3 mcpServers.keys.args[6] clear-text',
      'KEYS_TOKEN_3 mcpServers.keys.args[8] clear-text',
      'KEYS_TOKEN_4 mcpServers.keys.args[10] clear-text',
    ]);
  });

  it('writes a profile file with none of the values, whose header says which GATEHOUSE_SECRET_ to set', () => {
    const src = path.join(tmp, 'claude_desktop_config.json');
    fs.copyFileSync(fixture('mcp-remote/claude_desktop_config.json'), src);
    const out = importFile(src, { env });
    const written = fs.readFileSync(out.file, 'utf8');
    for (const v of CLEAR) expect(written, v).not.toContain(v);
    expect(written).toMatch(/GATEHOUSE_SECRET_LINEAR_TOKEN\s+from mcpServers\.linear\.headers\.Authorization/);
    expect(written).toMatch(/GATEHOUSE_SECRET_KEYS_TOKEN_4\s+from mcpServers\.keys\.args\[10\]/);
    // And it still loads as a profile once the secrets exist.
    expect(() => loadProfileFile(out.file)).not.toThrow();
  });
});
