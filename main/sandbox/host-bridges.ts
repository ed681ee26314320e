// The host side of a sandbox's network: Unix sockets in a private 0700 folder, bound read-only into
// the sandbox at SANDBOX_SOCKET_DIR, where the in-sandbox forwarder (sandbox-init.ts) connects.
// - port-N.sock → the host's 127.0.0.1:N (a granted host port, e.g. the gateway)
// - proxy.sock  → the filtering egress proxy (network allow)
// Listening on a Unix path binds synchronously in Node (checked: the file exists when listen()
// returns), so the spawn path can stay synchronous.
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createEgressProxy } from './egress-proxy';
import { pipeSockets } from './pipe-sockets';

export interface HostBridges {
  socketDir: string;
  /** Socket file name (inside socketDir) per in-sandbox port. */
  forwards: Array<{ port: number; socketName: string }>;
  /** The in-sandbox port of the proxy, when there is one. */
  proxyPort?: number;
  close(): void;
}

export function openHostBridges(opts: { hostPorts: number[]; allowHosts?: string[]; log?: (line: string) => void }): HostBridges {
  const socketDir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-sbx-'));
  chmodSync(socketDir, 0o700);
  const servers: net.Server[] = [];
  const forwards: HostBridges['forwards'] = [];
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  try {
    for (const port of [...new Set(opts.hostPorts)]) {
      const socketName = `port-${port}.sock`;
      const server = net.createServer((inbound) => {
        track(inbound);
        const outbound = net.connect(port, '127.0.0.1');
        track(outbound);
        pipeSockets(inbound, outbound);
      });
      server.on('error', (err) => opts.log?.(`sandbox network: bridge to 127.0.0.1:${port} failed: ${err.message}`));
      server.listen(path.join(socketDir, socketName));
      servers.push(server);
      forwards.push({ port, socketName });
    }
    let proxyPort: number | undefined;
    if (opts.allowHosts) {
      // Any port is free inside: the namespace is the process's own. Skip the granted ones.
      proxyPort = 3128;
      while (opts.hostPorts.includes(proxyPort)) proxyPort += 1;
      const proxy = createEgressProxy({ hosts: opts.allowHosts, log: opts.log });
      proxy.on('connection', track);
      proxy.on('error', (err) => opts.log?.(`sandbox network: proxy failed: ${err.message}`));
      proxy.listen(path.join(socketDir, 'proxy.sock'));
      servers.push(proxy);
      forwards.push({ port: proxyPort, socketName: 'proxy.sock' });
    }
    let closed = false;
    return {
      socketDir,
      forwards,
      ...(proxyPort !== undefined ? { proxyPort } : {}),
      close() {
        if (closed) return;
        closed = true;
        for (const s of servers) s.close();
        for (const s of sockets) s.destroy();
        rmSync(socketDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const s of servers) s.close();
    rmSync(socketDir, { recursive: true, force: true });
    throw err;
  }
}
