// OAuth settings of the clients' configs → `auth: oauth` (docs/auth.md "In a profile"). Kept apart from common.ts
// so the importers' secret handling (common.ts) and this mapping change independently.
//   - Claude Code and VS Code sign in to a remote (http/sse) server by themselves when it
//     answers 401: a remote entry without an Authorization header gets `auth: oauth`, which
//     does the same in Gatehouse (and nothing at all for a server that needs no sign-in).
//   - Claude Code's `oauth` object: clientId → client_id, callbackPort → redirect_port,
//     scopes (one space-separated string) → scopes. Its client secret lives in Claude Code's
//     keychain, not in the file: the user is told how to add it.
//   - `mcp-remote` wrappers (npx mcp-remote URL [PORT] --header … --transport …
//     --static-oauth-client-info JSON --static-oauth-client-metadata JSON), the usual way to
//     reach a remote server from Claude Desktop: the wrapper is dropped and the entry becomes
//     the `url:` server it wraps, with `auth: oauth` unless it sends its own Authorization.
import type { DraftOAuth, DraftWarnings, ServerDraft } from './server-draft';

const hasAuthorization = (d: ServerDraft) => Object.keys(d.headers ?? {}).some((h) => /^authorization$/i.test(h));

/** Claude Code / VS Code remote entries sign in on 401: so does the imported server. */
export function remoteSignsIn(d: ServerDraft): void {
  if (d.url !== undefined && d.command === undefined && !hasAuthorization(d)) d.oauth ??= {};
}

/** Claude Code's `oauth` key of a server entry. */
export function claudeCodeOAuth(b: DraftWarnings, value: unknown, d: ServerDraft, where: string): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    b.warn(`${where}: expected an object; dropped`);
    return;
  }
  const o: DraftOAuth = (d.oauth ??= {});
  for (const [k, v] of Object.entries(value)) {
    if (k === 'clientId' && typeof v === 'string' && v) {
      o.clientId = v;
      b.warn(`${where}.clientId: if this client has a secret (Claude Code keeps it in its keychain), store it with \`gatehouse secrets set NAME\` and add client_secret: \${secret:NAME}`);
    } else if (k === 'callbackPort' && Number.isInteger(v) && (v as number) > 0 && (v as number) < 65536) {
      o.redirectPort = v as number;
      b.warn(`${where}.callbackPort: Gatehouse's redirect URI is http://127.0.0.1:${v}/callback (Claude Code's is http://localhost:${v}/callback); register it with the authorization server`);
    } else if (k === 'scopes' && typeof v === 'string' && v.trim()) o.scopes = v.trim().split(/\s+/);
    else if (k === 'authServerMetadataUrl') b.warn(`${where}.authServerMetadataUrl: not imported (Gatehouse discovers the authorization server from the server itself)`);
    else b.warn(`${where}.${k}: not supported by Gatehouse; dropped`);
  }
}

const WRAPPERS = new Set(['npx', 'bunx', 'pnpx', 'npx.cmd', 'mcp-remote']);
const IS_MCP_REMOTE = /^mcp-remote(@[\w.-]+)?$/;
/** mcp-remote flags that take a value, and those that do not, that Gatehouse has no use for. */
const DROPPED_WITH_VALUE = new Set(['--host', '--resource', '--auth-timeout', '--ignore-tool']);
const DROPPED_FLAGS = new Set(['--allow-http', '--debug', '--silent', '--enable-proxy']);

/**
 * An `mcp-remote` wrapper entry → the remote server it wraps. Returns the draft unchanged when
 * it is not one (or cannot be read as one, with a warning).
 */
export function liftMcpRemote(b: DraftWarnings, d: ServerDraft): ServerDraft {
  if (d.command === undefined) return d;
  const cmd = (d.command.split(/[\\/]/).pop() ?? d.command).toLowerCase();
  if (!WRAPPERS.has(cmd)) return d;
  const args = [...(d.args ?? [])];
  let i = 0;
  if (cmd !== 'mcp-remote') {
    // npx [-y|--yes|-p pkg...] mcp-remote ...
    while (i < args.length && args[i]!.startsWith('-') && !IS_MCP_REMOTE.test(args[i]!)) i += args[i] === '-p' || args[i] === '--package' ? 2 : 1;
    if (!IS_MCP_REMOTE.test(args[i] ?? '')) return d;
    i += 1;
  }
  const where = `${d.from}.args`;
  const rest = args.slice(i);
  const url = rest.shift();
  if (!url || !/^https?:\/\//i.test(url)) {
    b.warn(`${where}: an mcp-remote wrapper without a URL; kept as a command`);
    return d;
  }
  const out: ServerDraft = { name: d.name, from: d.from, url, headers: {}, ...(d.description ? { description: d.description } : {}), ...(d.disabled ? { disabled: true } : {}) };
  const o: DraftOAuth = {};
  const json = (flag: string, raw: string | undefined): Record<string, unknown> | undefined => {
    if (raw?.startsWith('@')) {
      b.warn(`${where}: ${flag} reads ${raw.slice(1)}; not imported (put its values in the profile)`);
      return undefined;
    }
    try {
      const v = JSON.parse(raw ?? '') as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {}
    b.warn(`${where}: ${flag} expects a JSON object; dropped`);
    return undefined;
  };
  // An argument this mapping does not understand keeps the wrapper as a command (its args then go
  // through the importer's secret scan, common.ts): lifting it would drop what it says. Warnings
  // name positions, never values: an argument may be a secret (docs/security.md "What is protected": import never copies one).
  let position = i;
  const keepAsCommand = (why: string): ServerDraft => {
    b.warn(`${where}[${position}]: ${why}; the mcp-remote wrapper is kept as a command`);
    return d;
  };
  while (rest.length) {
    position = args.length - rest.length;
    const a = rest.shift()!;
    if (a === '--header') {
      const h = rest.shift() ?? '';
      const m = /^([^:\s]+):\s*(.*)$/s.exec(h);
      if (m) out.headers![m[1]!] = m[2]!;
      else return keepAsCommand("--header's value is not 'Name: value'");
    } else if (a === '--transport') {
      const t = rest.shift();
      if (t === 'http-only') out.transport = 'streamable-http';
      else if (t === 'sse-only') out.transport = 'sse';
    } else if (a === '--static-oauth-client-info') {
      const info = json(a, rest.shift());
      if (typeof info?.client_id === 'string') o.clientId = info.client_id;
      if (typeof info?.client_secret === 'string') o.clientSecretValue = info.client_secret;
    } else if (a === '--static-oauth-client-metadata') {
      const meta = json(a, rest.shift());
      if (typeof meta?.scope === 'string' && meta.scope.trim()) o.scopes = meta.scope.trim().split(/\s+/);
    } else if (/^\d{2,5}$/.test(a)) {
      o.redirectPort = Number(a);
    } else if (DROPPED_WITH_VALUE.has(a)) {
      rest.shift();
      b.warn(`${where}: mcp-remote's ${a} has no Gatehouse equivalent; dropped`);
    } else if (DROPPED_FLAGS.has(a)) {
      if (a === '--allow-http') continue; // Gatehouse allows http:// URLs as they are written
      b.warn(`${where}: mcp-remote's ${a} has no Gatehouse equivalent; dropped`);
    } else return keepAsCommand('an argument mcp-remote mapping does not understand');
  }
  for (const [k, v] of Object.entries(d.env ?? {})) {
    // mcp-remote headers often read `${AUTH_TOKEN}` from env: keep the value where it is used.
    for (const [h, hv] of Object.entries(out.headers!)) out.headers![h] = hv.split(`\${${k}}`).join(v);
  }
  if (!hasAuthorization(out)) out.oauth = o;
  else if (o.clientId || o.clientSecretValue) b.warn(`${where}: OAuth client settings dropped (the entry sends its own Authorization header)`);
  // The URL without its query (which may carry a token: the importer turns that into a ${secret:…}).
  b.warn(`${d.from}: the mcp-remote wrapper was replaced by the remote server it reaches (${url.split(/[?#]/)[0]})${out.oauth ? ', signed in by Gatehouse (auth: oauth)' : ''}`);
  return out;
}
