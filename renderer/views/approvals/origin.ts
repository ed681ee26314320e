// Where a pending request came from, when it is not this window's own launch: a `gatehouse
// gateway` process started by another MCP host relays its approvals and questions here, and the
// host labels them `gateway:<pid>` (`gateway:<pid>#<n>` when two connections claim one pid).

/** "from gateway process 4242", or undefined for a request of this window's own sessions. */
export function originLabel(session: string | undefined): string | undefined {
  const m = /^gateway:(\d+)(?:#(\d+))?$/.exec(session ?? '');
  if (!m) return undefined;
  return `from gateway process ${m[1]}${m[2] ? ` (connection ${m[2]})` : ''}`;
}
