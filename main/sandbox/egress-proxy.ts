// The filtering HTTP(S) proxy behind `network: { allow: [hosts] }`. Gatehouse runs it on the host
// (one per sandboxed process, on a Unix socket bound into the sandbox); the process reaches it as
// HTTP_PROXY / HTTPS_PROXY = http://127.0.0.1:PORT through the in-sandbox forwarder. Its network
// namespace has no other way out, so what this proxy refuses cannot be reached at all.
//
// Allow-list semantics are http_request's (main/tools/net-guard.ts): exact names, `*.domain`,
// optional ports, IP literals, `*`. As there, a name resolving to a link-local or metadata address
// is refused unless that address is itself listed. Added here, because the proxy runs on the host
// and the host's loopback holds Gatehouse's own ports (web shell, gateway) and the user's local
// services: `*` and `*.domain` never reach a loopback or private address; an exact name or IP
// entry may (the profile named it). The proxy connects to the address it checked (no second DNS
// lookup), so a name cannot re-resolve somewhere else between check and connect.
import dns from 'node:dns';
import http from 'node:http';
import net, { isIP } from 'node:net';
import { blockedAddressReason, isListedIp, matchAllowList, normalizeIp, parseAllowEntry, type AllowEntry } from '../tools/net-guard';

/** A host that does not answer SYN must not hold a sandboxed client's tunnel open for minutes. */
const CONNECT_TIMEOUT_MS = 15_000;

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;
const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

export interface EgressProxyOptions {
  hosts: string[];
  /** One line per refused (and, with logAllowed, per allowed) connection, for the server's log. */
  log?: (line: string) => void;
  logAllowed?: boolean;
  resolver?: Resolver;
}

export type EgressDecision = { ok: true; address: string; port: number } | { ok: false; status: number; reason: string };

/** Loopback, RFC 1918, CGNAT, ULA, unspecified: the host's own and its LAN's. */
export function isLocalAddress(ip: string): boolean {
  const n = normalizeIp(ip);
  if (isIP(n) === 4) {
    const [a, b] = n.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b < 128);
  }
  return n === '0:0:0:0:0:0:0:1' || n === '0:0:0:0:0:0:0:0' || /^f[cd][0-9a-f]{0,2}:/.test(n);
}

export async function decideEgress(host: string, port: number, entries: readonly AllowEntry[], resolver: Resolver = systemResolver): Promise<EgressDecision> {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (!bare || !Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, status: 400, reason: `not a host:port: ${host}:${port}` };
  let url: URL;
  try {
    url = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}:${port}/`);
  } catch {
    return { ok: false, status: 400, reason: `not a valid host: ${host}` };
  }
  const entry = matchAllowList(url, entries);
  if (!entry) return { ok: false, status: 403, reason: `${bare}:${port} is not in the sandbox's network allow list` };
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = (await resolver(bare)).map((a) => a.address);
    } catch (err) {
      return { ok: false, status: 502, reason: `cannot resolve ${bare}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
    }
  }
  for (const address of addresses) {
    const listed = isListedIp(address, entries);
    const special = blockedAddressReason(address);
    if (special && !listed) return { ok: false, status: 403, reason: `${bare} resolves to a ${special === 'metadata' ? 'cloud metadata' : 'link-local'} address (${address})` };
    if (isLocalAddress(address) && !listed && (entry.kind === 'any' || entry.kind === 'wildcard')) {
      return { ok: false, status: 403, reason: `${bare} resolves to a local address (${address}); only an exact allow-list entry reaches the host's own network` };
    }
  }
  const address = addresses[0];
  if (!address) return { ok: false, status: 502, reason: `${bare} has no address` };
  return { ok: true, address, port };
}

/** The proxy server; listen it on a Unix socket (or a port, on macOS). */
export function createEgressProxy(opts: EgressProxyOptions): http.Server {
  const entries = opts.hosts.map(parseAllowEntry);
  const resolver = opts.resolver ?? systemResolver;
  const log = opts.log ?? (() => {});
  const server = http.createServer((req, res) => {
    // Absolute-form request (plain http:// through the proxy).
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('gatehouse sandbox proxy: expected an absolute http:// URL or CONNECT\n');
      return;
    }
    const port = target.port ? Number(target.port) : 80;
    void decideEgress(target.hostname, port, entries, resolver).then((d) => {
      if (!d.ok) {
        log(`sandbox network: refused ${req.method} ${target.hostname}:${port}: ${d.reason}`);
        res.writeHead(d.status, { 'content-type': 'text/plain' }).end(`gatehouse sandbox proxy: ${d.reason}\n`);
        return;
      }
      if (opts.logAllowed) log(`sandbox network: ${req.method} ${target.hostname}:${port}`);
      const headers = { ...req.headers };
      delete headers['proxy-connection'];
      delete headers['proxy-authorization'];
      const upstream = http.request({ host: d.address, port: d.port, method: req.method, path: `${target.pathname}${target.search}`, headers, agent: false }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', (err) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`gatehouse sandbox proxy: ${err.message}\n`);
      });
      req.pipe(upstream);
    });
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => {});
    const authority = req.url ?? '';
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(authority);
    const refuse = (status: number, reason: string) => {
      log(`sandbox network: refused CONNECT ${authority}: ${reason}`);
      client.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Refused'}\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\ngatehouse sandbox proxy: ${reason}\n`);
    };
    if (!m) return refuse(400, `CONNECT expects host:port, got '${authority}'`);
    void decideEgress(m[1]!, Number(m[2]), entries, resolver).then((d) => {
      if (!d.ok) return refuse(d.status, d.reason);
      if (opts.logAllowed) log(`sandbox network: CONNECT ${authority}`);
      const upstream = net.connect({ port: d.port, host: d.address, timeout: CONNECT_TIMEOUT_MS }, () => {
        upstream.setTimeout(0);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      upstream.on('timeout', () => upstream.destroy(new Error(`no connection to ${authority} within ${CONNECT_TIMEOUT_MS / 1000}s`)));
      upstream.on('error', (err) => {
        if (!client.destroyed) client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\ngatehouse sandbox proxy: ${err.message}\n`);
      });
      client.on('close', () => upstream.destroy());
    });
  });
  return server;
}
