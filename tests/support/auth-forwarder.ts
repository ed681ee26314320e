// A loopback forwarder that adds `Authorization: Bearer <token>` to every request and passes
// everything else through to an HTTP target (the gateway's Streamable HTTP endpoint): any
// method, any path, request and response bodies streamed both ways (long-lived SSE included),
// status and headers as they came. It exists for clients that cannot send an Authorization
// header (the official conformance suite's CLI); the gateway's own authentication is untouched.
//
// Host and Origin: the forwarder's own loopback authority (127.0.0.1/localhost/[::1] with the
// forwarder's port) is mapped onto the target's, so that a client talking to the forwarder looks
// to the gateway like one talking to it directly. Any other Host or Origin is passed through
// unchanged, so the gateway's DNS-rebinding check still sees (and refuses) a foreign one.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthForwarder {
  /** The target URL with the forwarder's authority in it (same path). */
  url: string;
  port: number;
  /** Requests forwarded so far. */
  forwarded(): number;
  close(): Promise<void>;
}

export interface AuthForwarderOptions {
  /** The URL to forward to, e.g. the gateway's `http://127.0.0.1:PORT/mcp`. */
  target: string;
  token: string;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export async function startAuthForwarder(opts: AuthForwarderOptions): Promise<AuthForwarder> {
  const target = new URL(opts.target);
  if (target.protocol !== 'http:') throw new Error(`auth forwarder: only http:// targets, got ${opts.target}`);
  const targetPort = target.port || '80';
  const agent = new http.Agent({ keepAlive: true });
  let port = 0;
  let count = 0;

  /** `<loopback>:<our port>` → `<same loopback>:<target port>`; anything else unchanged. */
  const mapAuthority = (authority: string): string => {
    for (const name of LOOPBACK_NAMES) {
      if (authority.toLowerCase() === `${name}:${port}`) return `${name}:${targetPort}`;
    }
    return authority;
  };
  const mapOrigin = (origin: string): string => {
    const m = /^http:\/\/([^/]+)$/i.exec(origin);
    return m ? `http://${mapAuthority(m[1]!)}` : origin;
  };

  const server = http.createServer((req, res) => {
    count += 1;
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      headers[name] = value;
    }
    headers.host = mapAuthority(req.headers.host ?? `127.0.0.1:${port}`);
    if (typeof req.headers.origin === 'string') headers.origin = mapOrigin(req.headers.origin);
    headers.authorization = `Bearer ${opts.token}`;

    const upstream = http.request(
      { host: target.hostname, port: targetPort, method: req.method, path: req.url, headers, agent },
      (upRes) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(upRes.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, out);
        // SSE: get the headers to the client now, before the first event.
        res.flushHeaders();
        upRes.pipe(res);
        upRes.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`auth forwarder: ${err.message}`);
      } else {
        res.destroy();
      }
    });
    // The client went away (a cancelled SSE stream, a DELETE that ended a session): end the
    // upstream exchange too, so the gateway sees the disconnect as the client made it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.requestTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const url = new URL(opts.target);
  url.host = `127.0.0.1:${port}`;

  return {
    url: url.toString(),
    port,
    forwarded: () => count,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
