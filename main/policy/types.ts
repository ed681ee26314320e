// Shapes the policy layer hands to the gateway, the approvals broker and audit.
// Policy speaks canonical tool names only (`<server>.<tool>`, ARCHITECTURE.md "Names").

/**
 * MCP tool annotations as a server sent them. Structural on purpose, so the SDK's
 * `ToolAnnotations` (and any future hint) is assignable without importing the SDK here.
 * They are *hints* (MCP 2025-11-25, "Tool annotations": clients must not trust them from
 * untrusted servers), so the engine only lets a rule that names them act on them.
 */
export type ToolAnnotations = Readonly<Record<string, unknown>>;

import type { Verdict } from '../../common/host-api-shapes';

/** The wire-level verdict (common/host-api-shapes.ts), as the gateway, traffic tap and audit record it. */
export type { Verdict };

export interface PolicyCall {
  /** Canonical name, e.g. `files.read_file`. */
  tool: string;
  /** Server id that owns the tool. */
  server: string;
  /** The calling agent's name (per-agent token, else clientInfo); rules with `agents:` need it. */
  agent?: string;
  annotations?: ToolAnnotations;
  /** The call's `arguments`, as received (not redacted: constraints must see the real values). */
  args: unknown;
}

export interface PolicyDecision {
  decision: Verdict;
  /** One line, safe to show the agent after `DENY: `. */
  reason: string;
  /** Which part of the policy decided: `policy.rules[2]`, `policy.default`, `policy.sampling`, `builtin`. */
  rule?: string;
  /** The first `shadow: true` rule the call matched before the deciding one: what it would have done. */
  shadow?: { decision: Verdict; rule: string };
}

/**
 * What the policy says about a tool before any arguments are known (for the capabilities
 * report). `decision` is the most permissive verdict some arguments can reach; `reachable`
 * lists every verdict some arguments can reach, and `constraints` explains which.
 */
export interface PolicyOutlook {
  decision: Verdict;
  reachable: Verdict[];
  reason: string;
  rule?: string;
  constraints: string[];
}
