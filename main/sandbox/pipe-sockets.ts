// Two sockets joined both ways; when either side ends or fails, both go (a half-dead pair would
// hold a connection of a sandboxed process open for ever). Used on both sides of the sandbox's
// network: the in-sandbox forwarder and the host-side bridges.
import type net from 'node:net';

export function pipeSockets(a: net.Socket, b: net.Socket): void {
  a.pipe(b).pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end);
  b.on('error', end);
  a.on('close', end);
  b.on('close', end);
}
