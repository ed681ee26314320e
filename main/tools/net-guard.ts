// Which hosts and addresses net.http_request may reach.
//
// allow_hosts entries: an exact hostname (`api.example.com`), a wildcard for subdomains
// (`*.example.com`, which does not match example.com itself), either with an optional port
// (`localhost:8080`), an IP literal (`127.0.0.1`, `[::1]:3000`), or `*` for any host. Whatever the
// list says, a name that resolves to a link-local or cloud-metadata address is refused unless that
// address is itself listed as an IP literal: otherwise `*` or a DNS record under a listed domain
// would hand out the instance's credentials (169.254.169.254).
import { isIP } from 'node:net';

export interface AllowEntry {
  readonly raw: string;
  readonly host: string;
  readonly port: number | null;
  readonly kind: 'any' | 'wildcard' | 'exact' | 'ip';
}

export function parseAllowEntry(raw: string): AllowEntry {
  const s = raw.trim().toLowerCase();
  if (s === '*') return { raw, host: '*', port: null, kind: 'any' };
  let host = s;
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2] ? Number(bracketed[2]) : null;
  } else if (isIP(s) !== 6) {
    const m = /^(.*):(\d+)$/.exec(s);
    if (m) { host = m[1]!; port = Number(m[2]); }
  }
  if (isIP(host)) return { raw, host: normalizeIp(host), port, kind: 'ip' };
  if (host.startsWith('*.')) return { raw, host: host.slice(2), port, kind: 'wildcard' };
  return { raw, host: host.replace(/\.$/, ''), port, kind: 'exact' };
}

/**
 * One spelling per address: IPv6 fully expanded, and IPv4-mapped IPv6 (`::ffff:a9fe:a9fe`, which
 * the WHATWG URL parser produces from `[::ffff:169.254.169.254]`) folded to its IPv4 address,
 * since the kernel connects to that IPv4 address.
 */
export function normalizeIp(ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, '').toLowerCase().replace(/%.*$/, '');
  if (isIP(bare) !== 6) return bare;
  const g = expandIpv6(bare);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return embeddedV4(g);
  return g.map((x) => x.toString(16)).join(':');
}

function embeddedV4(g: number[]): string {
  return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.');
}

function expandIpv6(ip: string): number[] {
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':').map((x) => parseInt(x, 16)) : [];
  const t = tail ? tail.split(':').map((x) => parseInt(x, 16)) : [];
  const zeros = tail === undefined ? [] : new Array<number>(8 - h.length - t.length).fill(0);
  return [...h, ...zeros, ...t];
}

/** Why an address is refused by default, or null when it is not special. */
export function blockedAddressReason(ip: string): 'link_local' | 'metadata' | null {
  const n = normalizeIp(ip);
  if (isIP(n) === 4) {
    if (n === '169.254.169.254') return 'metadata';
    if (n.startsWith('169.254.')) return 'link_local';
    return null;
  }
  const groups = expandIpv6(n);
  // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address through a translator.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((x) => x === 0)) return blockedAddressReason(embeddedV4(groups));
  if (groups.join(':') === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':')) return 'metadata';
  if ((groups[0]! & 0xffc0) === 0xfe80) return 'link_local';
  return null;
}

export function urlHost(url: URL): { host: string; port: number } {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host, port };
}

/** The entry that allows this URL's host and port, if any. */
export function matchAllowList(url: URL, entries: readonly AllowEntry[]): AllowEntry | undefined {
  const { host, port } = urlHost(url);
  const ipHost = isIP(host) ? normalizeIp(host) : null;
  return entries.find((e) => {
    if (e.port !== null && e.port !== port) return false;
    switch (e.kind) {
      case 'any': return true;
      case 'ip': return ipHost === e.host;
      case 'exact': return ipHost === null && host === e.host;
      case 'wildcard': return ipHost === null && host.endsWith(`.${e.host}`);
    }
  });
}

/** True when this exact address is listed as an IP literal (the only way to reach a blocked one). */
export function isListedIp(ip: string, entries: readonly AllowEntry[]): boolean {
  const n = normalizeIp(ip);
  return entries.some((e) => e.kind === 'ip' && e.host === n);
}
