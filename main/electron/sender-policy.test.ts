import { describe, expect, it } from 'vitest';
import { checkSender, type FrameLike, type TrustedWindowLike } from './sender-policy';
import { allowNavigation, allowPermission, externalUrl } from './navigation-policy';
import { isAppUrl } from './app-origin';

const mainFrame: FrameLike = { url: 'app://gatehouse/index.html#/traffic', parent: null, processId: 7, routingId: 1 };
const window: TrustedWindowLike = { webContentsId: 3, mainFrame: { processId: 7, routingId: 1 } };

describe('IPC sender check', () => {
  it('trusts the main frame of our window on app://gatehouse/', () => {
    expect(checkSender({ senderId: 3, frame: mainFrame }, window)).toEqual({ ok: true });
  });

  it('refuses everything else, with a reason', () => {
    const cases: Array<[string, Parameters<typeof checkSender>[0], TrustedWindowLike | undefined, RegExp]> = [
      ['no window', { senderId: 3, frame: mainFrame }, undefined, /no Gatehouse window/],
      ['another web contents', { senderId: 4, frame: mainFrame }, window, /not the Gatehouse window/],
      ['frame gone', { senderId: 3, frame: null }, window, /gone/],
      ['detached frame', { senderId: 3, frame: { ...mainFrame, detached: true } }, window, /detached/],
      ['same-origin iframe', { senderId: 3, frame: { ...mainFrame, parent: {}, routingId: 2 } }, window, /sub-frame/],
      ['another frame of the same contents', { senderId: 3, frame: { ...mainFrame, routingId: 2 } }, window, /not the main frame/],
      ['main frame on a remote page', { senderId: 3, frame: { ...mainFrame, url: 'https://evil.example/x?token=1' } }, window, /https:\/\/evil\.example, not app/],
      ['main frame on file://', { senderId: 3, frame: { ...mainFrame, url: 'file:///tmp/x.html' } }, window, /file:/],
      ['another app host', { senderId: 3, frame: { ...mainFrame, url: 'app://gatehouse.evil/' } }, window, /not app/],
      ['about:blank', { senderId: 3, frame: { ...mainFrame, url: 'about:blank' } }, window, /about:/],
      ['window without a main frame', { senderId: 3, frame: mainFrame }, { webContentsId: 3, mainFrame: undefined }, /not the main frame/],
    ];
    for (const [name, sender, trusted, reason] of cases) {
      const v = checkSender(sender, trusted);
      expect(v.ok, name).toBe(false);
      if (!v.ok) expect(v.reason, name).toMatch(reason);
    }
    // The refused URL's path and query (maybe secrets) never reach the log.
    const v = checkSender({ senderId: 3, frame: { ...mainFrame, url: 'https://evil.example/x?token=1' } }, window);
    expect(v.ok === false && v.reason).not.toContain('token');
  });

  it('knows our origin exactly', () => {
    expect(isAppUrl('app://gatehouse/')).toBe(true);
    expect(isAppUrl('app://gatehouse')).toBe(true);
    for (const u of ['app://gatehouse:1/', 'app://a@gatehouse/', 'app://evil/', 'apps://gatehouse/', 'http://gatehouse/', '', undefined, null, '::']) expect(isAppUrl(u), String(u)).toBe(false);
  });
});

describe('navigation, external links and permissions', () => {
  it('allows navigation only within app://gatehouse/', () => {
    expect(allowNavigation('app://gatehouse/index.html#/logs')).toBe(true);
    for (const u of ['https://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'app://other/', 'data:text/html,x', 'about:blank']) expect(allowNavigation(u), u).toBe(false);
  });

  it('opens only http(s) links externally', () => {
    expect(externalUrl('https://modelcontextprotocol.io/docs')).toBe('https://modelcontextprotocol.io/docs');
    expect(externalUrl('http://127.0.0.1:3000/x')).toBe('http://127.0.0.1:3000/x');
    for (const u of ['file:///bin/sh', 'javascript:alert(1)', 'smb://host/share', 'ms-msdt:/id', 'vscode://x', 'app://gatehouse/', 'https://user:pw@example.com/', 'not a url', 'mailto:a@b.c'])
      expect(externalUrl(u), u).toBeUndefined();
  });

  it('grants notifications to our origin and nothing else', () => {
    expect(allowPermission('notifications', 'app://gatehouse/')).toBe(true);
    expect(allowPermission('notifications', 'app://gatehouse')).toBe(true);
    expect(allowPermission('notifications', 'https://evil.example/')).toBe(false);
    expect(allowPermission('notifications', undefined)).toBe(false);
    for (const p of ['media', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'serial', 'usb', 'pointerLock', 'unknown'])
      expect(allowPermission(p, 'app://gatehouse/'), p).toBe(false);
  });
});
