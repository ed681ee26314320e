// `network: { allow: [hosts] }` under the landlock kind. There is no network namespace to bind a
// Unix socket into (host-bridges.ts), so the filtering proxy (egress-proxy.ts) listens on a port of
// the host's 127.0.0.1 and the process gets a Landlock connect rule for that port alone.
//
// The spawn path is synchronous and a listening TCP port is only known after listen() calls back
// (checked: server.address() is null right after listen(0)), so the port is picked by a short
// synchronous helper that binds port 0 and prints what it got, then the proxy listens there. In
// the moment between, another local process could take that port; the proxy then fails to
// listen, says so in the server's log, and the process simply has no way out (it cannot bind or
// reach any other port itself). docs/sandbox.md "Sandbox kinds" lists this.
import { spawnSync } from 'node:child_process';
import type net from 'node:net';
import { createEgressProxy } from './egress-proxy';

export interface LandlockProxy {
  port: number;
  close(): void;
}

const PICK_PORT = "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); });";

/** A free port of 127.0.0.1 now, or an error naming what the helper said. */
export function pickLoopbackPort(nodePath: string): number {
  const r = spawnSync(nodePath, ['-e', PICK_PORT], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  const port = Number((r.stdout ?? '').trim());
  if (r.status !== 0 || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`sandbox network: expected a free 127.0.0.1 port from ${nodePath}, found ${r.error ? r.error.message : JSON.stringify((r.stdout ?? '') + (r.stderr ?? ''))}`);
  }
  return port;
}

export function openLandlockProxy(opts: { hosts: string[]; nodePath: string; log?: (line: string) => void }): LandlockProxy {
  const port = pickLoopbackPort(opts.nodePath);
  const proxy = createEgressProxy({ hosts: opts.hosts, log: opts.log });
  const sockets = new Set<net.Socket>();
  proxy.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  proxy.on('error', (err) => opts.log?.(`sandbox network: the proxy could not listen on 127.0.0.1:${port}: ${err.message}; this run has no network`));
  proxy.listen(port, '127.0.0.1');
  let closed = false;
  return {
    port,
    close() {
      if (closed) return;
      closed = true;
      proxy.close();
      for (const s of sockets) s.destroy();
    },
  };
}
