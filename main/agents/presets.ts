// Agent presets: how each agent CLI is pointed at the gateway, never at the servers.
//
// - Claude Code: `--mcp-config FILE --strict-mcp-config` (a 0600 file in a private run folder).
// - Codex: `-c mcp_servers.gatehouse.url=…` and `bearer_token_env_var`, the token in the env.
// - Gemini CLI: an isolated settings file through GEMINI_CLI_SYSTEM_SETTINGS_PATH, whose
//   Authorization header references $GATEHOUSE_MCP_TOKEN (Gemini expands env vars in settings).
// - shell / custom: GATEHOUSE_MCP_URL and GATEHOUSE_MCP_TOKEN in the environment.
//
// The token an agent gets is a per-terminal gateway token: it lets the agent call tools through
// the gateway and nothing else. It is never on a command line, and nothing the agent can read
// carries the host API's or the UI's credentials, so an agent cannot answer its own approvals.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentPreset, AgentSpec } from '../profiles/types';
import { CommandNotFoundError, resolveCommand } from '../sandbox/shell-path';

export interface PresetInfo {
  preset: AgentPreset;
  label: string;
  program: string;
  install: string;
  /**
   * What the CLI needs from inside its sandbox (docs/sandbox.md): its own login and settings
   * (writable, `~/` is $HOME; hidden from every other process) and the hosts of its model API and
   * sign-in, reached through the filtering proxy. Everything else stays hidden and unreachable.
   */
  sandbox: { write: string[]; hosts: string[] };
}

export const PRESETS: Record<Exclude<AgentPreset, 'custom' | 'shell'>, PresetInfo> = {
  'claude-code': {
    preset: 'claude-code',
    label: 'Claude Code',
    program: 'claude',
    install: 'npm install -g @anthropic-ai/claude-code',
    sandbox: { write: ['~/.claude', '~/.claude.json'], hosts: ['api.anthropic.com', 'console.anthropic.com', 'claude.ai', 'statsig.anthropic.com'] },
  },
  codex: {
    preset: 'codex',
    label: 'Codex',
    program: 'codex',
    install: 'npm install -g @openai/codex',
    sandbox: { write: ['~/.codex'], hosts: ['api.openai.com', 'auth.openai.com', 'chatgpt.com'] },
  },
  gemini: {
    preset: 'gemini',
    label: 'Gemini CLI',
    program: 'gemini',
    install: 'npm install -g @google/gemini-cli',
    sandbox: {
      write: ['~/.gemini'],
      hosts: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com', 'accounts.google.com', 'www.googleapis.com'],
    },
  },
};

export interface AgentContext {
  /** The gateway's Streamable HTTP endpoint. */
  url: string;
  /** A per-terminal gateway token. */
  token: string;
  /** A private folder (0700) for this terminal's generated files; removed when it ends. */
  runDir: string;
  searchPath: string;
  hostEnv: NodeJS.ProcessEnv;
}

export type PreparedAgent =
  | { available: true; title: string; command: string; args: string[]; env: Record<string, string>; cwd: string; files: string[] }
  | { available: false; title: string; reason: string; install?: string };

/** What a terminal needs from the host environment, and nothing else (least privilege). */
const TERMINAL_ENV = ['HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR'];

export function agentBaseEnv(spec: Pick<AgentSpec, 'env' | 'inheritEnv'>, ctx: Pick<AgentContext, 'hostEnv' | 'searchPath'>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of [...TERMINAL_ENV, ...spec.inheritEnv]) {
    const value = ctx.hostEnv[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  env.PATH = ctx.searchPath;
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  env.LANG ??= 'C.UTF-8';
  Object.assign(env, spec.env);
  // Never hand an agent the host's own credentials, even when a profile names them.
  for (const key of Object.keys(env)) if (/^GATEHOUSE_(TOKEN|UI_|DATA_DIR|SECRET_)/.test(key)) delete env[key];
  return env;
}

function writePrivate(file: string, text: string): string {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600); // mode is masked by umask on create; make it exact
  return file;
}

export function prepareAgent(spec: AgentSpec, ctx: AgentContext): PreparedAgent {
  mkdirSync(ctx.runDir, { recursive: true, mode: 0o700 });
  chmodSync(ctx.runDir, 0o700);
  const env = agentBaseEnv(spec, ctx);
  const preset = spec.preset;
  const info = preset === 'shell' || preset === 'custom' ? undefined : PRESETS[preset];
  const program = spec.command ?? info?.program ?? (preset === 'shell' ? ctx.hostEnv.SHELL || '/bin/bash' : undefined);
  const title = info?.label ?? (preset === 'shell' ? 'Shell' : (spec.command ?? 'Agent'));
  if (!program) return { available: false, title, reason: 'preset custom needs a command' };
  let command: string;
  try {
    command = resolveCommand(program, ctx.searchPath, spec.cwd);
  } catch (err) {
    if (err instanceof CommandNotFoundError) {
      return { available: false, title, reason: `${title} is not installed (${program} not found on PATH)`, install: info?.install };
    }
    throw err;
  }
  const files: string[] = [];
  const args: string[] = [];
  // Every agent can find the gateway from its environment too (scripts, custom tools).
  env.GATEHOUSE_MCP_URL = ctx.url;
  env.GATEHOUSE_MCP_TOKEN = ctx.token;
  switch (preset) {
    case 'claude-code': {
      const config = { mcpServers: { gatehouse: { type: 'http', url: ctx.url, headers: { Authorization: `Bearer ${ctx.token}` } } } };
      files.push(writePrivate(path.join(ctx.runDir, 'mcp-config.json'), `${JSON.stringify(config, null, 2)}\n`));
      args.push('--mcp-config', files[0]!, '--strict-mcp-config');
      break;
    }
    case 'codex':
      args.push('-c', `mcp_servers.gatehouse.url=${JSON.stringify(ctx.url)}`, '-c', 'mcp_servers.gatehouse.bearer_token_env_var="GATEHOUSE_MCP_TOKEN"');
      break;
    case 'gemini': {
      const settings = { mcpServers: { gatehouse: { httpUrl: ctx.url, headers: { Authorization: 'Bearer $GATEHOUSE_MCP_TOKEN' } } } };
      files.push(writePrivate(path.join(ctx.runDir, 'gemini-settings.json'), `${JSON.stringify(settings, null, 2)}\n`));
      env.GEMINI_CLI_SYSTEM_SETTINGS_PATH = files[0]!;
      break;
    }
    default:
      break;
  }
  args.push(...spec.args);
  return { available: true, title, command, args, env, cwd: spec.cwd, files };
}
