// "Allow for this session" grants (docs/gateway.md, "Session grants"): each one a record with an
// id, so a person can list them (window, host API) and revoke one; a tool grant can be narrowed
// to an argument pattern ("write_file with path under docs/ for this session"). The broker asks
// here before it asks a person. Grants live in memory only: they end with their agent session
// or launch, and a host restart forgets them (by design: a session grant outlives no session).
import { randomBytes } from 'node:crypto';
import type { SessionGrant } from '../../common/host-api-shapes';

export type { SessionGrant };

interface Stored extends SessionGrant {
  scope: string;
  fingerprint?: string;
  re?: RegExp;
}

export interface GrantQuery {
  kind: string;
  tool: string;
  fingerprint?: string;
  args?: unknown;
}

export type GrantMatch = { by: string; reason: string };

/** Compiles a narrowing pattern as policy patterns are (the whole value must match; `.` crosses newlines). */
export function compileGrantPattern(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 's');
}

export class SessionGrants {
  private readonly grants = new Map<string, Stored>();

  constructor(private readonly now: () => number) {}

  add(scope: string, g: Omit<SessionGrant, 'id' | 'createdAt' | 'session' | 'agentSession'> & { fingerprint?: string }): SessionGrant {
    const [session, agentSession] = scope.split('\0');
    // One grant per thing granted: granting the same again keeps the first (and its id).
    for (const s of this.grants.values()) {
      if (s.scope === scope && s.grant === g.grant && s.approvalKind === g.approvalKind && s.tool === g.tool && s.fingerprint === g.fingerprint && s.arg === g.arg && s.pattern === g.pattern) return publicOf(s);
    }
    const stored: Stored = {
      ...g,
      id: randomBytes(12).toString('base64url'),
      session: session!,
      ...(agentSession ? { agentSession } : {}),
      createdAt: this.now(),
      scope,
      ...(g.pattern !== undefined ? { re: compileGrantPattern(g.pattern) } : {}),
    };
    this.grants.set(stored.id, stored);
    return publicOf(stored);
  }

  find(scope: string, q: GrantQuery): GrantMatch | undefined {
    let action: Stored | undefined;
    let narrowed: Stored | undefined;
    for (const g of this.grants.values()) {
      if (g.scope !== scope || g.approvalKind !== q.kind || g.tool !== q.tool) continue;
      if (g.grant === 'tool') return { by: g.by, reason: `${q.tool} was allowed for this session by ${g.by}` };
      if (g.grant === 'action' && q.fingerprint !== undefined && g.fingerprint === q.fingerprint) action = g;
      if (g.grant === 'pattern' && g.re && g.arg !== undefined && argMatches(q.args, g.arg, g.re)) narrowed = g;
    }
    if (action) return { by: action.by, reason: `this action was allowed for this session by ${action.by}` };
    if (narrowed) return { by: narrowed.by, reason: `${q.tool} with ${narrowed.arg} matching ${narrowed.pattern} was allowed for this session by ${narrowed.by}` };
    return undefined;
  }

  list(): SessionGrant[] {
    return [...this.grants.values()].sort((a, b) => a.createdAt - b.createdAt).map(publicOf);
  }

  revoke(id: string): SessionGrant | undefined {
    const g = this.grants.get(id);
    if (!g) return undefined;
    this.grants.delete(id);
    return publicOf(g);
  }

  /** Forget every grant whose scope satisfies `pred` (a session ended, a launch stopped). */
  clear(pred: (session: string, agentSession: string) => boolean): void {
    for (const [id, g] of this.grants) if (pred(g.session, g.agentSession ?? '')) this.grants.delete(id);
  }
}

function argMatches(args: unknown, arg: string, re: RegExp): boolean {
  if (args === null || typeof args !== 'object' || Array.isArray(args) || !Object.hasOwn(args, arg)) return false;
  const v = (args as Record<string, unknown>)[arg];
  // Only a string is judged: a pattern over "path" says nothing about an array or an object there.
  return typeof v === 'string' && re.test(v);
}

function publicOf(s: Stored): SessionGrant {
  const { scope: _s, fingerprint: _f, re: _r, ...rest } = s;
  return rest;
}
