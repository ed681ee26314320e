// Where a pending request came from, when it is not this window's own launch: a `gatehouse
// gateway` process started by another MCP host relays its approvals and questions here, and the
// host labels them `gateway:<pid>` with the pid the kernel reports for the socket
// (`gateway:<pid>#<n>` for a second connection of one process), or `gateway:unverified` when the
// host could not read the peer's credentials (main/approvals/relay-server.ts).

/** "from gateway process 4242", or undefined for a request of this window's own sessions. */
export function originLabel(session: string | undefined): string | undefined {
  const u = /^gateway:unverified(?:#(\d+))?$/.exec(session ?? '');
  if (u) return `from an unverified gateway process (its pid could not be read from the socket)${u[1] ? ` (connection ${u[1]})` : ''}`;
  const m = /^gateway:(\d+)(?:#(\d+))?$/.exec(session ?? '');
  if (!m) return undefined;
  return `from gateway process ${m[1]}${m[2] ? ` (connection ${m[2]})` : ''}`;
}
