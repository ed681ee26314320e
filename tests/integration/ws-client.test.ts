// The renderer's WebSocket client (renderer/api/ws-client.ts) against the real headless shell
// server and a real Host, under Node (the `ws` package stands in for the browser's WebSocket,
// with the cookie and Origin a browser would send). The browser run is tests/e2e/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { Host } from '../../main/host';
import { createHostApiDispatcher, type HostApiDispatcher } from '../../main/api/dispatcher';
import { startWebServer, type WebServer } from '../../main/web/server';
import { createWsHostApi } from '../../renderer/api/ws-client';
import type { ConnectionInfo } from '../../renderer/api/connection';
import type { EventPayload } from '../../common/host-api';
import { tempDir, writeProfile } from '../support/temp';

const PROFILE = `
name: ws-client-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: approve
  rules:
    - { match: fs.read, decision: allow }
`;

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let dispatcher: HostApiDispatcher;
let web: WebServer;
let cookie: string;
let profileFile: string;

function loginCookie(): Promise<string> {
  const url = new URL(web.loginUrl());
  return new Promise((resolve, reject) => {
    http
      .get(`${web.origin}${url.pathname}${url.search}`, (res) => {
        res.resume();
        resolve(res.headers['set-cookie']![0]!.split(';')[0]!);
      })
      .on('error', reject);
  });
}

/** A browser-like WebSocket: the session cookie and the page's Origin go with the upgrade. */
function browserLikeWebSocket(): typeof globalThis.WebSocket {
  class BrowserLike extends WebSocket {
    constructor(url: string) {
      super(url, { headers: { Cookie: cookie, Origin: web.origin } });
    }
  }
  return BrowserLike as unknown as typeof globalThis.WebSocket;
}

async function waitFor<T>(check: () => T | undefined | false, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  tmp = tempDir();
  profileFile = writeProfile(tmp.dir, PROFILE);
  writeFileSync(path.join(tmp.dir, 'ws', 'a.txt'), 'alpha\n');
  mkdirSync(path.join(tmp.dir, 'renderer'));
  writeFileSync(path.join(tmp.dir, 'renderer', 'index.html'), '<!doctype html><title>t</title>');
  host = new Host({ dataDir: path.join(tmp.dir, 'data') });
  dispatcher = createHostApiDispatcher(host, { shell: 'web' });
  web = await startWebServer({ dispatcher, rendererDir: path.join(tmp.dir, 'renderer'), port: 0 });
  cookie = await loginCookie();
});

afterAll(async () => {
  await web?.close();
  dispatcher?.close();
  await host?.shutdown();
  tmp?.cleanup();
});

describe('createWsHostApi', () => {
  it('calls, events, errors, reconnect and close', async () => {
    const api = createWsHostApi(`${web.origin.replace('http', 'ws')}/api`, { WebSocketImpl: browserLikeWebSocket(), initialDelayMs: 10, maxDelayMs: 50 });
    const states: ConnectionInfo[] = [];
    api.onConnectionChange((i) => states.push(i));
    expect(api.transport).toBe('websocket');

    // Made before the socket opened: queued, then answered.
    const info = await api.call('host:info', {});
    expect(info.shell).toBe('web');
    expect(states[0]).toMatchObject({ state: 'open', reconnected: false });

    await expect(api.call('profiles:launch', { ref: path.join(tmp.dir, 'missing.yaml') })).rejects.toThrow(/missing\.yaml does not exist/);

    const batches: EventPayload<'traffic:batch'>[] = [];
    const off = api.on('traffic:batch', (b) => batches.push(b));
    const launch = await api.call('profiles:launch', { ref: profileFile });
    const r = await api.call('tools:call', { launchId: launch.id, name: 'read_file', arguments: { file_path: 'a.txt' } });
    expect(JSON.stringify(r.result)).toContain('alpha');
    await waitFor(() => batches.some((b) => b.events.some((e) => e.exchange === r.exchange)), 'the call in a traffic batch');
    off();

    // The host drops the socket: the client reconnects and says so (the app re-fetches the snapshot).
    web.disconnectAll();
    await waitFor(() => states.some((s) => s.state === 'connecting'), 'connecting');
    const back = await waitFor(() => states.find((s) => s.state === 'open' && s.reconnected), 'reconnected');
    expect(back.attempts).toBe(0);
    const snapshot = await api.call('host:snapshot', {});
    expect(snapshot.launches.map((l) => l.id)).toEqual([launch.id]);

    api.close();
    expect(api.connection().state).toBe('closed');
    await expect(api.call('host:info', {})).rejects.toThrow(/closed/);
    await host.stop(launch.id);
  });

  it('keeps trying, and says why, when the host refuses it (no cookie)', async () => {
    class NoCookie extends WebSocket {
      constructor(url: string) {
        super(url, { headers: { Origin: web.origin } });
      }
    }
    const api = createWsHostApi(`${web.origin.replace('http', 'ws')}/api`, { WebSocketImpl: NoCookie as unknown as typeof globalThis.WebSocket, initialDelayMs: 10, maxDelayMs: 20 });
    const states: ConnectionInfo[] = [];
    api.onConnectionChange((i) => states.push(i));
    const pending = api.call('host:info', {});
    await waitFor(() => states.find((s) => s.attempts >= 2), 'two failed attempts');
    expect(states.every((s) => s.state === 'connecting')).toBe(true);
    api.close();
    await expect(pending).rejects.toThrow(/closed/);
  });
});
