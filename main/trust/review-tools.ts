// The tool filter (docs/trust.md, "Tool pinning"), a pure function: definitions in, what the
// gateway may advertise and what waits for a person out. The trust guard applies its result
// (pins, held definitions); the gateway calls the guard from the one place it builds its catalog.
//
//   pinned, same hash                          → advertised
//   pinned, different hash                     → held `changed` (every mode but `off`)
//   a person rejected exactly this definition  → held, status `rejected`
//   not pinned, first listing after approval   → pinned and advertised, unless a `hold` flag
//   not pinned, later (a new tool)             → `accept-new`: pinned and advertised unless flagged;
//                                                `pin`: held `new`
//   pinned, no longer listed                   → noted as `removed`
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { checkDefinition, holds, type OtherTool, type TrustFlag } from './poisoning';
import { definitionHash, toolDefinition, type ToolDefinition } from './tool-definition';
import type { PinnedTool } from './pin-store';

export type { TrustMode } from '../profiles/types';
import type { TrustMode } from '../profiles/types';

export const HELD_REASON = 'changed since approved, waiting for review';
export const NEW_HELD_REASON = 'new tool, waiting for review';

export interface HeldTool {
  name: string;
  change: 'new' | 'changed';
  status: 'pending' | 'rejected';
  hash: string;
  definition: ToolDefinition;
  previous?: PinnedTool;
  flags: TrustFlag[];
  reason: string;
}

export interface ToolReviewInput {
  server: string;
  mode: TrustMode;
  /** Pinned definitions by name; undefined when the server's tools were never seen since approval. */
  pinned: Record<string, PinnedTool> | undefined;
  rejected: Record<string, string>;
  tools: Tool[];
  /** The server's `instructions` (initialize, or `server/discover`): pinned with each of its tools (tool-definition.ts). */
  instructions?: string;
  /**
   * The profile's redactor: a definition is pinned, stored and shown redacted, so a server that
   * writes a configured secret into a description leaves no clear copy in the pin file, the
   * audit store or a review card (docs/security.md, "Secrets").
   */
  redact?: <T>(value: T) => T;
  /** Tools of the profile's other servers (for shadowing and cross-references). */
  others: OtherTool[];
}

export interface ToolReviewResult {
  advertised: Tool[];
  held: HeldTool[];
  removed: Array<{ name: string; previous: PinnedTool }>;
  /** Definitions to pin now (first sight, or accept-new). */
  pin: Array<{ name: string; hash: string; definition: ToolDefinition; flags: TrustFlag[] }>;
  /** Flags of every tool, advertised or not, by name (notes such as a name collision). */
  flags: Record<string, TrustFlag[]>;
}

export function reviewTools(input: ToolReviewInput): ToolReviewResult {
  const result: ToolReviewResult = { advertised: [], held: [], removed: [], pin: [], flags: {} };
  if (input.mode === 'off') {
    result.advertised = input.tools;
    return result;
  }
  const firstSight = input.pinned === undefined;
  const pinned = input.pinned ?? {};
  const listed = new Set<string>();
  for (const tool of input.tools) {
    listed.add(tool.name);
    const redact = input.redact ?? (<T>(v: T) => v);
    const definition = toolDefinition(redact(tool), input.instructions === undefined ? undefined : redact(input.instructions));
    const hash = definitionHash(definition);
    const previous = pinned[tool.name];
    if (previous?.hash === hash) {
      result.advertised.push(tool);
      continue;
    }
    const flags = checkDefinition(definition, { server: input.server, others: input.others });
    if (flags.length) result.flags[tool.name] = flags;
    const rejected = input.rejected[tool.name] === hash;
    const autoPin = !previous && !rejected && !holds(flags) && (firstSight || input.mode === 'accept-new');
    if (autoPin) {
      result.pin.push({ name: tool.name, hash, definition, flags });
      result.advertised.push(tool);
      continue;
    }
    const change = previous ? 'changed' : 'new';
    result.held.push({
      name: tool.name,
      change,
      status: rejected ? 'rejected' : 'pending',
      hash,
      definition,
      previous,
      flags,
      reason: rejected
        ? `${change === 'changed' ? 'changed since approved' : 'new tool'}; this definition was rejected`
        : holds(flags) && change === 'new'
          ? `${NEW_HELD_REASON} (flagged: ${flags.filter((f) => f.severity === 'hold').map((f) => f.kind).join(', ')})`
          : change === 'changed'
            ? HELD_REASON
            : NEW_HELD_REASON,
    });
  }
  for (const [name, previous] of Object.entries(pinned)) if (!listed.has(name)) result.removed.push({ name, previous });
  return result;
}
