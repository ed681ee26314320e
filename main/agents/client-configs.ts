// The configuration that points an MCP client at Gatehouse's gateway for one profile: the single
// source for `gatehouse connect` and the app's `connect:configs`. HTTP (the running gateway's
// Streamable HTTP endpoint, bearer token from an environment variable) where the client supports
// it and a URL is known; otherwise stdio (`gatehouse gateway --profile FILE --quiet`), which every
// client here can launch. The token itself is never written, only a reference to it.
//
// Shapes checked against each client's documentation:
// - Claude Code: `.mcp.json` / `--mcp-config`, `mcpServers.NAME` with `type: "http"`, `url`,
//   `headers`; `${VAR}` is expanded in headers (code.claude.com/docs/en/mcp).
// - Codex: `[mcp_servers.NAME]` with `url` and `bearer_token_env_var`, or `command`/`args`
//   (openai/codex docs/config.md, "MCP integration").
// - Gemini CLI: settings.json `mcpServers.NAME.httpUrl` + `headers`; string values may use
//   `$VAR`/`${VAR}` (google-gemini/gemini-cli docs/tools/mcp-server.md, docs/cli/configuration.md).
// - VS Code: `.vscode/mcp.json` `servers.NAME` with `type: "http"`, and an `inputs` entry
//   (promptString, password: true) VS Code asks for once and keeps in its secret storage
//   (code.visualstudio.com/docs/copilot/reference/mcp-configuration).
// - Cursor: `mcp.json` `mcpServers.NAME` with `url` + `headers`, `${env:NAME}` interpolation.
// - Claude Desktop: `claude_desktop_config.json` `mcpServers.NAME` command/args: stdio only.
// - MCP Inspector: `mcp.json` `mcpServers.NAME` with `type: "stdio"` + command/args or
//   `type: "streamable-http"` + url, run as `inspector --config FILE --server NAME`; header values
//   are taken literally, so the token goes on its command line (`--header`), not in the file.
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { appRoot, dataDir as defaultDataDir, userProfilesDir } from '../paths';
import { isObject } from '../base/is-object';
import { editJsonc, JsoncMergeError, valueAt, type JsoncChange } from './jsonc-merge';

export const CLIENTS = ['claude-code', 'codex', 'gemini', 'vscode', 'cursor', 'claude-desktop', 'inspector'] as const;
export type ClientId = (typeof CLIENTS)[number];

/** How the VS Code token prompt Gatehouse adds begins (so it can be removed when no longer used). */
const GATEHOUSE_INPUT_DESCRIPTION = 'Gatehouse gateway token';

/** The entry name Gatehouse owns in every client's configuration. */
export const ENTRY_NAME = 'gatehouse';

interface ClientInfo {
  label: string;
  http: boolean;
  stdio: boolean;
  format: 'json' | 'toml';
  /** The key holding the servers. */
  container: 'mcpServers' | 'servers' | 'mcp_servers';
}

export const CLIENT_INFO: Record<ClientId, ClientInfo> = {
  'claude-code': { label: 'Claude Code', http: true, stdio: true, format: 'json', container: 'mcpServers' },
  codex: { label: 'Codex', http: true, stdio: true, format: 'toml', container: 'mcp_servers' },
  gemini: { label: 'Gemini CLI', http: true, stdio: true, format: 'json', container: 'mcpServers' },
  vscode: { label: 'VS Code', http: true, stdio: true, format: 'json', container: 'servers' },
  cursor: { label: 'Cursor', http: true, stdio: true, format: 'json', container: 'mcpServers' },
  'claude-desktop': { label: 'Claude Desktop', http: false, stdio: true, format: 'json', container: 'mcpServers' },
  inspector: { label: 'MCP Inspector', http: true, stdio: true, format: 'json', container: 'mcpServers' },
};

/**
 * Clients that start stdio servers without the user's environment (Codex passes a fixed allowlist,
 * the Inspector the MCP SDK's default: PATH, HOME, USER, SHELL, TERM, LOGNAME).
 */
const NO_ENV_CLIENTS: ReadonlySet<ClientId> = new Set(['codex', 'inspector']);

/** How the MCP Inspector is started (its launcher; `--cli` runs one method in the terminal). */
const INSPECTOR_COMMAND = 'npx @modelcontextprotocol/inspector';

export type ConnectTransport = 'http' | 'stdio';

export interface ClientConfigOptions {
  profileName: string;
  /** http or stdio; default http when a URL is known and the client speaks it, else stdio. */
  transport?: ConnectTransport;
  /** Gatehouse's data directory, for clients that do not pass GATEHOUSE_DATA_DIR (default: this one's). */
  dataDir?: string;
  /** The user's profiles folder, for the same clients (default: GATEHOUSE_PROFILES_DIR or the usual one, from `env`). */
  profilesDir?: string;
  /** The profile file; made absolute (the client starts the gateway from its own directory). */
  profileFile: string;
  /** The running gateway's Streamable HTTP endpoint (`http://127.0.0.1:PORT/mcp`). */
  url?: string;
  /** The environment variable that holds the gateway's bearer token. */
  tokenEnv?: string;
  /** Absolute path of `bin/gatehouse`; default this installation's. */
  gatehouseCommand?: string;
  /** For project-scoped locations (`.mcp.json`, `.vscode/mcp.json`). */
  cwd?: string;
  /** HOME, APPDATA, CODEX_HOME, XDG_CONFIG_HOME for user-scoped locations. */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

export interface ClientConfig {
  client: ClientId;
  label: string;
  /** The client's standard configuration file for this entry. */
  where: string;
  format: 'json' | 'toml' | 'shell';
  transport: 'http' | 'stdio';
  /** The configuration as it would be written to a new file. */
  text: string;
  /** What the user should know (token, restart, alternatives). */
  notes: string[];
  /** Where the entry goes inside the file, for merging. */
  container: ClientInfo['container'];
  entry: Record<string, unknown>;
  /** VS Code only: `inputs` the entry refers to. */
  inputs?: Array<Record<string, unknown>>;
  /** The `gatehouse connect` command line that prints this same configuration. */
  command: string;
  /** The command line that starts the client with this configuration, for clients run that way. */
  run?: string;
}

/** The client has no stdio support and no URL was given: the gateway must be running first. */
export class GatewayUrlRequired extends Error {}

export function defaultGatehouseCommand(): string {
  return path.join(appRoot(), 'bin', 'gatehouse');
}

/** The client's standard configuration file (project-scoped ones relative to `cwd`). */
export function clientConfigPath(client: ClientId, opts: { cwd?: string; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform } = {}): string {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const home = env.HOME || env.USERPROFILE || os.homedir();
  switch (client) {
    case 'claude-code':
      return path.join(cwd, '.mcp.json');
    case 'codex':
      return path.join(env.CODEX_HOME || path.join(home, '.codex'), 'config.toml');
    case 'gemini':
      return path.join(home, '.gemini', 'settings.json');
    case 'vscode':
      return path.join(cwd, '.vscode', 'mcp.json');
    case 'cursor':
      return path.join(home, '.cursor', 'mcp.json');
    case 'inspector':
      // The Inspector's own catalog (its default without --config/--catalog).
      return env.MCP_CATALOG_PATH ? path.resolve(cwd, env.MCP_CATALOG_PATH) : path.join(home, '.mcp-inspector', 'mcp.json');
    case 'claude-desktop': {
      const platform = opts.platform ?? process.platform;
      if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
      // No official Linux build; community builds read the XDG location.
      return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'Claude', 'claude_desktop_config.json');
    }
  }
}

/** VS Code input id for the token variable: GATEHOUSE_TOKEN → gatehouse-token (and back on import). */
function inputId(tokenEnv: string): string {
  return tokenEnv.toLowerCase().replace(/_/g, '-');
}

export function clientConfig(client: ClientId, opts: ClientConfigOptions): ClientConfig {
  const info = CLIENT_INFO[client];
  if (!info) throw new Error(`unknown client '${client}' (expected ${CLIENTS.join(', ')})`);
  const tokenEnv = opts.tokenEnv ?? 'GATEHOUSE_TOKEN';
  const profileFile = path.resolve(opts.profileFile);
  if (opts.transport === 'http' && !info.http) throw new Error(`${info.label} starts its servers itself over stdio; it cannot connect over HTTP`);
  if (opts.transport === 'http' && opts.url === undefined) {
    throw new GatewayUrlRequired(`the HTTP form needs the running gateway's URL: pass --url (\`gatehouse launch --profile ${opts.profileName}\` and the window's Connect view show it)`);
  }
  const useHttp = opts.transport === 'stdio' ? false : opts.url !== undefined && info.http;
  if (!useHttp && !info.stdio) {
    throw new GatewayUrlRequired(
      `${info.label} connects over HTTP only: start the gateway first (\`gatehouse launch --profile ${opts.profileName}\` prints its URL) and pass --url`,
    );
  }
  const where = clientConfigPath(client, opts);
  const notes: string[] = [];
  let entry: Record<string, unknown>;
  let inputs: ClientConfig['inputs'];

  if (useHttp) {
    const url = opts.url!;
    notes.push(
      `The gateway must be running at ${url} (\`gatehouse launch --profile ${opts.profileName}\`, or \`gatehouse gateway --profile ${opts.profileName} --http PORT\`).`,
    );
    const bearer = {
      'claude-code': `Bearer \${${tokenEnv}}`,
      gemini: `Bearer \${${tokenEnv}}`,
      cursor: `Bearer \${env:${tokenEnv}}`,
      vscode: `Bearer \${input:${inputId(tokenEnv)}}`,
    };
    switch (client) {
      case 'claude-code':
        entry = { type: 'http', url, headers: { Authorization: bearer['claude-code'] } };
        notes.push(`Project scope: Claude Code reads ${where} (it asks once before trusting it); or pass the file with \`claude --mcp-config FILE\`.`);
        break;
      case 'codex':
        entry = { url, bearer_token_env_var: tokenEnv };
        break;
      case 'gemini':
        entry = { httpUrl: url, headers: { Authorization: bearer.gemini } };
        break;
      case 'inspector':
        entry = { type: 'streamable-http', url };
        break;
      case 'vscode':
        entry = { type: 'http', url, headers: { Authorization: bearer.vscode } };
        inputs = [{ type: 'promptString', id: inputId(tokenEnv), description: `${GATEHOUSE_INPUT_DESCRIPTION} (${tokenEnv})`, password: true }];
        notes.push('VS Code asks for the token once (input "' + inputId(tokenEnv) + '") and keeps it in its secret storage.');
        break;
      default:
        entry = { url, headers: { Authorization: bearer.cursor } };
        break;
    }
    if (client !== 'vscode') {
      notes.push(
        `${info.label} reads the token from the environment variable ${tokenEnv}: set it where ${info.label} starts, to the token the gateway uses (set ${tokenEnv} before starting the gateway so both sides share it; otherwise use the one Gatehouse generated for this profile (Copy token in the window; gatehouse launch prints it): it stays the same across launches).`,
      );
    }
  } else {
    const command = opts.gatehouseCommand ?? defaultGatehouseCommand();
    const args = ['gateway', '--profile', profileFile, '--quiet'];
    if (NO_ENV_CLIENTS.has(client)) {
      // GATEHOUSE_DATA_DIR / GATEHOUSE_PROFILES_DIR in the user's shell never reach the gateway
      // these clients start: name both dirs in the args, so the gateway finds the same audit
      // store, approvals socket and profiles folder (docs/gateway.md, "Connecting a client").
      const env = opts.env ?? process.env;
      const profiles = path.resolve(opts.profilesDir ?? userProfilesDir(env));
      const dir = path.resolve(opts.dataDir ?? defaultDataDir(env));
      args.push('--profiles-dir', profiles, '--data-dir', dir);
      const envKey = info.format === 'toml' ? `[mcp_servers.${ENTRY_NAME}.env]` : `"env" of the ${ENTRY_NAME} entry`;
      notes.push(
        `${info.label} starts stdio servers with a fixed set of environment variables (PATH, HOME…), not your shell's: the data directory is passed as --data-dir ${dir} and the profiles folder as --profiles-dir ${profiles}; variables the profile reads with \${env:…} must be listed under ${envKey}.`,
      );
    }
    entry = client === 'vscode' || client === 'claude-code' || client === 'inspector' ? { type: 'stdio', command, args } : { command, args };
    notes.push(`${info.label} starts \`gatehouse gateway\` itself (stdio); no token is needed.`);
    notes.push(
      `The gateway resolves the profile's \${env:…}/\${secret:…} from the environment ${info.label} gives it: add the variables the profile needs under "env" (as references, not values) if ${info.label} does not pass them.`,
    );
    if (client === 'claude-desktop') {
      notes.push(`Claude Desktop must find \`node\` on its PATH to run ${command}; if it does not, use the absolute path of node as the command and put ${command} first in args.`);
    }
    if (opts.url !== undefined && !info.http) notes.push(`${info.label} cannot connect over HTTP; --url is not used.`);
  }
  notes.push(`Restart ${info.label} (or reload its MCP servers) after changing ${path.basename(where)}.`);

  const text = info.format === 'toml' ? tomlText(entry, opts.profileName) : jsonText(info.container, entry, inputs);
  const transport: ConnectTransport = useHttp ? 'http' : 'stdio';
  const command = ['gatehouse', 'connect', '--profile', profileFile, '--client', client, '--transport', transport, ...(useHttp ? ['--url', opts.url!] : []), ...(opts.tokenEnv && useHttp ? ['--token-env', tokenEnv] : [])]
    .map(shellWord)
    .join(' ');
  const run = client === 'inspector' ? inspectorRun(where, useHttp ? tokenEnv : undefined) : undefined;
  if (run) notes.unshift(`Run it: ${run} (without --cli and --method the Inspector opens its web UI on the same server).`);
  return { client, label: info.label, where, format: info.format, transport, text, notes, container: info.container, entry, inputs, command, ...(run ? { run } : {}) };
}

/** The Inspector's command line for this entry; over HTTP the token travels as a header, from the shell's variable. */
function inspectorRun(where: string, tokenEnv: string | undefined): string {
  const header = tokenEnv ? ` --header "Authorization: Bearer $${tokenEnv}"` : '';
  return `${INSPECTOR_COMMAND} --cli --config ${shellWord(where)} --server ${ENTRY_NAME}${header} --method tools/list`;
}

function shellWord(w: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

function jsonText(container: string, entry: Record<string, unknown>, inputs?: ClientConfig['inputs']): string {
  const doc: Record<string, unknown> = {};
  if (inputs) doc.inputs = inputs;
  doc[container] = { [ENTRY_NAME]: entry };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function tomlText(entry: Record<string, unknown>, profileName: string): string {
  const lines = [`# Gatehouse gateway for profile '${profileName}' (written by \`gatehouse connect\`)`, `[mcp_servers.${ENTRY_NAME}]`];
  for (const [k, v] of Object.entries(entry)) lines.push(`${k} = ${tomlValue(v)}`);
  return `${lines.join('\n')}\n`;
}

function tomlValue(v: unknown): string {
  // JSON string escapes are valid TOML basic-string escapes.
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(', ')}]`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`cannot write ${JSON.stringify(v)} as a TOML value`);
}

// ---------------------------------------------------------------- writing into existing files

/** The existing file cannot be merged into (not JSON/TOML, or an unexpected shape). */
export class MergeError extends Error {}

export interface MergeResult {
  text: string;
  /** Things the user should see next to the diff (comments that will be lost...). */
  notes: string[];
}

/**
 * `existing` with Gatehouse's entry added or replaced, every other entry and setting kept.
 * JSON/JSONC files are edited in place with jsonc-parser (comments, order, indentation survive);
 * TOML files are edited as text so comments and layout survive, then checked by parsing.
 */
export function mergeClientConfig(cfg: ClientConfig, existing: string | undefined): MergeResult {
  if (existing === undefined || existing.trim() === '') return { text: cfg.text, notes: [] };
  return cfg.format === 'toml' ? mergeToml(cfg, existing) : mergeJson(cfg, existing);
}

function mergeJson(cfg: ClientConfig, existing: string): MergeResult {
  const where = cfg.where;
  try {
    const servers = valueAt(existing, where, [cfg.container]);
    if (servers && servers.type !== 'object') throw new MergeError(`cannot merge into ${where}: \`${cfg.container}\` is not an object`);
    const inputsNode = valueAt(existing, where, ['inputs']);
    if (inputsNode && inputsNode.type !== 'array') throw new MergeError(`cannot merge into ${where}: \`inputs\` is not an array`);
    const current = (inputsNode?.value as unknown[] | undefined) ?? [];
    let text = editJsonc(existing, where, [{ path: [cfg.container, ENTRY_NAME], value: cfg.entry }]);
    if (cfg.inputs) {
      // Ours replace inputs of the same id in place; new ones go at the end.
      const changes: JsoncChange[] = [];
      let length = current.length;
      for (const input of cfg.inputs) {
        const at = current.findIndex((x) => isObject(x) && x.id === input.id);
        if (at >= 0) changes.push({ path: ['inputs', at], value: input });
        else if (!inputsNode) changes.push({ path: ['inputs'], value: [input] });
        else changes.push({ path: ['inputs', length++], value: input, insert: true });
      }
      text = editJsonc(text, where, changes);
    } else if (cfg.client === 'vscode' && inputsNode) {
      // Back to stdio: the token prompt we added is not used any more, unless something else refers to it.
      const unused = current
        .map((x, i) => ({ x, i }))
        .filter(({ x }) => isGatehouseInput(x) && !text.includes(`\${input:${String((x as { id: unknown }).id)}}`))
        .map(({ i }) => i);
      if (unused.length === current.length) text = editJsonc(text, where, [{ path: ['inputs'], value: undefined }]);
      else if (unused.length > 0) text = editJsonc(text, where, unused.reverse().map((i) => ({ path: ['inputs', i], value: undefined })));
    }
    return { text: text.endsWith('\n') ? text : `${text}\n`, notes: [] };
  } catch (err) {
    if (err instanceof MergeError) throw err;
    if (err instanceof JsoncMergeError) throw new MergeError(err.message);
    throw err;
  }
}

/** An `inputs` entry Gatehouse wrote: the gateway token prompt. */
function isGatehouseInput(x: unknown): boolean {
  return isObject(x) && typeof x.description === 'string' && x.description.startsWith(GATEHOUSE_INPUT_DESCRIPTION);
}

const TOML_HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;

function tomlKeyPath(header: string): string[] {
  return header.split('.').map((p) => p.trim().replace(/^"(.*)"$|^'(.*)'$/, '$1$2'));
}

function mergeToml(cfg: ClientConfig, existing: string): MergeResult {
  let before: Record<string, unknown>;
  try {
    before = parseToml(existing) as Record<string, unknown>;
  } catch (err) {
    throw new MergeError(`cannot merge into ${cfg.where}: not valid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  // Drop our old table ([mcp_servers.gatehouse] and its sub-tables, with the comment line we
  // wrote above it), then append the new one.
  const lines = existing.split('\n');
  const kept: string[] = [];
  let skipping = false;
  for (const line of lines) {
    const h = TOML_HEADER.exec(line);
    if (h) {
      const p = tomlKeyPath(h[1]!);
      skipping = p[0] === 'mcp_servers' && p[1] === ENTRY_NAME;
      if (skipping && kept.length && /^# Gatehouse gateway for profile /.test(kept[kept.length - 1]!)) kept.pop();
    }
    if (!skipping) kept.push(line);
  }
  while (kept.length && kept[kept.length - 1]!.trim() === '') kept.pop();
  const text = `${kept.join('\n')}${kept.length ? '\n\n' : ''}${cfg.text}`;
  if (tomlMergeIsSound(before, text, cfg.entry)) return { text, notes: [] };

  // Our entry was written some other way (inline table, dotted keys): rewrite the whole file.
  const servers = isObject(before.mcp_servers) ? before.mcp_servers : {};
  const rewritten = stringifyToml({ ...before, mcp_servers: { ...servers, [ENTRY_NAME]: cfg.entry } });
  return { text: `${rewritten.trimEnd()}\n`, notes: [`${cfg.where} was rewritten as a whole: its comments and layout are not kept (the backup has them)`] };
}

function tomlMergeIsSound(before: Record<string, unknown>, text: string, entry: Record<string, unknown>): boolean {
  let after: Record<string, unknown>;
  try {
    after = parseToml(text) as Record<string, unknown>;
  } catch {
    return false;
  }
  const withoutOurs = (doc: Record<string, unknown>) => {
    const servers = isObject(doc.mcp_servers) ? { ...doc.mcp_servers } : undefined;
    if (servers) delete servers[ENTRY_NAME];
    return JSON.stringify({ ...doc, mcp_servers: servers ?? null });
  };
  const ours = isObject(after.mcp_servers) ? after.mcp_servers[ENTRY_NAME] : undefined;
  return withoutOurs(before) === withoutOurs(after) && JSON.stringify(ours) === JSON.stringify(entry);
}

// ---------------------------------------------------------------- showing the change

/** A unified diff (`diff -u` style) of two texts; empty when they are equal. */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string, context = 3): string {
  if (oldText === newText) return '';
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const ops = diffLines(a, b);
  const out = [`--- ${oldLabel}`, `+++ ${newLabel}`];
  // Group the edit script into hunks with `context` unchanged lines around each change.
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.op === ' ') i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end]!.op !== ' ') end++;
      let run = end;
      while (run < ops.length && ops[run]!.op === ' ') run++;
      if (run < ops.length && run - end <= context * 2) end = run;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const hunk = ops.slice(start, end);
    const first = ops[start]!;
    const aCount = hunk.filter((o) => o.op !== '+').length;
    const bCount = hunk.filter((o) => o.op !== '-').length;
    const aStart = aCount ? first.a + 1 : first.a;
    const bStart = bCount ? first.b + 1 : first.b;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of hunk) out.push(`${o.op}${o.line}`);
    i = end;
  }
  return `${out.join('\n')}\n`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

interface DiffOp {
  op: ' ' | '-' | '+';
  line: string;
  /** Lines of a / b before this one (0-based positions). */
  a: number;
  b: number;
}

/** Longest-common-subsequence line diff; configuration files are small enough for O(n·m). */
function diffLines(a: string[], b: string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  if (n * m > 4_000_000) {
    // Too big to align cheaply: show it as a replacement.
    return [...a.map((line, i) => ({ op: '-' as const, line, a: i, b: 0 })), ...b.map((line, j) => ({ op: '+' as const, line, a: n, b: j }))];
  }
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: ' ', line: a[i]!, a: i, b: j });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // Removals before additions, as `diff -u` shows them.
      ops.push({ op: '-', line: a[i]!, a: i, b: j });
      i++;
    } else {
      ops.push({ op: '+', line: b[j]!, a: i, b: j });
      j++;
    }
  }
  return ops;
}
