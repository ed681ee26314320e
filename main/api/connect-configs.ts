// Ready-to-paste client configurations for a launch's gateway (`connect:configs`).
//
// The token is never in these texts: each one names the GATEHOUSE_TOKEN environment variable
// (or, for VS Code, a password prompt kept in its secret storage), so a config file can be
// committed or shared without leaking it. The formats follow each client's own documentation:
//  - Claude Code: `--mcp-config <file>` / `.mcp.json`, `"type": "http"`, `${VAR}` expanded in headers.
//  - Codex: `~/.codex/config.toml`, `[mcp_servers.<name>]` with `url` and `bearer_token_env_var`
//    (Codex refuses an inline `bearer_token`).
//  - Gemini CLI: `settings.json` `mcpServers.<name>.httpUrl` (`url` would mean SSE); string values
//    in settings.json may reference `$VAR`.
//  - VS Code: `.vscode/mcp.json` `servers.<name>` with `type: "http"`, and an `inputs` entry
//    (`promptString`, `password: true`) referenced as `${input:<id>}`.
//  - Cursor: `mcp.json` `mcpServers.<name>.url` with `${env:VAR}` in headers.
//  - Claude Desktop: launches its servers itself over stdio, so it runs `gatehouse gateway`.
import path from 'node:path';
import type { CommandOutput } from '../../common/host-api';
import { appRoot } from '../paths';

export const TOKEN_ENV = 'GATEHOUSE_TOKEN';
const SERVER_NAME = 'gatehouse';
const VSCODE_INPUT_ID = 'gatehouse-token';

type ClientConfig = CommandOutput<'connect:configs'>['configs'][number];

export interface ConnectTarget {
  /** The gateway's Streamable HTTP URL; absent when the launch serves none. */
  url?: string;
  /** The profile file, for clients that start `gatehouse gateway` themselves. */
  profileFile: string;
  /** Where the `gatehouse` command lives; default the package's bin/gatehouse. */
  gatehouseBin?: string;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function buildClientConfigs(target: ConnectTarget): CommandOutput<'connect:configs'> {
  const configs: ClientConfig[] = [];
  const { url } = target;
  const exportNote = `Set ${TOKEN_ENV} in the environment the client starts from (Copy token), e.g. export ${TOKEN_ENV}=…`;
  const portNote = 'The gateway port is chosen at launch: after relaunching the profile, copy the configuration again.';
  if (url) {
    configs.push({
      client: 'claude-code',
      label: 'Claude Code',
      where: 'a file passed as `claude --mcp-config gatehouse.mcp.json`, or the project’s .mcp.json',
      format: 'json',
      text: json({ mcpServers: { [SERVER_NAME]: { type: 'http', url, headers: { Authorization: `Bearer \${${TOKEN_ENV}}` } } } }),
      notes: [exportNote, 'Claude Code expands ${VAR} in headers when it loads the file.', portNote],
    });
    configs.push({
      client: 'codex',
      label: 'Codex CLI',
      where: '~/.codex/config.toml (or .codex/config.toml in a trusted project)',
      format: 'toml',
      text: `[mcp_servers.${SERVER_NAME}]\nurl = ${JSON.stringify(url)}\nbearer_token_env_var = "${TOKEN_ENV}"\n`,
      notes: [exportNote, 'Codex reads the token from the named variable; it refuses an inline bearer_token.', portNote],
    });
    configs.push({
      client: 'gemini',
      label: 'Gemini CLI',
      where: '~/.gemini/settings.json (or .gemini/settings.json in the project): merge into mcpServers',
      format: 'json',
      text: json({ mcpServers: { [SERVER_NAME]: { httpUrl: url, headers: { Authorization: `Bearer $${TOKEN_ENV}` } } } }),
      notes: [exportNote, '`httpUrl` is Streamable HTTP (`url` would mean SSE).', portNote],
    });
    configs.push({
      client: 'vscode',
      label: 'VS Code',
      where: '.vscode/mcp.json in the workspace (or MCP: Open User Configuration)',
      format: 'json',
      text: json({
        inputs: [{ type: 'promptString', id: VSCODE_INPUT_ID, description: 'Gatehouse gateway token (Gatehouse → Connect → Copy token)', password: true }],
        servers: { [SERVER_NAME]: { type: 'http', url, headers: { Authorization: `Bearer \${input:${VSCODE_INPUT_ID}}` } } },
      }),
      notes: ['VS Code asks for the token once and keeps it in its secret storage.', portNote],
    });
    configs.push({
      client: 'cursor',
      label: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in the project)',
      format: 'json',
      text: json({ mcpServers: { [SERVER_NAME]: { url, headers: { Authorization: `Bearer \${env:${TOKEN_ENV}}` } } } }),
      notes: [exportNote, 'Cursor must be started from an environment that has the variable.', portNote],
    });
  }
  const bin = target.gatehouseBin ?? path.join(appRoot(), 'bin', 'gatehouse');
  configs.push({
    client: 'claude-desktop',
    label: 'Claude Desktop',
    where: 'claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\)',
    format: 'json',
    text: json({ mcpServers: { [SERVER_NAME]: { command: bin, args: ['gateway', '--profile', target.profileFile] } } }),
    notes: [
      'Claude Desktop starts its own governed gateway over stdio: no token needed.',
      'That gateway is its own process: calls that need approval are denied with a clear reason unless it has an approver.',
    ],
  });
  const out: CommandOutput<'connect:configs'> = { tokenEnv: TOKEN_ENV, configs };
  if (url) out.url = url;
  return out;
}
