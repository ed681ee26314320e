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
//  - MCP Inspector: `mcp.json` `mcpServers.<name>` (`stdio` or `streamable-http`), run with
//    `--config FILE --server <name>`; the token goes on its command line as `--header`.
import type { CommandOutput } from '../../common/host-api';
import { CLIENTS, CLIENT_INFO, clientConfig, type ConnectTransport } from '../agents/client-configs';

export const TOKEN_ENV = 'GATEHOUSE_TOKEN';

export interface ConnectTarget {
  /** The gateway's Streamable HTTP URL; absent when the launch serves none. */
  url?: string;
  profileName: string;
  /** The profile file, for clients that start `gatehouse gateway` themselves. */
  profileFile: string;
  /** Where the `gatehouse` command lives; default the package's bin/gatehouse. */
  gatehouseBin?: string;
  /** The host's data directory (for clients that do not pass GATEHOUSE_DATA_DIR to a stdio gateway). */
  dataDir?: string;
  /** The user's profiles folder, for the same clients (default: this process's GATEHOUSE_PROFILES_DIR or the usual one). */
  profilesDir?: string;
  /** The form asked for; default http where a URL is known and the client speaks it. */
  transport?: ConnectTransport;
  /**
   * The launch's workspace: project-scoped files (`.mcp.json`, `.vscode/mcp.json`) go there, where
   * the agent works, not in whatever folder Gatehouse itself was started from.
   */
  workspace?: string;
}

/**
 * The same configurations `gatehouse connect` prints (main/agents/client-configs.ts is the one
 * source), in the contract's shape, with the notes a person pasting them needs.
 */
export function buildClientConfigs(target: ConnectTarget): CommandOutput<'connect:configs'> {
  const exportNote = `Set ${TOKEN_ENV} in the environment the client starts from (Copy token), e.g. export ${TOKEN_ENV}=…`;
  // main/gateway/remembered-endpoint.ts: the port and token stay across launches of this profile.
  const portNote = 'The gateway keeps this port and token across launches of this profile; copy again only if Gatehouse says the port moved.';
  const configs = CLIENTS.map((client) => {
    // The same function and the same choice as `gatehouse connect` (cfg.command is that command line).
    const transport = target.transport === 'http' && (!target.url || !CLIENT_INFO[client].http) ? 'stdio' : target.transport;
    const cfg = clientConfig(client, {
      profileName: target.profileName,
      profileFile: target.profileFile,
      url: target.url,
      tokenEnv: TOKEN_ENV,
      ...(transport ? { transport } : {}),
      ...(target.dataDir ? { dataDir: target.dataDir } : {}),
      ...(target.profilesDir ? { profilesDir: target.profilesDir } : {}),
      ...(target.gatehouseBin ? { gatehouseCommand: target.gatehouseBin } : {}),
      ...(target.workspace ? { cwd: target.workspace } : {}),
    });
    const notes = [...cfg.notes];
    if (cfg.transport === 'http') {
      if (client !== 'vscode') notes.unshift(exportNote);
      notes.push(portNote);
    }
    return { client, label: cfg.label, where: cfg.where, format: cfg.format, transport: cfg.transport, command: cfg.command, text: cfg.text, notes, ...(cfg.run ? { run: cfg.run } : {}) };
  });
  const out: CommandOutput<'connect:configs'> = { tokenEnv: TOKEN_ENV, configs };
  if (target.url) out.url = target.url;
  return out;
}
