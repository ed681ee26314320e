// The headless shell's HTTP server (ARCHITECTURE.md, `main/web/`): the built renderer as static
// files and the host API over a WebSocket at /api, on 127.0.0.1 only.
//
// Defences, in the order a request meets them:
//  - Host header must be this server (127.0.0.1:PORT or localhost:PORT): a DNS-rebinding page
//    on another name reaches the socket but is refused here.
//  - /login exchanges the one-time code for the session cookie (./auth.ts; where the code is
//    shown: ./login-code-sink.ts).
//  - Everything else needs the cookie. The WebSocket upgrade also needs Origin equal to this
//    server's own origin: SameSite=Strict keeps the cookie off cross-site requests, and the
//    Origin check is the WebSocket's own CSRF defence (browsers do not apply CORS to it).
//  - Static files: a strict CSP, nosniff, no directory listing, nothing outside the root.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createReadStream, promises as fsp } from 'node:fs';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { WsClientMessageSchema, type EventName } from '../../common/host-api';
import type { HostApiDispatcher } from '../api/dispatcher';
import { WebAuth } from './auth';
import { contentTypeFor } from './content-types';

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self' ws://127.0.0.1:*; frame-ancestors 'none'";

/** Above this many bytes waiting in a socket, traffic and stderr batches are dropped (and counted). */
export const WS_HIGH_WATERMARK = 4 * 1024 * 1024;
const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;

export interface WebServerOptions {
  dispatcher: HostApiDispatcher;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 = any free port. */
  port?: number;
  /** Each fresh login URL (the first one and after each use or expiry). */
  onLoginUrl?: (url: string) => void;
  /** Bytes buffered per socket above which traffic batches are dropped. */
  highWatermark?: number;
}

export interface WebServer {
  readonly port: number;
  readonly origin: string;
  /** The current login URL (one-time code). */
  loginUrl(): string;
  /** Drops every window's socket (they reconnect and re-fetch the snapshot). */
  disconnectAll(): void;
  close(): Promise<void>;
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const root = path.resolve(opts.rendererDir);
  const highWatermark = opts.highWatermark ?? WS_HIGH_WATERMARK;
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  let currentCode = '';
  const auth = new WebAuth(port, {
    onCode: (code) => {
      currentCode = code;
      opts.onLoginUrl?.(loginUrl());
    },
  });
  const loginUrl = () => `${origin}/login?code=${currentCode}`;
  auth.rotate();

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const sockets = new Set<WebSocket>();

  server.on('request', (req, res) => {
    void handleRequest(req, res).catch((err: unknown) => {
      console.error('gatehouse serve: request failed:', err);
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.destroy();
    });
  });

  async function handleRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', CSP);
    if (!allowedHosts.has(req.headers.host ?? '')) return plain(res, 421, 'unknown host (gatehouse serves 127.0.0.1 only)');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'method not allowed');
    }
    const url = new URL(req.url ?? '/', origin);
    res.setHeader('Cache-Control', 'no-store');
    if (url.pathname === '/login') {
      const secret = auth.exchange(url.searchParams.get('code'));
      if (!secret) return loginPage(res, 403, 'This login link is not valid any more (each one works once, for ten minutes). Open the newest login URL printed in the terminal that runs gatehouse serve (or run gatehouse serve --print-login-url in a terminal).');
      res.setHeader('Set-Cookie', auth.setCookieHeader(secret));
      res.statusCode = 302;
      res.setHeader('Location', '/');
      res.end();
      return;
    }
    if (!auth.authorized(req.headers.cookie)) {
      return loginPage(res, 401, 'Open the login URL printed in the terminal that runs gatehouse serve (or run gatehouse serve --print-login-url in a terminal).');
    }
    if (url.pathname === '/api') return plain(res, 426, 'the host API is a WebSocket');
    return serveStatic(url.pathname, req, res);
  }

  async function serveStatic(pathname: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return plain(res, 400, 'bad path');
    }
    if (rel.includes('\0') || rel.includes('\\')) return plain(res, 400, 'bad path');
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(root, `.${path.posix.normalize(rel)}`);
    const inside = path.relative(root, file);
    if (inside.startsWith('..') || path.isAbsolute(inside)) return plain(res, 404, 'not found');
    let stat = await fsp.stat(file).catch(() => undefined);
    let target = file;
    if (!stat?.isFile()) {
      // A client-side route (no extension) gets the app; anything else is missing. Directories
      // are never listed.
      if (path.extname(rel) !== '' || req.headers.accept?.includes('text/html') !== true) return plain(res, 404, 'not found');
      target = path.join(root, 'index.html');
      stat = await fsp.stat(target).catch(() => undefined);
      if (!stat?.isFile()) return plain(res, 503, `the renderer is not built (no ${target}): run npm run build`);
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', contentTypeFor(target));
    res.setHeader('Content-Length', String(stat.size));
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(target).on('error', () => res.destroy()).pipe(res);
  }

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const host = req.headers.host ?? '';
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname !== '/api') return refuse(404, 'Not Found');
    if (!allowedHosts.has(host)) return refuse(403, 'Forbidden');
    if (req.headers.origin !== `http://${host}`) return refuse(403, 'Forbidden');
    if (!auth.authorized(req.headers.cookie)) return refuse(403, 'Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => connection(ws));
  });

  function connection(ws: WebSocket): void {
    sockets.add(ws);
    const send = (event: EventName, payload: unknown) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify({ type: 'event', event, payload }));
    };
    const unsubscribe = opts.dispatcher.subscribe(send, { congested: () => ws.bufferedAmount > highWatermark });
    ws.on('message', (data, isBinary) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(isBinary ? Buffer.from(data as Buffer).toString('utf8') : String(data));
      } catch {
        ws.close(1003, 'expected JSON');
        return;
      }
      const msg = WsClientMessageSchema.safeParse(parsed);
      if (!msg.success) {
        ws.close(1008, 'expected {type: "call", id, command, input}');
        return;
      }
      const { id, command, input } = msg.data;
      opts.dispatcher.handle(command, input).then(
        (output) => reply({ type: 'result', id, ok: true, output }),
        (err: unknown) => reply({ type: 'result', id, ok: false, error: (err as Error)?.message ?? String(err) }),
      );
    });
    const reply = (message: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    ws.on('close', () => {
      sockets.delete(ws);
      unsubscribe();
    });
    ws.on('error', () => ws.terminate());
  }

  return {
    port,
    origin,
    loginUrl,
    disconnectAll: () => {
      for (const ws of sockets) ws.terminate();
    },
    close: async () => {
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function plain(res: http.ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(`${text}\n`);
}

function loginPage(res: http.ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  const escaped = message.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gatehouse: sign in</title>` +
      `<style>body{font:16px system-ui,sans-serif;margin:4rem auto;max-width:36rem;padding:0 1rem;line-height:1.5}</style></head>` +
      `<body><main><h1>Gatehouse</h1><p>${escaped}</p></main></body></html>\n`,
  );
}
