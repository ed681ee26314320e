import { describe, expect, it } from 'vitest';
import { decideEgress, isLocalAddress } from './egress-proxy';
import { parseAllowEntry } from '../tools/net-guard';

const entries = (...hosts: string[]) => hosts.map(parseAllowEntry);
// A fixed DNS standing in for the system resolver (no network here).
const dns = (table: Record<string, string[]>) => async (host: string) => {
  const addrs = table[host];
  if (!addrs) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('decideEgress (http_request allow-list semantics, plus the host-loopback rule)', () => {
  const resolver = dns({ 'api.example.com': ['93.184.216.34'], 'evil.example.com': ['169.254.169.254'], 'lan.example.com': ['192.168.1.5'], localhost: ['127.0.0.1'] });

  it('allows a listed host and pins the address it checked', async () => {
    expect(await decideEgress('api.example.com', 443, entries('api.example.com'), resolver)).toEqual({ ok: true, address: '93.184.216.34', port: 443 });
  });

  it('refuses what is not listed, a wrong port, and a bare IP for a listed name', async () => {
    expect(await decideEgress('other.example.com', 443, entries('api.example.com'), resolver)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress('api.example.com', 80, entries('api.example.com:443'), resolver)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress('127.0.0.1', 80, entries('localhost'), resolver)).toMatchObject({ ok: false, status: 403 });
  });

  it('never reaches metadata or link-local through a name, even with *', async () => {
    const d = await decideEgress('evil.example.com', 80, entries('*'), resolver);
    expect(d).toMatchObject({ ok: false, status: 403 });
    expect(!d.ok && d.reason).toMatch(/cloud metadata/);
    expect(await decideEgress('[::ffff:169.254.169.254]', 80, entries('*'), resolver)).toMatchObject({ ok: false });
  });

  it('* and *.domain never reach the host loopback or the LAN; an exact entry may', async () => {
    expect(await decideEgress('localhost', 8080, entries('*'), resolver)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress('lan.example.com', 80, entries('*.example.com'), resolver)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress('localhost', 8080, entries('localhost:8080'), resolver)).toMatchObject({ ok: true, address: '127.0.0.1' });
    expect(await decideEgress('127.0.0.1', 8080, entries('127.0.0.1'), resolver)).toMatchObject({ ok: true });
  });

  it('says why a name does not resolve', async () => {
    expect(await decideEgress('nx.example.com', 443, entries('*'), resolver)).toMatchObject({ ok: false, status: 502, reason: 'cannot resolve nx.example.com: ENOTFOUND' });
  });

  it('isLocalAddress', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.0.1', '192.168.0.1', '100.64.0.1', '::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0']) expect(isLocalAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '172.32.0.1', '2606:4700::1']) expect(isLocalAddress(a), a).toBe(false);
  });
});
