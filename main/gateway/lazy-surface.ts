// The lazy tool surface (docs/gateway.md, "Lazy tool surface"): tools/list holds a search tool,
// a call tool, the capabilities tool and the profile's `always_listed` tools; every other tool
// stays callable (by its friendly name, or through gatehouse_call_tool) and is found by search.
// An agent then pays for four tool definitions in its context instead of every server's list
// (15 server-everything instances: bench/surface.mjs prints the bytes).
// The call tool is unwrapped by the call pipeline before anything is decided, so policy,
// approvals, pinning and the audit see the real tool exactly as for a direct call.
import MiniSearch from 'minisearch';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SurfaceTool } from './tool-surface';

export const SEARCH_TOOL = 'gatehouse.search_tools';
export const CALL_TOOL = 'gatehouse.call_tool';

const DEFAULT_LIMIT = 8;
const MAX_LIMIT = 50;

function gatehouseTool(canonical: string, tool: Tool): SurfaceTool {
  return { canonical, server: 'gatehouse', upstreamName: canonical.slice('gatehouse.'.length), tool, advertised: [] };
}

/** The two tools the lazy surface adds (the capabilities tool is on every surface). */
export function lazyTools(): SurfaceTool[] {
  return [
    gatehouseTool(SEARCH_TOOL, {
      name: SEARCH_TOOL,
      title: 'Search the workspace tools',
      description:
        'Finds tools of this workspace by words in their names, titles, descriptions and parameters. Returns the best matches with the name to call and the input schema; call one with gatehouse_call_tool (or directly by that name).',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words describing what the tool should do, e.g. "read a file" or "sum numbers".' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `How many matches at most (default ${DEFAULT_LIMIT}).` },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    }),
    gatehouseTool(CALL_TOOL, {
      name: CALL_TOOL,
      title: 'Call a workspace tool',
      description:
        'Calls a tool found with gatehouse_search_tools by its name, with its arguments. The workspace policy and approvals apply to that tool as if it were called directly.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool name gatehouse_search_tools returned.' },
          arguments: { type: 'object', description: "The tool's arguments, as its input schema describes." },
        },
        required: ['name'],
      },
    }),
  ];
}

export function isLazyTool(canonical: string): boolean {
  return canonical === SEARCH_TOOL || canonical === CALL_TOOL;
}

/** The words of an input schema a search should find: property names, their titles and descriptions. */
function schemaWords(schema: unknown, depth = 0): string {
  if (depth > 4 || schema === null || typeof schema !== 'object') return '';
  const s = schema as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of ['title', 'description']) if (typeof s[key] === 'string') parts.push(s[key] as string);
  if (Array.isArray(s.enum)) parts.push(...s.enum.filter((v): v is string => typeof v === 'string'));
  const props = s.properties;
  if (props && typeof props === 'object') {
    for (const [name, sub] of Object.entries(props as Record<string, unknown>)) parts.push(name, schemaWords(sub, depth + 1));
  }
  if (s.items) parts.push(schemaWords(s.items, depth + 1));
  return parts.filter(Boolean).join(' ');
}

export interface SearchHit {
  /** The name to call it by (its first advertised name). */
  name: string;
  canonical: string;
  server: string;
  title?: string;
  description?: string;
  inputSchema: Tool['inputSchema'];
  annotations?: Tool['annotations'];
}

interface Doc {
  id: number;
  name: string;
  canonical: string;
  title: string;
  description: string;
  schema: string;
}

/** A ranked index over one surface's tools (built once per surface: the catalog makes a new one when tools change). */
export class ToolSearch {
  private readonly index: MiniSearch<Doc>;

  constructor(private readonly tools: SurfaceTool[]) {
    this.index = new MiniSearch<Doc>({
      fields: ['name', 'canonical', 'title', 'description', 'schema'],
      searchOptions: { boost: { name: 3, title: 2, canonical: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
    });
    this.index.addAll(
      tools.map((t, id) => ({
        id,
        name: t.advertised.join(' '),
        canonical: t.canonical,
        title: t.tool.title ?? t.tool.annotations?.title ?? '',
        description: t.tool.description ?? '',
        schema: schemaWords(t.tool.inputSchema),
      })),
    );
  }

  search(query: string, limit = DEFAULT_LIMIT): SearchHit[] {
    const n = Math.max(1, Math.min(MAX_LIMIT, Math.floor(limit)));
    return this.index
      .search(query)
      .slice(0, n)
      .map((r) => {
        const t = this.tools[r.id as number]!;
        return {
          name: t.advertised[0] ?? t.canonical,
          canonical: t.canonical,
          server: t.server,
          ...(t.tool.title !== undefined ? { title: t.tool.title } : {}),
          ...(t.tool.description !== undefined ? { description: t.tool.description } : {}),
          inputSchema: t.tool.inputSchema,
          ...(t.tool.annotations ? { annotations: t.tool.annotations } : {}),
        };
      });
  }
}
