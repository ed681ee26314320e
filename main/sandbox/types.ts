// What a profile asks of the OS sandbox for one process (a server, the built-in tools, an agent
// terminal), after `${…}` expansion: absolute paths, one network mode. docs/sandbox.md says what
// each field means on each platform.

/**
 * - `none`: the process has its own network namespace with only its own loopback; nothing of the
 *   host (not even the host's 127.0.0.1) and nothing outside.
 * - `loopback`: the same, plus the host's 127.0.0.1 ports in `hostPorts`, forwarded in at the same
 *   port number (how an agent reaches the gateway and nothing else on the host).
 * - `allow`: `loopback`, plus HTTP(S) to the listed hosts through Gatehouse's filtering proxy
 *   (HTTP_PROXY / HTTPS_PROXY inside the sandbox), with the allow-list semantics of http_request.
 */
export type SandboxNetwork = { kind: 'none' } | { kind: 'loopback' } | { kind: 'allow'; hosts: string[] };

export interface SandboxSpec {
  /** `off` runs the process unconfined; only ever by an explicit `sandbox: off` in the profile. */
  mode: 'strict' | 'off';
  /** Absolute paths the process may write (besides the workspace, which is always writable). */
  write: string[];
  /** Absolute paths made visible read-only even where they would be hidden (e.g. `~/.gitconfig` under a hidden folder). */
  read: string[];
  network: SandboxNetwork;
  /** Host 127.0.0.1 ports reachable from inside (network `loopback` or `allow`). */
  hostPorts: number[];
}

/** An agent's sandbox as the profile wrote it: no network means the preset's default. */
export type AgentSandboxSpec = Omit<SandboxSpec, 'network'> & { network?: SandboxNetwork };

/** The sandbox a status line reports (host API `ServerStatus.sandbox`). */
export interface SandboxSummary {
  mode: 'strict' | 'off';
  network: 'none' | 'loopback' | 'allow' | 'host';
  /** One line for people: "strict · network none · writes workspace + 1 path". */
  summary: string;
}

export const STRICT_DEFAULT: SandboxSpec = Object.freeze({
  mode: 'strict',
  write: [],
  read: [],
  network: { kind: 'none' },
  hostPorts: [],
}) as SandboxSpec;

export function summarizeSandbox(spec: SandboxSpec): SandboxSummary {
  if (spec.mode === 'off') return { mode: 'off', network: 'host', summary: 'off: runs unconfined (sandbox: off in the profile)' };
  const parts = ['strict', `network ${spec.network.kind}${spec.network.kind === 'allow' ? ` (${spec.network.hosts.join(', ')})` : ''}`];
  if (spec.hostPorts.length) parts.push(`host ports ${spec.hostPorts.join(', ')}`);
  parts.push(spec.write.length ? `writes workspace + ${spec.write.length} path${spec.write.length === 1 ? '' : 's'}` : 'writes workspace only');
  return { mode: 'strict', network: spec.network.kind, summary: parts.join(' · ') };
}
