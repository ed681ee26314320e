// net.http_request through the real server over stdio, against a local HTTP server only.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildToolsServer, errorOf, makeTempDir, removeDir, startToolsServer, structured, type ToolsServerHandle } from '../fixtures/tools/harness';
import { checkUrl } from '../../main/tools/http';
import { parseAllowEntry } from '../../main/tools/net-guard';
import { closedPort, startHttpFixture, type HttpFixture } from '../fixtures/tools/http-fixture';

let ws: string;
let web: HttpFixture;
let server: ToolsServerHandle | undefined;

beforeAll(async () => { await buildToolsServer(); web = await startHttpFixture(); });
afterAll(async () => { await web.close(); });
beforeEach(() => { ws = makeTempDir('gh-ws-'); });
afterEach(async () => { await server?.close(); server = undefined; removeDir(ws); });

async function start(http: Record<string, unknown>): Promise<ToolsServerHandle> {
  server = await startToolsServer(ws, { http });
  return server;
}

describe('net.http_request', () => {
  it('GET text as utf-8 and binary as base64, headers flattened', async () => {
    const s = await start({ allow_hosts: [`127.0.0.1:${web.port}`] });
    const r = structured(await s.call('net.http_request', { url: `${web.origin}/json` }));
    expect(r).toMatchObject({ status: 200, status_text: 'OK', body: '{"hello":"wörld"}', body_encoding: 'utf-8', body_truncated: false, url: `${web.origin}/json`, redirects: [] });
    expect(r.headers['x-multi']).toBe('a, b');
    const b = structured(await s.call('net.http_request', { url: `${web.origin}/bin` }));
    expect(b).toMatchObject({ body: Buffer.from([0, 1, 2, 255]).toString('base64'), body_encoding: 'base64', body_bytes: 4 });
  });

  it('POST with headers and body; 303 becomes GET; credentials dropped across origins', async () => {
    const s = await start({ allow_hosts: ['127.0.0.1', 'localhost'] });
    const echo = JSON.parse(structured(await s.call('net.http_request', { url: `${web.origin}/echo`, method: 'POST', headers: { 'x-token': 't', 'content-type': 'application/json' }, body: '{"a":1}' })).body);
    expect(echo).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'x-token': 't' } });
    const after303 = structured(await s.call('net.http_request', { url: `${web.origin}/redirect-303`, method: 'POST', body: 'x' }));
    expect(JSON.parse(after303.body)).toMatchObject({ method: 'GET', body: '' });
    const to = `http://localhost:${web.port}/echo`;
    const cross = structured(await s.call('net.http_request', { url: `${web.origin}/redirect?to=${encodeURIComponent(to)}`, headers: { authorization: 'Bearer secret', 'x-keep': '1' } }));
    expect(cross.redirects).toEqual([to]);
    const headers = JSON.parse(cross.body).headers;
    expect(headers.authorization).toBeUndefined();
    expect(headers['x-keep']).toBe('1');
  });

  it('HostNotAllowedError for unlisted hosts, and for a redirect to a disallowed host (never contacted)', async () => {
    const s = await start({ allow_hosts: [`127.0.0.1:${web.port}`] });
    const direct = errorOf(await s.call('net.http_request', { url: 'http://example.com/' }));
    expect(direct).toMatchObject({ type: 'HostNotAllowedError', details: { reason: 'not_in_allow_hosts', host: 'example.com' } });
    const otherPort = errorOf(await s.call('net.http_request', { url: `http://127.0.0.1:${web.port + 1}/` }));
    expect(otherPort.type).toBe('HostNotAllowedError');
    for (const to of ['http://169.254.169.254/latest/meta-data/', 'http://evil.example/', `http://127.0.0.2:${web.port}/json`]) {
      const e = errorOf(await s.call('net.http_request', { url: `${web.origin}/redirect?to=${encodeURIComponent(to)}` }));
      expect(e.type, to).toBe('HostNotAllowedError');
      expect(e.details.url).toBe(to);
    }
  });

  it('refuses link-local and metadata addresses even when every host is allowed', async () => {
    const s = await start({ allow_hosts: ['*'] });
    const cases: [string, string][] = [
      ['http://169.254.169.254/latest/meta-data/', 'metadata'],
      ['http://2852039166/', 'metadata'], // decimal spelling of 169.254.169.254
      ['http://[::ffff:169.254.169.254]/', 'metadata'],
      ['http://[fd00:ec2::254]/', 'metadata'],
      ['http://169.254.1.1/', 'link_local'],
      ['http://[fe80::1]/', 'link_local'],
    ];
    for (const [url, reason] of cases) {
      // Safety net: the same guard in-process first, so a regression fails here instead of
      // letting the server contact a non-loopback address.
      expect(() => checkUrl(new URL(url), [parseAllowEntry('*')]), url).toThrow();
      const e = errorOf(await s.call('net.http_request', { url }));
      expect(e.type, url).toBe('HostNotAllowedError');
      expect(e.details.reason, url).toBe(reason);
    }
    expect(() => checkUrl(new URL('http://169.254.169.254/'), [parseAllowEntry('*')])).toThrow();
    const viaRedirect = errorOf(await s.call('net.http_request', { url: `${web.origin}/redirect?to=${encodeURIComponent('http://169.254.169.254/')}` }));
    expect(viaRedirect.details.reason).toBe('metadata');
  });

  it('ResponseTooLargeError by content-length and by streaming; truncate returns the head', async () => {
    const s = await start({ allow_hosts: ['127.0.0.1'], max_body_bytes: 1024 });
    const sized = errorOf(await s.call('net.http_request', { url: `${web.origin}/sized` }));
    expect(sized).toMatchObject({ type: 'ResponseTooLargeError', details: { content_length: 2 * 1024 * 1024, max_body_bytes: 1024 } });
    expect(errorOf(await s.call('net.http_request', { url: `${web.origin}/huge` })).type).toBe('ResponseTooLargeError');
    const cut = structured(await s.call('net.http_request', { url: `${web.origin}/huge`, truncate: true }));
    expect(cut).toMatchObject({ status: 200, body_truncated: true, body_bytes: 1024, body: 'a'.repeat(1024) });
  });

  it('TimeoutError, NetworkError (refused, too many redirects), InvalidArgumentError', async () => {
    const s = await start({ allow_hosts: ['127.0.0.1'], max_redirects: 3 });
    expect(errorOf(await s.call('net.http_request', { url: `${web.origin}/slow`, timeout_ms: 300 })).type).toBe('TimeoutError');
    const refused = errorOf(await s.call('net.http_request', { url: `http://127.0.0.1:${await closedPort()}/` }));
    expect(refused).toMatchObject({ type: 'NetworkError', details: { errno: 'ECONNREFUSED' } });
    const loop = errorOf(await s.call('net.http_request', { url: `${web.origin}/loop` }));
    expect(loop).toMatchObject({ type: 'NetworkError', details: { reason: 'too_many_redirects' } });
    expect(errorOf(await s.call('net.http_request', { url: 'file:///etc/passwd' })).type).toBe('InvalidArgumentError');
    expect(errorOf(await s.call('net.http_request', { url: 'not a url' })).type).toBe('InvalidArgumentError');
    expect(errorOf(await s.call('net.http_request', { url: `${web.origin}/json`, method: 'TRACE' })).type).toBe('InvalidArgumentError');
  });
});
