// In the OS sandbox (docs/sandbox.md, network `allow`), the tools server's only way out is
// Gatehouse's filtering proxy, named by GATEHOUSE_SANDBOX_PROXY (set by main/sandbox/). Then
// http_request's hops go through it: plain http in absolute form, https through a CONNECT tunnel
// with TLS to the real host on top (so certificates are still checked against the host's name).
// The proxy applies the same allow list and refuses the same link-local/metadata addresses, on
// the host, where the sandboxed process cannot change anything.
import http from 'node:http';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';

export function sandboxProxy(env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const raw = env.GATEHOUSE_SANDBOX_PROXY;
  return raw ? new URL(raw) : undefined;
}

/** Request options that send this hop through `proxy` instead of connecting directly. */
export function viaProxy(url: URL, proxy: URL): http.RequestOptions {
  if (url.protocol === 'http:') {
    return { host: proxy.hostname, port: Number(proxy.port), path: url.href, setHost: false };
  }
  const port = url.port ? Number(url.port) : 443;
  const servername = url.hostname.replace(/^\[|\]$/g, '');
  return {
    createConnection: (_opts: unknown, oncreate: (err: Error | null, socket?: Duplex) => void) => {
      const connect = http.request({ host: proxy.hostname, port: Number(proxy.port), method: 'CONNECT', path: `${url.hostname}:${port}`, agent: false });
      connect.on('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          const err = Object.assign(new Error(`the sandbox's network proxy refused ${url.host} (HTTP ${res.statusCode})`), { code: 'EPROXYREFUSED' });
          return oncreate(err);
        }
        const secure = tls.connect({ socket, servername });
        secure.once('secureConnect', () => oncreate(null, secure));
        secure.once('error', (err) => oncreate(err));
      });
      connect.on('error', (err) => oncreate(err));
      connect.end();
      return undefined;
    },
  } as unknown as http.RequestOptions;
}
