import { describe, expect, it } from 'vitest';
import { blockedAddressReason, isListedIp, matchAllowList, normalizeIp, parseAllowEntry } from './net-guard';
import { checkUrl, guardedLookup } from './http';
import { ToolError } from './errors';

const list = (...e: string[]) => e.map(parseAllowEntry);

describe('allow list', () => {
  it('matches exact names, wildcards, ports, IP literals and *', () => {
    const entries = list('api.example.com', '*.corp.test', 'localhost:8080', '127.0.0.1', '[::1]:3000');
    const ok = (u: string) => matchAllowList(new URL(u), entries) !== undefined;
    expect(ok('https://api.example.com/x')).toBe(true);
    expect(ok('https://API.EXAMPLE.COM./x')).toBe(true);
    expect(ok('https://evil-api.example.com/')).toBe(false);
    expect(ok('https://api.example.com.evil.test/')).toBe(false);
    expect(ok('https://a.corp.test/')).toBe(true);
    expect(ok('https://a.b.corp.test/')).toBe(true);
    expect(ok('https://corp.test/')).toBe(false);
    expect(ok('http://localhost:8080/')).toBe(true);
    expect(ok('http://localhost:8081/')).toBe(false);
    expect(ok('http://127.0.0.1:9/')).toBe(true);
    expect(ok('http://[::1]:3000/')).toBe(true);
    expect(ok('http://[::1]:3001/')).toBe(false);
    expect(matchAllowList(new URL('http://anything.test/'), list('*'))).toBeDefined();
    expect(matchAllowList(new URL('http://anything.test/'), [])).toBeUndefined();
  });
});

describe('blocked addresses', () => {
  it('knows link-local and metadata addresses in every spelling', () => {
    expect(blockedAddressReason('169.254.169.254')).toBe('metadata');
    expect(blockedAddressReason('169.254.0.1')).toBe('link_local');
    expect(blockedAddressReason('fe80::1')).toBe('link_local');
    expect(blockedAddressReason('febf::1')).toBe('link_local');
    expect(blockedAddressReason('fd00:ec2::254')).toBe('metadata');
    expect(blockedAddressReason('::ffff:169.254.169.254')).toBe('metadata');
    expect(blockedAddressReason('::ffff:a9fe:a9fe')).toBe('metadata');
    expect(blockedAddressReason('64:ff9b::a9fe:101')).toBe('link_local');
    expect(blockedAddressReason('127.0.0.1')).toBeNull();
    expect(blockedAddressReason('fec0::1')).toBeNull();
    expect(blockedAddressReason('10.0.0.1')).toBeNull();
    expect(normalizeIp('[::FFFF:7F00:1]')).toBe('127.0.0.1');
  });

  it('allows a blocked address only when listed as an IP', () => {
    expect(isListedIp('169.254.169.254', list('169.254.169.254'))).toBe(true);
    expect(isListedIp('::ffff:169.254.169.254', list('169.254.169.254'))).toBe(true);
    expect(isListedIp('169.254.169.254', list('*'))).toBe(false);
    expect(() => checkUrl(new URL('http://169.254.169.254/'), list('169.254.169.254'))).not.toThrow();
    for (const u of ['http://169.254.169.254/', 'http://[::ffff:169.254.169.254]/', 'http://0xa9fea9fe/', 'http://[fe80::1]/', 'http://169.254.1.1:8080/']) {
      expect(() => checkUrl(new URL(u), list('*')), u).toThrow(ToolError);
    }
  });

  it('refuses a listed name that resolves to a link-local address (fake resolver, no network)', async () => {
    const url = new URL('http://metadata.corp.test/');
    let refused: ToolError | undefined;
    const lookup = guardedLookup(url, list('*.corp.test'), async () => [{ address: '10.0.0.5', family: 4 }, { address: '169.254.169.254', family: 4 }], (e) => { refused = e; });
    const err = await new Promise<unknown>((resolve) => (lookup as any)('metadata.corp.test', { all: true }, (e: unknown) => resolve(e)));
    expect(err).toBeInstanceOf(ToolError);
    expect(refused?.details.reason).toBe('metadata');
    const fine = guardedLookup(url, list('*.corp.test'), async () => [{ address: '10.0.0.5', family: 4 }], () => undefined);
    const addrs = await new Promise<unknown>((resolve) => (fine as any)('metadata.corp.test', { all: true }, (_e: unknown, a: unknown) => resolve(a)));
    expect(addrs).toEqual([{ address: '10.0.0.5', family: 4 }]);
  });
});
