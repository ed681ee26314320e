// An agent terminal's sandbox: the profile's `agent.sandbox` (strict when absent), plus what the
// preset's CLI needs (its config folder, its model API hosts), plus the one host port it must
// reach: the gateway's. Nothing else of the host's loopback is reachable (the web shell's port,
// any other service), the relay socket and the data directory are hidden, /proc is its own.
import os from 'node:os';
import path from 'node:path';
import type { AgentSandboxSpec, SandboxSpec } from './types';

export interface PresetSandboxNeeds {
  write: string[];
  hosts: string[];
}

export function agentSandboxSpec(opts: {
  profile: AgentSandboxSpec | undefined;
  preset: PresetSandboxNeeds | undefined;
  /** The gateway's Streamable HTTP URL (http://127.0.0.1:PORT/mcp). */
  gatewayUrl: string;
  home?: string;
}): SandboxSpec {
  const base: AgentSandboxSpec = opts.profile ?? { mode: 'strict', write: [], read: [], hostPorts: [] };
  const home = opts.home || os.homedir();
  const expand = (p: string) => (p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p);
  const gatewayPort = Number(new URL(opts.gatewayUrl).port);
  const presetHosts = opts.preset?.hosts ?? [];
  let network = base.network ?? (presetHosts.length ? { kind: 'allow' as const, hosts: presetHosts } : { kind: 'loopback' as const });
  // An agent always reaches the gateway: `none` for an agent means "nothing but the gateway".
  if (network.kind === 'none') network = { kind: 'loopback' };
  return {
    mode: base.mode,
    write: [...(opts.preset?.write ?? []).map(expand), ...base.write],
    read: base.read,
    network,
    hostPorts: [...new Set([...base.hostPorts, ...(gatewayPort ? [gatewayPort] : [])])],
    ...(base.limits ? { limits: base.limits } : {}),
  };
}
