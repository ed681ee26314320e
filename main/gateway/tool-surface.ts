// Names (ARCHITECTURE.md, "Names: friendly and canonical tool surfaces"); the canonical and
// advertised forms of one name are main/protocol/tool-names.ts.
// Advertised names must match ^[A-Za-z0-9_-]{1,64}$ (the strictest common client rule).
//
// Collision rule (deterministic; never "last one wins"). Names are claimed in this order of
// precedence, and a lower tier never takes a name a higher tier holds:
//   1. canonical advertised names (`files_read_file`), in `canonical`/`both` surfaces;
//   2. profile aliases (`search`);
//   3. built-in friendly names (`read_file`, `run_command`, ...): `_meta["gatehouse/friendlyName"]`,
//      honoured only on a built-in server's tools (any server can write that key; an upstream
//      tool that did would take `read_file` from the built-in);
//   4. an upstream tool's own name, only when exactly one tool of the profile has it.
// Within a tier, a name wanted by two tools goes to neither: both stay reachable through their
// canonical names, and the clash is reported (see `conflicts`). So adding a server can only
// remove an ambiguous friendly name, never silently re-point it at another tool.
// Tools are ordered by canonical name (then server id), so the result does not depend on the
// order of the inputs; of two tools with one canonical name, the first in that order is kept.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CAPABILITIES_TOOL } from '../policy/engine';
import type { ToolSurface } from '../profiles/types';
import { canonicalName, toAdvertised, type SurfaceInput } from '../protocol/tool-names';

export const ADVERTISED_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const FRIENDLY_META_KEY = 'gatehouse/friendlyName';
export const CANONICAL_META_KEY = 'gatehouse/canonicalName';
// Declared by the policy engine, which always allows it (main/policy/engine.ts).
export { CAPABILITIES_TOOL };

export interface SurfaceTool {
  canonical: string;
  server: string;
  /** The tool's name on its own server, what the upstream call uses. */
  upstreamName: string;
  tool: Tool;
  /** A tool of a built-in server (only those name themselves through `_meta`). */
  builtin?: boolean;
  /** Names this tool is advertised under in tools/list (one or more; may be empty if all clashed in friendly mode — then the canonical form is advertised). */
  advertised: string[];
}

export interface Surface {
  tools: SurfaceTool[];
  /** The lazy surface (lazy-surface.ts): tools/list holds only these canonical names; the rest is found by search. */
  listed?: Set<string>;
  /** Every name a call may use (advertised names, aliases, dotted canonical) → canonical. */
  lookup: Map<string, SurfaceTool>;
  conflicts: string[];
}

export function buildSurface(
  inputs: SurfaceInput[],
  opts: { surface: ToolSurface; aliases: Record<string, string>; extra?: SurfaceTool[]; alwaysListed?: readonly string[] },
): Surface {
  const conflicts: string[] = [];
  const all: SurfaceTool[] = [...(opts.extra ?? [])];
  for (const input of inputs) {
    for (const tool of input.tools) {
      all.push({ canonical: canonicalName(input, tool), server: input.serverId, upstreamName: tool.name, tool, advertised: [], ...(input.builtin ? { builtin: true } : {}) });
    }
  }
  // Sorted before anything is claimed, so neither the order of the servers in the profile nor
  // the order a server lists its tools in changes the surface (or the order of tools/list).
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  all.sort((a, b) => cmp(a.canonical, b.canonical) || cmp(a.server, b.server));
  const byCanonical = new Map<string, SurfaceTool>();
  for (const t of all) {
    if (byCanonical.has(t.canonical)) {
      conflicts.push(`two tools have the canonical name ${t.canonical}; the second (server ${t.server}) is not reachable`);
      continue;
    }
    byCanonical.set(t.canonical, t);
  }
  const tools = [...byCanonical.values()];

  const taken = new Map<string, SurfaceTool>();
  const claimTier = (wants: Array<[string, SurfaceTool]>, tier: string) => {
    const counts = new Map<string, SurfaceTool[]>();
    for (const [name, t] of wants) {
      if (!ADVERTISED_NAME.test(name)) continue;
      const list = counts.get(name) ?? [];
      if (!list.includes(t)) list.push(t);
      counts.set(name, list);
    }
    for (const [name, list] of counts) {
      const holder = taken.get(name);
      if (holder) {
        if (!list.includes(holder)) conflicts.push(`${tier} name '${name}' of ${list.map((t) => t.canonical).join(', ')} is already ${holder.canonical}'s`);
        continue;
      }
      if (list.length > 1) {
        conflicts.push(`${tier} name '${name}' is wanted by ${list.map((t) => t.canonical).join(' and ')}; neither gets it`);
        continue;
      }
      taken.set(name, list[0]!);
    }
  };

  // Canonical advertised names are always claimed first (they are reachable in every surface).
  claimTier(tools.map((t) => [toAdvertised(t.canonical), t]), 'canonical');
  const aliasWants: Array<[string, SurfaceTool]> = [];
  for (const [alias, target] of Object.entries(opts.aliases)) {
    const t = byCanonical.get(target);
    if (t) aliasWants.push([alias, t]);
    else conflicts.push(`alias '${alias}' points at ${target}, which no server offers`);
  }
  claimTier(aliasWants, 'alias');
  const builtinWants: Array<[string, SurfaceTool]> = [];
  const upstreamWants: Array<[string, SurfaceTool]> = [];
  for (const t of tools) {
    const friendly = t.builtin ? t.tool._meta?.[FRIENDLY_META_KEY] : undefined;
    if (typeof friendly === 'string') builtinWants.push([friendly, t]);
    // Gatehouse's own tools (capabilities, the lazy surface's) go by their canonical form only
    // (`gatehouse` is a reserved server id, so no upstream tool has that prefix).
    else if (!t.canonical.startsWith('gatehouse.')) upstreamWants.push([t.upstreamName, t]);
  }
  claimTier(builtinWants, 'built-in');
  claimTier(upstreamWants, 'friendly');

  const lookup = new Map<string, SurfaceTool>();
  for (const [name, t] of taken) lookup.set(name, t);
  for (const t of tools) lookup.set(t.canonical, t);

  for (const t of tools) {
    const canonicalAdv = toAdvertised(t.canonical);
    const friendlyNames = [...taken].filter(([name, holder]) => holder === t && name !== canonicalAdv).map(([name]) => name);
    // Aliases (tier 2) are in friendlyNames too; list the natural friendly name first.
    const natural = friendlyNames.filter((n) => !(n in opts.aliases));
    const aliasNames = friendlyNames.filter((n) => n in opts.aliases);
    const friendly = [...natural, ...aliasNames];
    if (opts.surface === 'canonical') t.advertised = [canonicalAdv];
    // The lazy surface names tools as the friendly one does: search results are called by these names.
    else if (opts.surface === 'friendly' || opts.surface === 'lazy') t.advertised = friendly.length > 0 ? friendly : [canonicalAdv];
    else t.advertised = [...new Set([...friendly, canonicalAdv])];
  }
  if (opts.surface !== 'lazy') return { tools, lookup, conflicts };
  const listed = new Set(tools.filter((t) => t.canonical.startsWith('gatehouse.')).map((t) => t.canonical));
  for (const name of opts.alwaysListed ?? []) {
    if (byCanonical.has(name)) listed.add(name);
    else conflicts.push(`always_listed names ${name}, which no server offers (yet)`);
  }
  return { tools, lookup, conflicts, listed };
}

/** The tools/list entries for a surface: the upstream tool with its advertised name. */
export function advertisedTools(surface: Surface): Tool[] {
  const out: Tool[] = [];
  for (const t of surface.tools) {
    if (surface.listed && !surface.listed.has(t.canonical)) continue;
    for (const name of t.advertised) {
      out.push({ ...t.tool, name, _meta: { ...t.tool._meta, [CANONICAL_META_KEY]: t.canonical } });
    }
  }
  return out;
}
