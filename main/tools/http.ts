// net.http_request (friendly: http_request).
//
// Every hop (the first URL and each redirect target) is checked against allow_hosts, and every
// connection goes through a lookup hook that checks the addresses DNS returned, so a listed name
// cannot be pointed at a link-local or metadata address, and the address that is checked is the
// one that is connected to (no second resolution to rebind).
//
// Size policy: the body is streamed and never held beyond max_body_bytes. By default a body over
// the cap is ResponseTooLargeError and the connection is dropped at once; with truncate: true the
// first max_body_bytes are returned with body_truncated: true (the connection is dropped too).
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { z } from 'zod';
import { ToolError } from './errors';
import { blockedAddressReason, isListedIp, matchAllowList, parseAllowEntry, urlHost, type AllowEntry } from './net-guard';
import { defineTool, resultSchema, plural } from './tool-kit';
import { sandboxProxy, viaProxy } from './http-via-proxy';

const errorTypes = ['HostNotAllowedError', 'ResponseTooLargeError', 'TimeoutError', 'NetworkError', 'InvalidArgumentError', 'InternalError'] as const;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
// Credentials must not follow a redirect to another origin (as fetch does).
const CROSS_ORIGIN_DROP = ['authorization', 'cookie', 'proxy-authorization'];

type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

function hostRefused(url: URL, reason: string, message: string, extra: Record<string, unknown> = {}): ToolError {
  return new ToolError('HostNotAllowedError', message, { url: url.href, host: urlHost(url).host, reason, ...extra });
}

/** Checks one URL before connecting: scheme, allow list, and IP literals. */
export function checkUrl(url: URL, entries: readonly AllowEntry[]): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError('InvalidArgumentError', `only http and https URLs are allowed, got ${url.protocol}`, { url: url.href });
  }
  if (!matchAllowList(url, entries)) {
    const { host, port } = urlHost(url);
    throw hostRefused(url, 'not_in_allow_hosts', `host ${host}:${port} is not in the allowed hosts (${entries.map((e) => e.raw).join(', ') || 'none'})`);
  }
  const { host } = urlHost(url);
  if (isIP(host)) {
    const why = blockedAddressReason(host);
    if (why && !isListedIp(host, entries)) throw hostRefused(url, why, `${host} is a ${why.replace('_', '-')} address; list it explicitly as an IP to allow it`, { address: host });
  }
}

/** A lookup for http.request that refuses link-local/metadata answers. */
export function guardedLookup(url: URL, entries: readonly AllowEntry[], resolver: Resolver, onRefused: (e: ToolError) => void): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...a: unknown[]) => void) => {
    resolver(hostname).then((addrs) => {
      const family = typeof options === 'object' ? options.family : undefined;
      const usable = addrs.filter((a) => !family || family === 0 || a.family === family);
      for (const a of usable) {
        const why = blockedAddressReason(a.address);
        if (why && !isListedIp(a.address, entries)) {
          const err = hostRefused(url, why, `${hostname} resolves to ${a.address}, a ${why.replace('_', '-')} address; list it explicitly as an IP to allow it`, { address: a.address });
          onRefused(err);
          callback(err);
          return;
        }
      }
      if (usable.length === 0) { callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' })); return; }
      if (typeof options === 'object' && options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    }, (e: unknown) => callback(e));
  }) as LookupFunction;
}

function isTextType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type = '', ...params] = contentType.toLowerCase().split(';').map((s) => s.trim());
  const charset = params.find((p) => p.startsWith('charset='))?.slice(8).replace(/"/g, '');
  if (charset && !['utf-8', 'utf8', 'us-ascii', 'ascii'].includes(charset)) return false;
  return type.startsWith('text/') || /^application\/(json|xml|javascript|ecmascript|x-www-form-urlencoded|x-ndjson)$/.test(type) || /\+(json|xml)$/.test(type);
}

interface Hop {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  location?: string;
  body: Buffer;
  bodyBytes: number;
  truncated: boolean;
}

function flattenHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

interface HopOptions {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  maxBody: number;
  truncate: boolean;
  signal: AbortSignal;
  lookup: LookupFunction;
  readBody: boolean;
}

function doHop(url: URL, o: HopOptions): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { ...o.headers };
    if (o.body && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) headers['content-length'] = String(o.body.length);
    const proxy = sandboxProxy();
    if (proxy && url.protocol === 'http:') headers.host ??= url.host;
    const req = mod.request(url, { method: o.method, headers, lookup: o.lookup, signal: o.signal, agent: false, ...(proxy ? viaProxy(url, proxy) : {}) });
    req.on('error', reject);
    req.on('response', (res) => {
      const base = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: flattenHeaders(res.headers), location: res.headers.location };
      if (!o.readBody) { res.destroy(); req.destroy(); resolve({ ...base, body: Buffer.alloc(0), bodyBytes: 0, truncated: false }); return; }
      const declared = Number(res.headers['content-length']);
      const tooLarge = (): ToolError => new ToolError('ResponseTooLargeError', `response body from ${url.host} exceeds max_body_bytes (${o.maxBody} bytes)${Number.isFinite(declared) ? `: content-length is ${declared}` : ''}; pass truncate: true to get the first ${o.maxBody} bytes`, {
        url: url.href, status: base.status, max_body_bytes: o.maxBody, content_length: Number.isFinite(declared) ? declared : null,
      });
      if (Number.isFinite(declared) && declared > o.maxBody && !o.truncate) { res.destroy(); req.destroy(); reject(tooLarge()); return; }
      const chunks: Buffer[] = [];
      let kept = 0;
      let done = false;
      const finish = (truncated: boolean): void => {
        if (done) return;
        done = true;
        resolve({ ...base, body: Buffer.concat(chunks), bodyBytes: kept, truncated });
      };
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        if (kept + chunk.length > o.maxBody) {
          if (!o.truncate) { done = true; res.destroy(); req.destroy(); reject(tooLarge()); return; }
          chunks.push(chunk.subarray(0, o.maxBody - kept));
          kept = o.maxBody;
          // Settle first: destroy() emits 'aborted' synchronously. Then stop downloading at the
          // cap, the rest would only be thrown away.
          finish(true);
          res.destroy();
          req.destroy();
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      res.on('end', () => finish(false));
      res.on('error', (e) => { if (!done) { done = true; reject(e); } });
      res.on('aborted', () => { if (!done) { done = true; reject(new Error('response aborted')); } });
    });
    req.end(o.body);
  });
}

export const httpTool = defineTool({
  name: 'net.http_request',
  friendlyName: 'http_request',
  title: 'HTTP request',
  description:
    'Make an HTTP or HTTPS request to a host the profile allows (server option http.allow_hosts) and return the status, headers and body. Redirects are followed manually (server default at most 5), each target checked against the allowed hosts again; authorization and cookie headers are dropped on a redirect to another origin. Text bodies (text/*, JSON, XML, form) are returned as UTF-8 text, anything else as base64. The body is capped (server default 1 MiB): over the cap the call fails with ResponseTooLargeError, or with truncate: true returns the first bytes with body_truncated: true. The whole call has a timeout (server default 30 s).',
  inputShape: {
    url: z.string().describe('Absolute http:// or https:// URL.').meta({ examples: ['https://api.example.com/v1/items?limit=10'] }),
    method: z.enum(METHODS).optional().describe('HTTP method (default GET).').meta({ examples: ['POST'] }),
    headers: z.record(z.string(), z.string()).optional().describe('Request headers.').meta({ examples: [{ accept: 'application/json' }] }),
    body: z.string().optional().describe('Request body; see body_encoding.').meta({ examples: ['{"name":"demo"}'] }),
    body_encoding: z.enum(['utf-8', 'base64']).optional().describe('How body is encoded in this call (default utf-8).').meta({ examples: ['utf-8'] }),
    follow_redirects: z.boolean().optional().describe('Follow 3xx redirects (default true).').meta({ examples: [true] }),
    truncate: z.boolean().optional().describe('Return the first max_body_bytes of a larger body instead of failing (default false).').meta({ examples: [false] }),
    timeout_ms: z.number().int().min(1).optional().describe('Timeout for the whole call including redirects; cannot exceed the server\'s http.timeout_ms.').meta({ examples: [10000] }),
  },
  outputSchema: resultSchema(
    {
      status: z.number().int().describe('HTTP status code of the final response.'),
      status_text: z.string(),
      headers: z.record(z.string(), z.string()).describe('Response headers, lower-case names; repeated headers joined with ", ".'),
      body: z.string().describe('The body, as text or base64 (see body_encoding).'),
      body_encoding: z.enum(['utf-8', 'base64']),
      body_bytes: z.number().int().min(0).describe('Bytes of body returned.'),
      body_truncated: z.boolean().describe('True when truncate was set and the body was cut at max_body_bytes.'),
      url: z.string().describe('URL of the final response (after redirects).'),
      redirects: z.array(z.string()).describe('Each redirect target followed, in order.'),
    },
    errorTypes,
  ),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  errorTypes,
  resultTooLargeError: 'ResponseTooLargeError',
  securityNotes: [
    'Only hosts in the server option http.allow_hosts are reachable (exact names, `*.domain` wildcards, optional `:port`, IP literals, or `*` for any); an empty list allows nothing.',
    'Every redirect target is re-checked against the list before it is requested (HostNotAllowedError); at most http.max_redirects are followed.',
    'Link-local (169.254.0.0/16, fe80::/10) and cloud metadata addresses (169.254.169.254, fd00:ec2::254) are refused, also when a listed name resolves to them, unless the address itself is listed as an IP; the address checked is the address connected to.',
    'The body is streamed and capped at http.max_body_bytes and the whole call at http.timeout_ms; memory stays bounded whatever the response size.',
    'Authorization, Cookie and Proxy-Authorization headers are not sent to a different origin after a redirect.',
  ],
  // The query string is left out: it is where URLs carry tokens.
  explain: (args, r) => {
    const u = new URL(r.url);
    const via = r.redirects.length > 0 ? ` after ${plural(r.redirects.length, 'redirect')}` : '';
    return `${args.method ?? 'GET'} ${u.origin}${u.pathname} answered ${r.status}${r.status_text ? ` ${r.status_text}` : ''}${via} with ${plural(r.body_bytes, 'byte')} of body (${r.body_encoding}${r.body_truncated ? ', truncated' : ''}).`;
  },
  async run(ctx, args, resolver: Resolver = systemResolver) {
    const cfg = ctx.options.http;
    const entries = cfg.allow_hosts.map(parseAllowEntry);
    let url: URL;
    try {
      url = new URL(args.url);
    } catch {
      throw new ToolError('InvalidArgumentError', `not an absolute URL: ${args.url}`, { url: args.url });
    }
    const timeoutMs = Math.min(args.timeout_ms ?? cfg.timeout_ms, cfg.timeout_ms);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let method: string = args.method ?? 'GET';
    let headers = { ...(args.headers ?? {}) };
    let body = args.body === undefined ? undefined : Buffer.from(args.body, args.body_encoding === 'base64' ? 'base64' : 'utf8');
    const redirects: string[] = [];
    try {
      for (;;) {
        checkUrl(url, entries);
        let refused: ToolError | undefined;
        const lookup = guardedLookup(url, entries, resolver, (e) => { refused = e; });
        let hop: Hop;
        try {
          hop = await doHop(url, { method, headers, body, maxBody: ctx.options.http.max_body_bytes, truncate: args.truncate ?? false, signal: controller.signal, lookup, readBody: true });
        } catch (e) {
          if (refused) throw refused;
          if (e instanceof ToolError) throw e;
          if (controller.signal.aborted) throw new ToolError('TimeoutError', `request to ${url.href} did not complete within ${timeoutMs} ms`, { url: url.href, timeout_ms: timeoutMs });
          const code = (e as NodeJS.ErrnoException).code ?? null;
          throw new ToolError('NetworkError', `request to ${url.href} failed: ${(e as Error).message}`, { url: url.href, errno: code });
        }
        const redirect = args.follow_redirects !== false && [301, 302, 303, 307, 308].includes(hop.status) && hop.location;
        if (!redirect) {
          const text = method !== 'HEAD' && isTextType(hop.headers['content-type']) ? decodeUtf8(hop.body, hop.truncated) : undefined;
          return {
            status: hop.status, status_text: hop.statusText, headers: hop.headers,
            body: text ?? hop.body.toString('base64'), body_encoding: text === undefined ? 'base64' : 'utf-8',
            body_bytes: hop.bodyBytes, body_truncated: hop.truncated, url: url.href, redirects,
          };
        }
        if (redirects.length >= cfg.max_redirects) {
          throw new ToolError('NetworkError', `more than ${cfg.max_redirects} redirects (last: ${url.href})`, { url: url.href, reason: 'too_many_redirects', redirects });
        }
        let next: URL;
        try {
          next = new URL(hop.location!, url);
        } catch {
          throw new ToolError('NetworkError', `invalid redirect location ${JSON.stringify(hop.location)} from ${url.href}`, { url: url.href, reason: 'bad_redirect' });
        }
        if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CROSS_ORIGIN_DROP.includes(k.toLowerCase())));
        // 303 always, and 301/302 after a POST, become a GET without body (as browsers do).
        if (hop.status === 303 || ((hop.status === 301 || hop.status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-(type|length|encoding)$/i.test(k)));
        }
        redirects.push(next.href);
        url = next;
      }
    } finally {
      clearTimeout(timer);
    }
  },
});

function decodeUtf8(body: Buffer, truncated: boolean): string | undefined {
  try {
    // A cut body may end inside a character: stream mode drops that incomplete tail.
    return new TextDecoder('utf-8', { fatal: true }).decode(body, { stream: truncated });
  } catch {
    return undefined;
  }
}
