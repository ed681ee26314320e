// What the importers share: tolerant JSON parsing, `${…}` translation into Gatehouse's own
// expansion syntax (../expand.ts), server-id sanitizing, and the secret rule.
//
// The secret rule: a value that looks like a secret becomes a `${secret:NAME}` reference and is
// never written in clear into the profile. "Looks like" means: it sits under a name that says
// so (env / header / flag names with TOKEN, KEY, SECRET, PASSWORD, AUTH, CREDENTIAL), it is an
// Authorization header, or its shape is a known token format (sk-…, ghp_…, xox…-, long hex or
// base64 runs). False positives cost the user one environment variable; false negatives leak.
import { liftMcpRemote } from './oauth';
import type { ServerDraft } from './server-draft';
import { pathGrants } from './path-grants';
import { ENV_NAME_RE, RESERVED_SERVER_IDS, SERVER_ID_RE, type PolicyRuleSchema, type ProfileInput } from '../schema';
import type { z } from 'zod';
import type { ImportFormat, ImportOptions, ImportResult, ImportedSecret } from './types';
import { AUTH_HEADER_ARG, AUTH_SCHEME, HEADER_FLAG, HEADER_FLAG_EQ, TOKEN_SHAPES, WHOLE_ENV_REF, WHOLE_SECRET_REF, isSecretName, isTrivialValue, looksLikeToken, segments } from './secret-rule';

export { isSecretName } from './secret-rule';
// Declared in server-draft.ts so oauth.ts can use it without importing this file back.
export type { ServerDraft } from './server-draft';

/** The source cannot be read as the format at all (syntax error, wrong top-level shape). */
export class ImportError extends Error {}

type RuleInput = z.input<typeof PolicyRuleSchema>;
type ServerInput = NonNullable<ProfileInput['servers']>[string];

// ---------------------------------------------------------------- parsing

/**
 * JSON with comments and trailing commas (VS Code's mcp.json is JSONC; people paste comments
 * into the others too). Strings are respected, so `"http://x"` keeps its `//`.
 */
export function parseJsonc(text: string, fileName: string): unknown {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      // Keep line count so JSON.parse positions stay close to the source.
      const body = text.slice(i, end < 0 ? n : end + 2);
      out += body.replace(/[^\n]/g, ' ');
      i = end < 0 ? n : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  out = out.replace(/,(\s*[}\]])/g, '$1');
  try {
    return JSON.parse(out);
  } catch (err) {
    throw new ImportError(`${fileName}: not valid JSON: ${(err as Error).message}`);
  }
}

export { isObject } from '../../base/is-object';

/** `a.b["c d"]` style path for messages. */
export function keyPath(...parts: string[]): string {
  return parts.map((p, i) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(p) ? (i === 0 ? p : `.${p}`) : `[${JSON.stringify(p)}]`)).join('');
}

// ---------------------------------------------------------------- ${…} translation

/**
 * Rewrites a source string into Gatehouse syntax. `map` gets the body of each `${body}` (and,
 * when `bareDollar` is set, of each `$NAME`) and returns the Gatehouse text for it, or
 * undefined when the form has no equivalent: that occurrence is kept literally (escaped as
 * `$${`, so Gatehouse does not try to expand it) and reported through `onUnknown`.
 */
export function translateRefs(
  value: string,
  map: (body: string) => string | undefined,
  onUnknown: (token: string) => void,
  opts: { bareDollar?: boolean } = {},
): string {
  let out = '';
  let i = 0;
  while (i < value.length) {
    if (value.startsWith('${', i)) {
      const end = value.indexOf('}', i + 2);
      if (end < 0) {
        out += `$${value.slice(i)}`;
        break;
      }
      const body = value.slice(i + 2, end);
      const token = value.slice(i, end + 1);
      const mapped = body.includes('${') ? undefined : map(body);
      if (mapped === undefined) {
        onUnknown(token);
        out += `$${token}`;
      } else out += mapped;
      i = end + 1;
      continue;
    }
    if (opts.bareDollar && value[i] === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(value.slice(i));
      if (m) {
        const mapped = map(m[1]!);
        if (mapped !== undefined) {
          out += mapped;
          i += m[0].length;
          continue;
        }
      }
    }
    out += value[i];
    i++;
  }
  return out;
}

/** `${NAME}` / `${NAME:-default}` (shell style, as Claude Code and Gemini CLI write them). */
export function shellVarRef(body: string): string | undefined {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(body);
  if (!m) return undefined;
  if (m[2] !== undefined) return m[2].includes('$') ? undefined : `\${env:${m[1]}:-${m[2]}}`;
  return `\${env:${m[1]}}`;
}

/** `${env:NAME}` as VS Code and Cursor write it (same as Gatehouse's, default included). */
export function envColonRef(body: string): string | undefined {
  const m = /^env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^$]*))?$/.exec(body);
  if (!m) return undefined;
  return m[2] !== undefined ? `\${env:${m[1]}:-${m[2]}}` : `\${env:${m[1]}}`;
}

// ---------------------------------------------------------------- names

/** A source server name → `^[a-z][a-z0-9-]*$` (schema.ts SERVER_ID_RE). */
export function sanitizeServerId(name: string): string {
  let id = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!id) id = 'server';
  if (!/^[a-z]/.test(id)) id = `server-${id}`;
  // `fs`, `net`…: the built-in tools' prefixes are not a server's to take (schema.ts RESERVED_SERVER_IDS).
  if (RESERVED_SERVER_IDS.includes(id)) id = `${id}-server`;
  return id;
}

/** Any label → a secret / environment variable name (`api-key` → `API_KEY`). */
export function envNameFrom(label: string): string {
  let name = label
    .toUpperCase()
    .replace(/[^A-Z0-9_]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!name) name = 'SECRET';
  if (!/^[A-Z_]/.test(name)) name = `S_${name}`;
  return name;
}

// ---------------------------------------------------------------- the builder

export class ProfileBuilder {
  readonly warnings: string[] = [];
  readonly secrets: ImportedSecret[] = [];
  private readonly servers: Record<string, ServerInput> = {};
  private readonly rules: RuleInput[] = [];
  private readonly serverIds: Record<string, string> = {};
  /** Secret name → the clear value it stands for (kept in memory only, to dedupe names). */
  private readonly secretValues = new Map<string, string | undefined>();

  constructor(
    private readonly format: ImportFormat,
    private readonly label: string,
    private readonly opts: ImportOptions,
  ) {}

  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  /** Records a secret the source referred to by name (VS Code input, Codex bearer variable). */
  referSecret(name: string, from: string, kind: ImportedSecret['kind'], description?: string): string {
    if (!this.secretValues.has(name)) {
      this.secretValues.set(name, undefined);
      this.secrets.push({ name, from, kind, ...(description ? { description } : {}) });
    }
    return `\${secret:${name}}`;
  }

  /** A clear-text secret value → a `${secret:NAME}` reference, NAME derived from `base`. */
  private hideValue(base: string, serverId: string, value: string, from: string): string {
    const first = envNameFrom(base);
    // A base that already names the server (KEYS_TOKEN for server keys) is numbered, not re-prefixed.
    const scoped = first.startsWith(`${envNameFrom(serverId)}_`) ? first : envNameFrom(`${serverId}_${base}`);
    const candidates = [...new Set([first, scoped])];
    for (let n = 2; candidates.length < 12; n++) candidates.push(`${scoped}_${n}`);
    for (const name of candidates) {
      if (!this.secretValues.has(name)) {
        this.secretValues.set(name, value);
        this.secrets.push({ name, from, kind: 'clear-text' });
        return `\${secret:${name}}`;
      }
      // The same value under the same name (one token shared by two servers): set it once.
      if (this.secretValues.get(name) === value) return `\${secret:${name}}`;
    }
    throw new Error(`cannot find a free secret name for ${from}`);
  }

  /** A value under a secret-sounding name: the whole value becomes a secret reference. */
  private secretWhole(base: string, serverId: string, value: string, from: string): string {
    if (isTrivialValue(value)) return value;
    const env = WHOLE_ENV_REF.exec(value);
    if (env) {
      // ${secret:X} reads GATEHOUSE_SECRET_X, then X (secrets/provider.ts): the same variable,
      // but now redacted everywhere.
      if (env[2]) this.warn(`${from}: the default of \${${env[1]}} was dropped (a secret has no default)`);
      return this.referSecret(env[1]!, from, 'reference');
    }
    const secret = WHOLE_SECRET_REF.exec(value);
    if (secret) return this.referSecret(secret[1]!, from, 'input');
    if (!value.includes('${')) return this.hideValue(base, serverId, value, from);
    // Mixed literal and references ("prefix-${env:X}"): hide each literal run that carries data.
    return segments(value)
      .map((s) => {
        if (s.ref) {
          const e = WHOLE_ENV_REF.exec(s.text);
          return e && !e[2] ? this.referSecret(e[1]!, from, 'reference') : s.text;
        }
        return s.text.trim().length >= 8 ? this.hideValue(base, serverId, s.text, from) : s.text;
      })
      .join('');
  }

  /** Any value: token-shaped substrings of its literal text become secret references. */
  private scanValue(base: string, serverId: string, value: string, from: string): string {
    return segments(value)
      .map((s) => {
        if (s.ref) return s.text;
        // Credentials in a URL's authority (postgresql://user:password@host/db in an argument).
        let text = s.text.replace(/([a-z][a-z0-9+.-]*:\/\/[^/@:\s]+:)([^/@\s]+)@/gi, (_m, head: string, pass: string) => {
          return `${head}${this.hideValue(`${serverId}_PASSWORD`, serverId, pass, from)}@`;
        });
        // An HTTP auth scheme and its credential, wherever it appears ("Bearer lin_api_…").
        text = text.replace(AUTH_SCHEME, (m, scheme: string, gap: string, cred: string) => {
          return isTrivialValue(cred) ? m : `${scheme}${gap}${this.hideValue(`${serverId}_TOKEN`, serverId, cred, from)}`;
        });
        for (const re of TOKEN_SHAPES) {
          text = text.replace(re, (m) => (looksLikeToken(m, re) ? this.hideValue(base, serverId, m, from) : m));
        }
        return text;
      })
      .join('');
  }

  private envValue(serverId: string, key: string, value: string, from: string): string {
    return isSecretName(key) ? this.secretWhole(key, serverId, value, from) : this.scanValue(`${serverId}_${key}`, serverId, value, from);
  }

  private headerValue(serverId: string, header: string, value: string, from: string): string {
    if (/^(proxy-)?authorization$/i.test(header)) {
      const m = /^(Bearer|Basic|Token|Bot|Digest)(\s+)(.*)$/is.exec(value);
      if (m) return `${m[1]}${m[2]}${this.secretWhole(`${serverId}_TOKEN`, serverId, m[3]!, from)}`;
      return this.secretWhole(`${serverId}_TOKEN`, serverId, value, from);
    }
    // X-Api-Key → <SERVER>_API_KEY; a specific name (CONTEXT7_API_KEY) is kept as it is.
    if (isSecretName(header)) {
      const base = /^x-/i.test(header) ? `${serverId}_${header.slice(2)}` : header;
      return this.secretWhole(base, serverId, value, from);
    }
    return this.scanValue(`${serverId}_${header}`, serverId, value, from);
  }

  /**
   * Arguments. Wrappers such as `mcp-remote URL --header "Authorization: Bearer …"` carry
   * credentials in args, in every spelling people use: `--header "Name: value"`,
   * `--header Name:value`, `--header=Name: value`, `-H …`, `--api-key=…`, `--token …`,
   * `?token=…&api_key=…` in a URL, and `Bearer …` anywhere.
   */
  private argValues(serverId: string, args: string[], from: string): string[] {
    return args.map((arg, i) => {
      const where = `${from}[${i}]`;
      const prev = i > 0 ? args[i - 1]! : '';
      const headerEq = HEADER_FLAG_EQ.exec(arg);
      if (headerEq) return `${headerEq[1]}=${this.headerArg(serverId, headerEq[2]!, where)}`;
      if (HEADER_FLAG.test(prev) || AUTH_HEADER_ARG.test(arg)) return this.headerArg(serverId, arg, where);
      const flagEq = /^(--?[A-Za-z][A-Za-z0-9_-]*)=(.+)$/s.exec(arg);
      if (flagEq && isSecretName(flagEq[1]!)) {
        return `${flagEq[1]}=${this.secretWhole(`${serverId}_${flagEq[1]!.replace(/^-+/, '')}`, serverId, flagEq[2]!, where)}`;
      }
      if (/^--?[A-Za-z][A-Za-z0-9_-]*$/.test(prev) && isSecretName(prev) && !arg.startsWith('-')) {
        return this.secretWhole(`${serverId}_${prev.replace(/^-+/, '')}`, serverId, arg, where);
      }
      return this.scanValue(`${serverId}_TOKEN`, serverId, this.querySecrets(serverId, arg, where), where);
    });
  }

  /** `Name: value` / `Name:value` given to a header flag: the value as a header value. */
  private headerArg(serverId: string, arg: string, from: string): string {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(\s*:\s*)(.*)$/s.exec(arg);
    if (!m) return this.scanValue(`${serverId}_TOKEN`, serverId, arg, from);
    const [, name, sep, value] = m as unknown as [string, string, string, string];
    if (!/^(proxy-)?authorization$/i.test(name) && !isSecretName(name)) return `${name}${sep}${this.scanValue(`${serverId}_TOKEN`, serverId, value, from)}`;
    return `${name}${sep}${this.headerValue(serverId, name, value, from)}`;
  }

  /** Query parameters named like secrets (`?api_key=…&token=…`) in a URL anywhere in `text`. */
  private querySecrets(serverId: string, text: string, from: string): string {
    if (!text.includes('://') && !text.startsWith('?')) return text;
    return text.replace(/([?&])([^=&#\s]+)=([^&#\s]*)/g, (m, sep: string, key: string, value: string) => {
      if (!isSecretName(key) || !value) return m;
      return `${sep}${key}=${this.secretWhole(`${serverId}_${key}`, serverId, value, from)}`;
    });
  }

  private urlValue(serverId: string, url: string, from: string): string {
    return this.scanValue(`${serverId}_TOKEN`, serverId, this.querySecrets(serverId, url, from), from);
  }

  addServer(draft: ServerDraft): void {
    const d = liftMcpRemote(this, draft);
    let id = sanitizeServerId(d.name);
    if (this.servers[id] !== undefined) {
      let n = 2;
      while (this.servers[`${id}-${n}`] !== undefined) n++;
      id = `${id}-${n}`;
    }
    if (id !== d.name) {
      this.warn(`${d.from}: imported as server "${id}" (server ids are lowercase letters, digits and '-', starting with a letter, and not one of ${RESERVED_SERVER_IDS.join(', ')})`);
    }
    if (!SERVER_ID_RE.test(id)) throw new Error(`internal: sanitized id '${id}' is invalid`);
    this.serverIds[d.name] = id;

    const common: Record<string, unknown> = {};
    if (d.disabled) common.disabled = true;
    if (d.startupTimeoutS !== undefined) common.startup_timeout_s = d.startupTimeoutS;
    if (d.requestTimeoutS !== undefined) common.request_timeout_s = d.requestTimeoutS;

    const server: Record<string, unknown> = {};
    if (d.description) server.description = d.description;
    if (d.command !== undefined) {
      server.command = this.scanValue(`${id}_TOKEN`, id, d.command, `${d.from}.command`);
      if (d.args?.length) server.args = this.argValues(id, d.args, `${d.from}.args`);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(d.env ?? {})) {
        if (!ENV_NAME_RE.test(k)) {
          this.warn(`${d.from}.env.${k}: not a valid environment variable name, dropped`);
          continue;
        }
        env[k] = this.envValue(id, k, v, `${d.from}.env.${k}`);
      }
      if (Object.keys(env).length) server.env = env;
      const inherit = (d.inheritEnv ?? []).filter((k) => {
        if (ENV_NAME_RE.test(k)) return true;
        this.warn(`${d.from}: '${k}' is not a valid environment variable name, not passed through`);
        return false;
      });
      if (inherit.length) server.inherit_env = [...new Set(inherit)];
      if (d.cwd) server.cwd = d.cwd;
      // The source client let the server reach these unsandboxed: explicit grants, shown in the review.
      // Gatehouse's own gateway entry (a config `gatehouse connect` wrote) names Gatehouse's files, not a server's data.
      const ownGateway = [d.command, ...(d.args ?? [])].some((a) => /(^|[\\/])gatehouse(\.m?js)?$/.test(a ?? ''));
      const grants = ownGateway ? { write: [], read: [], skipped: [] } : pathGrants(d.args ?? []);
      if (grants.write.length || grants.read.length) {
        server.sandbox = { ...(grants.write.length ? { write: grants.write } : {}), ...(grants.read.length ? { read: grants.read } : {}) };
        const said = [...grants.write.map((p) => `write ${p}`), ...grants.read.map((p) => `read ${p}`)];
        this.warn(`${d.from}: granted ${said.join(', ')} in its sandbox (absolute paths in its args)`);
      }
      for (const skipped of grants.skipped) this.warn(`${d.from}.args: ${skipped}`);
    } else if (d.url !== undefined) {
      server.url = this.urlValue(id, d.url, `${d.from}.url`);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(d.headers ?? {})) headers[k] = this.headerValue(id, k, v, `${d.from}.headers.${k}`);
      if (Object.keys(headers).length) server.headers = headers;
      if (d.transport && d.transport !== 'auto') server.transport = d.transport;
      if (d.oauth) {
        server.auth = 'oauth';
        if (d.oauth.clientId) server.client_id = d.oauth.clientId;
        if (d.oauth.clientSecretValue) server.client_secret = this.secretWhole(`${id}_CLIENT_SECRET`, id, d.oauth.clientSecretValue, `${d.from}.oauth client secret`);
        if (d.oauth.scopes?.length) server.scopes = d.oauth.scopes;
        if (d.oauth.redirectPort) server.redirect_port = d.oauth.redirectPort;
      }
    } else {
      throw new Error(`internal: draft ${d.from} has neither command nor url`);
    }
    // The tool lists limit what is advertised (servers.<id>.tools), and the rules below keep a call
    // by name to a left-out tool denied with the source config's reason.
    const tools = d.enabledTools || d.disabledTools?.length ? { tools: { ...(d.enabledTools ? { include: d.enabledTools } : {}), ...(d.disabledTools?.length ? { exclude: d.disabledTools } : {}) } } : {};
    this.servers[id] = { ...server, ...common, ...tools } as ServerInput;
    this.addToolRules(id, d);
  }

  /** Tool allow/deny lists → policy rules on canonical names `<id>.<tool>`. */
  private addToolRules(id: string, d: ServerDraft): void {
    const keys = d.toolListKeys ?? { enabled: 'enabled_tools', disabled: 'disabled_tools' };
    const names = (tools: string[]) => tools.map((t) => `${id}.${t}`);
    // The deny-list first: a tool in both lists is hidden (Codex applies disabled_tools after
    // enabled_tools), and the first matching rule decides.
    if (d.disabledTools?.length) {
      this.rules.push({ match: names(d.disabledTools), decision: 'deny', reason: `${keys.disabled} of ${d.from}` });
    }
    if (d.enabledTools) {
      if (d.enabledTools.length) {
        this.rules.push({ match: names(d.enabledTools), decision: 'allow', reason: `${keys.enabled} of ${d.from}` });
      }
      this.rules.push({ match: `${id}.*`, decision: 'deny', reason: `not in ${keys.enabled} of ${d.from}` });
    }
  }

  build(): ImportResult {
    const base = this.opts.fileName.split(/[\\/]/).pop() ?? this.opts.fileName;
    const profile: ProfileInput = {
      ...(this.opts.profileName ? { name: this.opts.profileName } : {}),
      description: `Imported from ${base} (${this.label}).`,
      workspace: this.opts.workspace ?? '.',
      tool_surface: 'friendly',
      servers: this.servers,
      policy: { default: 'approve', ...(this.rules.length ? { rules: this.rules } : {}) },
    };
    if (Object.keys(this.servers).length === 0) this.warn(`${base}: no MCP servers found`);
    return { format: this.format, profile, warnings: this.warnings, secrets: this.secrets, serverIds: this.serverIds };
  }
}
