// Codex's config.toml → profile (kept apart from import.test.ts: it needs the TOML parser).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { detectFormat, importConfigText, importFile } from '../../main/profiles/importers/index';
import { loadProfileFile } from '../../main/profiles/loader';
import { repoRoot } from '../support/supervisor';

const file = path.join(repoRoot, 'tests', 'fixtures', 'client-configs', 'codex', 'config.toml');
const text = fs.readFileSync(file, 'utf8');

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-import-codex-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('detects config.toml', () => {
  expect(detectFormat(file, text)).toBe('codex');
  expect(detectFormat('/home/u/.codex/config.toml', '')).toBe('codex');
});

it('maps mcp_servers tables, env_vars, bearer_token_env_var, timeouts, enabled and tool lists', () => {
  const r = importConfigText(text, { fileName: 'config.toml' });
  expect(r.profile.servers).toEqual({
    context7: { command: 'npx', args: ['-y', '@upstash/context7-mcp'], startup_timeout_s: 20, request_timeout_s: 90 },
    github: {
      url: 'https://api.githubcopilot.com/mcp/',
      headers: { Authorization: 'Bearer ${secret:GITHUB_PAT}' },
      transport: 'streamable-http',
      tools: { include: ['list_issues', 'get_issue', 'search_code'], exclude: ['search_code'] },
    },
    figma: {
      url: 'https://mcp.figma.com/mcp',
      headers: { 'X-Figma-Region': 'us-east-1', 'X-Figma-Token': '${secret:FIGMA_OAUTH_TOKEN}', 'X-Trace-Id': '${env:TRACE_ID}' },
      transport: 'streamable-http',
    },
    'shell-tools': {
      command: '/usr/local/bin/shell-mcp',
      env: { SHELL_MCP_API_TOKEN: '${secret:SHELL_MCP_API_TOKEN}', RUST_LOG: 'info' },
      inherit_env: ['PATH', 'LANG'],
      disabled: true,
      tools: { exclude: ['run_as_root'] },
    },
    legacy: { command: 'legacy-mcp', startup_timeout_s: 15 },
  });
  expect(r.profile.policy).toEqual({
    default: 'approve',
    rules: [
      { match: ['github.search_code'], decision: 'deny', reason: 'disabled_tools of mcp_servers.github' },
      { match: ['github.list_issues', 'github.get_issue', 'github.search_code'], decision: 'allow', reason: 'enabled_tools of mcp_servers.github' },
      { match: 'github.*', decision: 'deny', reason: 'not in enabled_tools of mcp_servers.github' },
      { match: ['shell-tools.run_as_root'], decision: 'deny', reason: 'disabled_tools of mcp_servers.shell_tools' },
    ],
  });
  expect(r.secrets).toEqual([
    { name: 'GITHUB_PAT', from: 'mcp_servers.github.bearer_token_env_var', kind: 'reference' },
    { name: 'FIGMA_OAUTH_TOKEN', from: 'mcp_servers.figma.env_http_headers.X-Figma-Token', kind: 'reference' },
    { name: 'SHELL_MCP_API_TOKEN', from: 'mcp_servers.shell_tools.env.SHELL_MCP_API_TOKEN', kind: 'clear-text' },
  ]);
  expect(r.warnings).toEqual([
    expect.stringMatching(/^mcp_servers\.shell_tools: imported as server "shell-tools"/),
    'mcp_servers.legacy.scopes: not supported by Gatehouse profiles; dropped',
  ]);
});

it('writes a profile that validates, with the fake token nowhere in it', () => {
  const r = importFile(file, { env: { HOME: tmp, GATEHOUSE_PROFILES_DIR: tmp } });
  const written = fs.readFileSync(r.file, 'utf8');
  expect(written).not.toContain('sk-FAKEshellmcp0123456789abcdef');
  expect(written).toContain('GATEHOUSE_SECRET_SHELL_MCP_API_TOKEN');
  expect(loadProfileFile(r.file).raw.policy.rules).toHaveLength(4);
});

it('reports TOML syntax errors with their line', () => {
  expect(() => importConfigText('[mcp_servers.a]\ncommand = \n', { fileName: 'config.toml' })).toThrow(/not valid TOML \(line 2/);
});

it('keeps a literal ${ literal (TOML values are never expanded)', () => {
  const r = importConfigText('[mcp_servers.a]\ncommand = "a"\nargs = ["${HOME}"]\n', { fileName: 'config.toml' });
  expect(r.profile.servers).toEqual({ a: { command: 'a', args: ['$${HOME}'] } });
});
