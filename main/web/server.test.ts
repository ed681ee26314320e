// The headless shell's HTTP server under plain Node: login exchange, the guards on every
// request and on the /api upgrade, static files, and the WebSocket wire format, against a real
// Host (temp data dir) and a renderer folder written by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { Host } from '../host';
import { createHostApiDispatcher, type HostApiDispatcher } from '../api/dispatcher';
import { tempDir } from '../../tests/support/temp';
import { CSP, startWebServer, type WebServer } from './server';

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let api: HostApiDispatcher;
let web: WebServer;
const printed: string[] = [];

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(pathname: string, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${web.origin}${pathname}`, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

async function login(): Promise<string> {
  const res = await get(new URL(web.loginUrl()).pathname + new URL(web.loginUrl()).search);
  expect(res.status).toBe(302);
  const setCookie = res.headers['set-cookie']![0]!;
  return setCookie.split(';')[0]!;
}

function upgrade(headers: Record<string, string>, pathname = '/api'): Promise<{ status: number; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${web.origin.replace('http', 'ws')}${pathname}`, { headers });
    ws.on('open', () => resolve({ status: 101, ws }));
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.on('error', reject);
  });
}

beforeAll(async () => {
  tmp = tempDir();
  const rendererDir = path.join(tmp.dir, 'renderer');
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Gatehouse</title><div id="root"></div>');
  writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(tmp.dir, 'secret.txt'), 'outside the root');
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  api = createHostApiDispatcher(host, { shell: 'web' });
  web = await startWebServer({ dispatcher: api, rendererDir, port: 0, onLoginUrl: (u) => printed.push(u) });
});

afterAll(async () => {
  await web?.close();
  api?.close();
  await host?.shutdown();
  tmp?.cleanup();
});

describe('login', () => {
  it('prints a login URL with a one-time code, never the session secret', async () => {
    expect(printed[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?code=[A-Za-z0-9_-]{20,}$/);
    expect(printed[0]).toBe(web.loginUrl());
  });

  it('exchanges the code once for an HttpOnly SameSite=Strict cookie and redirects to /', async () => {
    const url = new URL(web.loginUrl());
    const res = await get(url.pathname + url.search);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/');
    const cookie = res.headers['set-cookie']![0]!;
    expect(cookie).toMatch(new RegExp(`^gatehouse_${web.port}=[A-Za-z0-9_-]{40,}; HttpOnly; SameSite=Strict; Path=/$`));
    // The secret in the cookie is not the code, and was never printed.
    const secret = cookie.split(';')[0]!.split('=')[1]!;
    expect(secret).not.toBe(url.searchParams.get('code'));
    expect(printed.join('\n')).not.toContain(secret);
    // Single use: the same code is refused; a fresh one was printed for the next browser.
    expect((await get(url.pathname + url.search)).status).toBe(403);
    expect(printed.at(-1)).not.toBe(url.href);
    expect(web.loginUrl()).toBe(printed.at(-1));
  });

  it('refuses a wrong code and keeps the current one valid', async () => {
    const before = web.loginUrl();
    expect((await get('/login?code=guess')).status).toBe(403);
    expect((await get('/login')).status).toBe(403);
    expect(web.loginUrl()).toBe(before);
  });
});

describe('requests', () => {
  it('without the cookie: a small page pointing at the terminal, with the security headers', async () => {
    const res = await get('/');
    expect(res.status).toBe(401);
    expect(res.body).toContain('Open the login URL printed in the terminal');
    expect(res.headers['content-security-policy']).toBe(CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await get('/assets/app.js')).status).toBe(401);
  });

  it('with the cookie: the app and its assets, never files outside the root or a listing', async () => {
    const cookie = await login();
    const index = await get('/', { Cookie: cookie });
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toBe(CSP);
    expect(index.body).toContain('<div id="root">');
    const js = await get('/assets/app.js', { Cookie: cookie });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/assets', '/assets/', '/%00']) {
      const r = await get(p, { Cookie: cookie });
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      expect(r.body, p).not.toContain('outside the root');
      expect(r.body, p).not.toContain('app.js');
    }
    // A client-side route gets the app; a missing asset is a 404.
    expect((await get('/traffic', { Cookie: cookie, Accept: 'text/html' })).body).toContain('<div id="root">');
    expect((await get('/assets/missing.js', { Cookie: cookie })).status).toBe(404);
  });

  it('refuses another Host name (DNS rebinding)', async () => {
    const cookie = await login();
    expect((await get('/', { Cookie: cookie, Host: `evil.example:${web.port}` })).status).toBe(421);
    expect((await get('/', { Cookie: cookie, Host: `localhost:${web.port}` })).status).toBe(200);
  });
});

describe('/api', () => {
  it('needs the cookie and the server’s own Origin', async () => {
    const cookie = await login();
    expect((await upgrade({ Origin: web.origin })).status).toBe(403);
    expect((await upgrade({ Cookie: cookie })).status).toBe(403);
    expect((await upgrade({ Cookie: cookie, Origin: 'http://evil.example' })).status).toBe(403);
    expect((await upgrade({ Cookie: cookie, Origin: `http://localhost:${web.port}` })).status).toBe(403);
    expect((await upgrade({ Cookie: cookie.replace(/=.*/, '=forged'), Origin: web.origin })).status).toBe(403);
    expect((await upgrade({ Cookie: cookie, Origin: web.origin }, '/other')).status).toBe(404);
    const ok = await upgrade({ Cookie: cookie, Origin: web.origin });
    expect(ok.status).toBe(101);
    ok.ws!.close();
  });

  it('answers calls by id, reports errors as results, and closes on a malformed message', async () => {
    const cookie = await login();
    const { ws } = await upgrade({ Cookie: cookie, Origin: web.origin });
    const results = new Map<number, { ok: boolean; output?: any; error?: string }>();
    ws!.on('message', (data) => {
      const msg = JSON.parse(String(data));
      if (msg.type === 'result') results.set(msg.id, msg);
    });
    // While a window is connected, the UI approver is attached.
    expect(host.broker.approvers()).toEqual(['ui']);
    ws!.send(JSON.stringify({ type: 'call', id: 1, command: 'host:info', input: {} }));
    ws!.send(JSON.stringify({ type: 'call', id: 2, command: 'nope:nope', input: {} }));
    ws!.send(JSON.stringify({ type: 'call', id: 3, command: 'profiles:launch', input: { ref: 42 } }));
    await expect.poll(() => results.size).toBe(3);
    expect(results.get(1)).toMatchObject({ ok: true, output: { shell: 'web', dataDir: path.join(tmp.dir, 'data') } });
    expect(results.get(2)).toMatchObject({ ok: false, error: "unknown command 'nope:nope'" });
    expect(results.get(3)!.error).toMatch(/invalid input for 'profiles:launch': ref/);
    const closed = new Promise<number>((resolve) => ws!.on('close', (code) => resolve(code)));
    ws!.send('not json');
    expect(await closed).toBe(1003);
    await expect.poll(() => host.broker.approvers()).toEqual([]);
  });
});
