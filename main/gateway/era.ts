// Which MCP era a downstream request speaks, chosen per request as MCP 2026-07-28 says
// (basic/index "Protocol version", basic/transports "Protocol version header"): a request of the
// new era carries its protocol version and client capabilities in `_meta`, no session, and on
// HTTP the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers; an old-era one
// (2025-11-25 and before) begins with `initialize` and rides on its session.
//
// This module only classifies and validates: it answers "which era", "is this request's
// `_meta` complete", "do its headers agree with its body". The new-era handler acts on it.
import { SUPPORTED_PROTOCOL_VERSIONS, type ClientCapabilities, type Implementation } from '@modelcontextprotocol/sdk/types.js';
import { NEW_ERA_VERSIONS, isNewEraVersion } from '../../common/protocol-era';

// The era rule is common/protocol-era.ts's (the window labels versions by the same list).
export { NEW_ERA_VERSIONS, isNewEraVersion } from '../../common/protocol-era';
/** Every version the gateway speaks downstream, newest first (what -32022 and server/discover list). */
export const SUPPORTED_VERSIONS: string[] = [...NEW_ERA_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** MCP 2026-07-28 error codes (schema: HeaderMismatchError, MissingRequiredClientCapabilityError, UnsupportedProtocolVersionError). */
export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export function isLegacyVersion(version: string | undefined): boolean {
  return version !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

function metaOf(message: unknown): Record<string, unknown> | undefined {
  const params = (message as { params?: unknown } | undefined)?.params;
  if (!params || typeof params !== 'object' || Array.isArray(params)) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

/**
 * Whether a request arriving without a session belongs to the new era. On HTTP a version
 * header that is not an old-era version (2026-07-28, or one the gateway does not know, which
 * the new-era handler refuses with -32022) decides; without the header, a protocol version in
 * `_meta` does (stdio, or a client that sends no header). Anything else is old-era: it must
 * begin with `initialize`.
 */
export function isNewEraRequest(message: unknown, headerVersion?: string): boolean {
  const m = message as { method?: unknown; id?: unknown } | undefined;
  if (!m || typeof m.method !== 'string') return false;
  if (headerVersion !== undefined) return !isLegacyVersion(headerVersion);
  if (m.method === 'initialize') return false;
  const meta = metaOf(message);
  return typeof meta?.[META_PROTOCOL_VERSION] === 'string' || m.method === 'server/discover';
}

/** What a valid new-era request told about itself. */
export interface RequestEra {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: string;
}

export interface EraFault {
  code: number;
  message: string;
  data?: unknown;
  /** The HTTP status the fault is answered with (basic/transports). */
  status: number;
}

/**
 * Validates a new-era request's `_meta` (and, on HTTP, that the version header agrees with it).
 * MCP 2026-07-28: missing `_meta` or one of its required fields is -32602 (HTTP 400); a header
 * that disagrees with the body is -32020 (400); a version the gateway does not serve is -32022
 * (400) with `data.supported` and `data.requested`.
 */
export function readEra(message: unknown, headerVersion?: string): RequestEra | EraFault {
  const meta = metaOf(message);
  if (!meta) return { code: -32602, status: 400, message: `Invalid params: a ${NEW_ERA_VERSIONS[0]} request carries params._meta with ${META_PROTOCOL_VERSION} and ${META_CLIENT_CAPABILITIES}; this one has no _meta` };
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string') return { code: -32602, status: 400, message: `Invalid params: _meta lacks ${META_PROTOCOL_VERSION} (expected a protocol version string such as "${NEW_ERA_VERSIONS[0]}")` };
  if (headerVersion !== undefined && headerVersion !== version) {
    return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: MCP-Protocol-Version is '${headerVersion}' but _meta says '${version}'` };
  }
  if (!isNewEraVersion(version)) {
    return {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      status: 400,
      message: `Unsupported protocol version '${version}'${isLegacyVersion(version) ? ' without a session (old-era clients begin with initialize)' : ''}`,
      data: { supported: SUPPORTED_VERSIONS, requested: version },
    };
  }
  const caps = meta[META_CLIENT_CAPABILITIES];
  if (!caps || typeof caps !== 'object' || Array.isArray(caps)) return { code: -32602, status: 400, message: `Invalid params: _meta lacks ${META_CLIENT_CAPABILITIES} (expected an object, {} for none)` };
  const info = meta[META_CLIENT_INFO];
  const level = meta[META_LOG_LEVEL];
  return {
    protocolVersion: version,
    clientCapabilities: caps as ClientCapabilities,
    ...(info && typeof info === 'object' ? { clientInfo: info as Implementation } : {}),
    ...(typeof level === 'string' ? { logLevel: level } : {}),
  };
}

export function isEraFault<T extends object>(v: T | EraFault): v is EraFault {
  return typeof (v as EraFault).code === 'number';
}

/** The header-carried name of a request (MCP 2026-07-28 basic/transports "Standard headers"). */
export function nameOf(method: string, params: unknown): string | undefined {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === 'tools/call' || method === 'prompts/get') return typeof p.name === 'string' ? p.name : undefined;
  if (method === 'resources/read') return typeof p.uri === 'string' ? p.uri : undefined;
  return undefined;
}

/** A header value as sent, or decoded from the `=?base64?…?=` form (SEP-2243). Undefined: not valid. */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim();
  const m = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!m) return value;
  const b64 = m[1]!;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  return Buffer.from(b64, 'base64').toString('utf8');
}

export interface HeaderCheck {
  /** The `Mcp-Param-*` headers, as sent (lower-cased names), to forward upstream. */
  forwardHeaders: Record<string, string>;
}

/**
 * The HTTP header rules for a new-era request: `Mcp-Method` must be present and equal the body's
 * method, and `Mcp-Name` present and equal the name it targets (tools/call, prompts/get,
 * resources/read) (a gateway is an intermediary that MUST answer an HTTP error
 * when they fail: 400 with -32020). `Mcp-Param-*` headers the gateway does not know are not
 * judged here: they are recorded on the exchange and forwarded.
 */
export function checkHeaders(headers: Record<string, string | string[] | undefined>, method: string, params: unknown): HeaderCheck | EraFault {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const mcpMethod = one('mcp-method');
  if (mcpMethod === undefined) return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: the Mcp-Method header is missing (expected '${method}')` };
  if (mcpMethod.trim() !== method) {
    return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: Mcp-Method is '${mcpMethod}' but the body's method is '${method}'` };
  }
  const mcpName = one('mcp-name');
  const bodyName = nameOf(method, params);
  if (mcpName === undefined && bodyName !== undefined) {
    return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: the Mcp-Name header is missing (expected '${bodyName}')` };
  }
  if (mcpName !== undefined) {
    const decoded = decodeHeaderValue(mcpName);
    if (decoded === undefined || decoded !== bodyName) {
      return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: Mcp-Name is '${mcpName}' but the body names '${bodyName ?? '(nothing)'}'` };
    }
  }
  const forwardHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase().startsWith('mcp-param-') && value !== undefined) forwardHeaders[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { forwardHeaders };
}

/**
 * SEP-2243 custom headers: a tool parameter whose schema names `x-mcp-header: H` travels also as
 * the `Mcp-Param-H` header; when the body has a value, the header must be there and, decoded,
 * equal it (an intermediary or server MUST reject otherwise: 400 with -32020).
 */
export function checkParamHeaders(inputSchema: unknown, args: Record<string, unknown>, forwardHeaders: Record<string, string>): EraFault | undefined {
  const props = ((inputSchema as { properties?: unknown } | undefined)?.properties ?? {}) as Record<string, Record<string, unknown> | undefined>;
  for (const [param, def] of Object.entries(props)) {
    const header = def?.['x-mcp-header'];
    if (typeof header !== 'string') continue;
    const value = args[param];
    if (value === undefined || value === null) continue;
    const name = `Mcp-Param-${header}`;
    const raw = forwardHeaders[name.toLowerCase()];
    if (raw === undefined) return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: ${name} is missing but the body sets ${param}` };
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: ${name} is not valid (a =?base64?…?= value with bad Base64)` };
    if (decoded !== (typeof value === 'string' ? value : JSON.stringify(value))) {
      return { code: HEADER_MISMATCH, status: 400, message: `Header mismatch: ${name} does not match the body's ${param}` };
    }
  }
  return undefined;
}

/** HTTP status for a JSON-RPC error a new-era request is answered with (basic/transports). */
export function statusForError(code: number): number {
  if (code === -32601) return 404;
  if (code === -32602 || code === HEADER_MISMATCH || code === MISSING_CLIENT_CAPABILITY || code === UNSUPPORTED_PROTOCOL_VERSION || code === -32600) return 400;
  return 200;
}
