// Codex CLI: `~/.codex/config.toml` (or a trusted project's `.codex/config.toml`), one
// `[mcp_servers.NAME]` table per server. Checked against openai/codex docs/config.md, "MCP
// integration": stdio servers have command/args/env/env_vars/cwd; Streamable HTTP servers have
// url, bearer_token_env_var, http_headers and env_http_headers; every server may set
// startup_timeout_sec (default 10), tool_timeout_sec (default 60), enabled, enabled_tools and
// disabled_tools ("Codex first restricts the server to the allow-list and then removes any tools
// that appear in the deny-list"). TOML values are never expanded, so `${` is literal.
//
// Mapping: env_vars (names passed through) → inherit_env; bearer_token_env_var = "VAR" →
// header `Authorization: Bearer ${secret:VAR}`; env_http_headers { H = "VAR" } → header H from
// ${env:VAR} (${secret:VAR} when H names a secret); enabled = false → disabled: true;
// disabled_tools → deny rules; enabled_tools → allow rules, then deny `<server>.*`.
import { parse, TomlError } from 'smol-toml';
import { ImportError, ProfileBuilder, isObject, isSecretName, keyPath, type ServerDraft } from './common';
import { slashPath } from './json-family';
import type { Importer } from './types';

const KNOWN = new Set([
  'command', 'args', 'env', 'env_vars', 'cwd', 'url', 'bearer_token_env_var', 'http_headers', 'env_http_headers',
  'startup_timeout_sec', 'startup_timeout_ms', 'tool_timeout_sec', 'enabled', 'enabled_tools', 'disabled_tools',
]);

function codexDraft(b: ProfileBuilder, name: string, t: Record<string, unknown>): ServerDraft | undefined {
  const from = keyPath('mcp_servers', name);
  const d: ServerDraft = { name, from };
  const literal = (v: string) => v.replace(/\$\{/g, () => '$${');
  const strs = (key: string): string[] | undefined => {
    const v = t[key];
    if (v === undefined) return undefined;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    b.warn(`${from}.${key}: expected an array of strings; dropped`);
    return undefined;
  };
  const strMap = (key: string): Record<string, string> | undefined => {
    const v = t[key];
    if (v === undefined) return undefined;
    if (!isObject(v)) {
      b.warn(`${from}.${key}: expected a table; dropped`);
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
      else b.warn(`${from}.${key}.${k}: expected a string; dropped`);
    }
    return out;
  };
  const seconds = (key: string, scale = 1): number | undefined => {
    const v = t[key];
    if (v === undefined) return undefined;
    if (typeof v === 'number' && v > 0) return v / scale;
    b.warn(`${from}.${key}: expected a positive number; dropped`);
    return undefined;
  };

  for (const key of Object.keys(t)) {
    if (!KNOWN.has(key)) b.warn(`${from}.${key}: not supported by Gatehouse profiles; dropped`);
  }

  if (typeof t.command === 'string') {
    d.command = literal(t.command);
    d.args = strs('args')?.map(literal);
    const env = strMap('env');
    if (env) d.env = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, literal(v)]));
    d.inheritEnv = strs('env_vars');
    if (typeof t.cwd === 'string') d.cwd = literal(t.cwd);
    for (const k of ['url', 'bearer_token_env_var', 'http_headers', 'env_http_headers']) {
      if (t[k] !== undefined) b.warn(`${from}.${k}: ignored, the entry starts a command`);
    }
  } else if (typeof t.url === 'string') {
    d.url = literal(t.url);
    d.transport = 'streamable-http'; // Codex speaks Streamable HTTP only (no legacy SSE)
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(strMap('http_headers') ?? {})) headers[k] = literal(v);
    for (const [k, v] of Object.entries(strMap('env_http_headers') ?? {})) {
      // The variable is read from Codex's environment; in Gatehouse a secret-like header reads
      // the same variable through the secret provider, so it is redacted too.
      headers[k] = isSecretName(k) || /^authorization$/i.test(k) ? b.referSecret(v, `${from}.env_http_headers.${k}`, 'reference') : `\${env:${v}}`;
    }
    if (typeof t.bearer_token_env_var === 'string') {
      headers.Authorization = `Bearer ${b.referSecret(t.bearer_token_env_var, `${from}.bearer_token_env_var`, 'reference')}`;
    }
    if (Object.keys(headers).length) d.headers = headers;
    for (const k of ['args', 'env', 'env_vars', 'cwd']) {
      if (t[k] !== undefined) b.warn(`${from}.${k}: ignored, the entry is an HTTP server`);
    }
  } else {
    b.warn(`${from}: neither a command nor a url; skipped`);
    return undefined;
  }

  d.startupTimeoutS = seconds('startup_timeout_sec') ?? seconds('startup_timeout_ms', 1000);
  d.requestTimeoutS = seconds('tool_timeout_sec');
  if (t.enabled === false) d.disabled = true;
  d.enabledTools = strs('enabled_tools');
  d.disabledTools = strs('disabled_tools');
  return d;
}

export const codexImporter: Importer = {
  format: 'codex',
  label: 'Codex',
  detect(fileName, text) {
    const p = slashPath(fileName);
    return p.endsWith('.toml') && (/(^|\/)\.codex\//.test(p) || /^\s*\[\s*mcp_servers\b/m.test(text) || p.endsWith('config.toml'));
  },
  importConfig(text, opts) {
    let root: Record<string, unknown>;
    try {
      root = parse(text) as Record<string, unknown>;
    } catch (err) {
      const where = err instanceof TomlError ? ` (line ${err.line}, column ${err.column})` : '';
      throw new ImportError(`${opts.fileName}: not valid TOML${where}: ${(err as Error).message.split('\n')[0]}`);
    }
    const b = new ProfileBuilder('codex', 'Codex', opts);
    const servers = root.mcp_servers;
    if (servers !== undefined && !isObject(servers)) throw new ImportError(`${opts.fileName}: mcp_servers must be a table`);
    for (const [name, table] of Object.entries(servers ?? {})) {
      if (!isObject(table)) {
        b.warn(`${keyPath('mcp_servers', name)}: expected a table; skipped`);
        continue;
      }
      const d = codexDraft(b, name, table);
      if (d) b.addServer(d);
    }
    return b.build();
  },
};
