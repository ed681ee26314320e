import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_CSP, appResponseHeaders, resolveAppRequest } from './app-protocol';

const root = path.resolve('/srv/gatehouse/out/renderer');

describe('app://gatehouse/ protocol', () => {
  it('maps the root and files under it', () => {
    expect(resolveAppRequest('app://gatehouse/', root)).toEqual({ ok: true, file: path.join(root, 'index.html'), contentType: 'text/html; charset=utf-8' });
    expect(resolveAppRequest('app://gatehouse/index.html#/traffic', root)).toMatchObject({ ok: true, file: path.join(root, 'index.html') });
    expect(resolveAppRequest('app://gatehouse/assets/index-1.js?v=2', root)).toEqual({
      ok: true,
      file: path.join(root, 'assets', 'index-1.js'),
      contentType: 'text/javascript; charset=utf-8',
    });
    expect(resolveAppRequest('app://gatehouse/assets/inter%20latin.woff2', root)).toMatchObject({ ok: true, file: path.join(root, 'assets', 'inter latin.woff2'), contentType: 'font/woff2' });
    expect(resolveAppRequest('app://gatehouse/assets/', root)).toMatchObject({ ok: true, file: path.join(root, 'assets', 'index.html') });
    expect(resolveAppRequest('app://gatehouse/blob.bin', root)).toMatchObject({ ok: true, contentType: 'application/octet-stream' });
  });

  it('never resolves outside the renderer folder', () => {
    const attempts = [
      'app://gatehouse/../package.json',
      'app://gatehouse/%2e%2e/package.json',
      'app://gatehouse/.%2e/.%2e/package.json',
      'app://gatehouse/..%2fpackage.json',
      'app://gatehouse/..%2F..%2Fpackage.json',
      'app://gatehouse/assets/..%5c..%5cpackage.json',
      'app://gatehouse/..\\package.json',
      'app://gatehouse/%00index.html',
      'app://gatehouse/C:%5cWindows%5cwin.ini',
      'app://gatehouse/%E0%A4%A',
    ];
    for (const url of attempts) {
      const r = resolveAppRequest(url, root);
      if (r.ok) expect(path.relative(root, r.file).startsWith('..'), url).toBe(false);
      if (r.ok) expect(r.file.startsWith(root + path.sep), url).toBe(true);
    }
    // The ones that would escape are refused outright, not just clamped.
    expect(resolveAppRequest('app://gatehouse/..%2fpackage.json', root)).toMatchObject({ ok: false, status: 400 });
    expect(resolveAppRequest('app://gatehouse/..\\package.json', root)).toMatchObject({ ok: false, status: 400 });
    expect(resolveAppRequest('app://gatehouse/%00index.html', root)).toMatchObject({ ok: false, status: 400 });
    expect(resolveAppRequest('app://gatehouse/%E0%A4%A', root)).toMatchObject({ ok: false, status: 400 });
    // URL parsing removes dot segments, so these land on files inside the root (or nothing).
    expect(resolveAppRequest('app://gatehouse/../package.json', root)).toMatchObject({ ok: true, file: path.join(root, 'package.json') });
    expect(resolveAppRequest('app://gatehouse/%2e%2e/package.json', root)).toMatchObject({ ok: true, file: path.join(root, 'package.json') });
  });

  it('refuses other origins, schemes and methods', () => {
    expect(resolveAppRequest('app://evil/index.html', root)).toMatchObject({ ok: false, status: 403 });
    expect(resolveAppRequest('app://gatehouse:8080/index.html', root)).toMatchObject({ ok: false, status: 403 });
    expect(resolveAppRequest('app://user@gatehouse/index.html', root)).toMatchObject({ ok: true }); // userinfo never reaches disk paths
    expect(resolveAppRequest('file:///etc/passwd', root)).toMatchObject({ ok: false, status: 403 });
    expect(resolveAppRequest('https://gatehouse/index.html', root)).toMatchObject({ ok: false, status: 403 });
    expect(resolveAppRequest('not a url', root)).toMatchObject({ ok: false, status: 400 });
    expect(resolveAppRequest('app://gatehouse/index.html', root, 'POST')).toMatchObject({ ok: false, status: 405 });
    expect(resolveAppRequest('app://gatehouse/index.html', root, 'HEAD')).toMatchObject({ ok: true });
  });

  it('sends the strict CSP and nosniff with every response', () => {
    const h = appResponseHeaders('text/html; charset=utf-8');
    expect(h['Content-Security-Policy']).toBe(APP_CSP);
    expect(h['X-Content-Type-Options']).toBe('nosniff');
    const directives = Object.fromEntries(APP_CSP.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    expect(directives).toEqual({
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'frame-ancestors': ["'none'"],
    });
    expect(APP_CSP).not.toMatch(/unsafe-eval|\*|http:|ws:/);
  });
});
