// Per-agent gateway tokens (docs/gateway.md, "Agents with names"): `gatehouse connect --agent
// NAME` mints one, kept in the host's secret store beside the profile's gateway token (under
// `agent-token:<profile file>:<NAME>`, so no sandbox can read it). The HTTP endpoint accepts
// any minted token of the launched profile and tags the sessions it opens with NAME: two
// agents on one gateway are told apart by something they cannot choose for themselves, unlike
// the clientInfo name an agent declares at initialize. Policy rules with `agents:` match it.
import { timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { SecretStore } from '../auth/secret-store';
import { generateToken } from './http-endpoint';

const PREFIX = 'agent-token:';
/** An agent name: what policy rules, Traffic and the audit show. */
export const AGENT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function keyPrefix(profileFile: string): string {
  return `${PREFIX}${path.resolve(profileFile)}:`;
}

/** The token of agent `name` for this profile: the kept one, or a new one kept now. */
export function mintAgentToken(store: SecretStore, profileFile: string, name: string): string {
  if (!AGENT_NAME_RE.test(name)) throw new Error(`an agent name is 1-64 of A-Z a-z 0-9 _ . - starting with a letter or digit, got '${name}'`);
  const key = `${keyPrefix(profileFile)}${name}`;
  const kept = store.get(key);
  if (kept) return kept;
  const token = generateToken();
  store.set(key, token);
  return token;
}

/** Every minted agent token of this profile: token → agent name. */
export function agentTokens(store: SecretStore, profileFile: string): Map<string, string> {
  const prefix = keyPrefix(profileFile);
  const out = new Map<string, string>();
  for (const key of store.keys()) {
    if (!key.startsWith(prefix)) continue;
    const token = store.get(key);
    if (token) out.set(token, key.slice(prefix.length));
  }
  return out;
}

/**
 * A cached view of agentTokens for the endpoint: re-read from the store when a request presents
 * a token it does not know, at most once per `minIntervalMs` (a token minted while the host runs
 * works within that; a flood of wrong tokens costs one store read per interval).
 */
export function agentTokenLookup(read: () => Map<string, string>, minIntervalMs = 1000): (token: string) => string | undefined {
  let cache = new Map<string, string>();
  let readAt = -Infinity;
  // Each comparison is constant-time (as the endpoint's own tokens are compared).
  const find = (token: string) => {
    const given = Buffer.from(token);
    let found: string | undefined;
    for (const [t, name] of cache) {
      const want = Buffer.from(t);
      if (given.length === want.length && timingSafeEqual(given, want)) found = name;
    }
    return found;
  };
  return (token) => {
    const hit = find(token);
    if (hit !== undefined) return hit;
    if (Date.now() - readAt < minIntervalMs) return undefined;
    readAt = Date.now();
    try {
      cache = read();
    } catch {
      return undefined;
    }
    return find(token);
  };
}
