// A server's whole tool list, page by page, through its SDK client.
import { ListToolsResultSchema, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { compileGlobs } from '../policy/glob';
import type { ServerSpec } from '../profiles/types';
import type { UpstreamClient } from './types';

/** Pages a server may return before the list is cut: one that keeps returning cursors must not loop us forever. */
const MAX_PAGES = 100;

export async function listAllTools(client: UpstreamClient, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = (await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsResultSchema, { timeout: timeoutMs })) as ListToolsResult;
    tools.push(...res.tools);
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** The tools a profile lets the agent see (`servers.<id>.tools`: include, then exclude; globs over the tool's own name). */
export function exposedTools(tools: Tool[], filter: ServerSpec['tools']): Tool[] {
  if (!filter) return tools;
  const include = filter.include ? compileGlobs(filter.include) : undefined;
  const exclude = compileGlobs(filter.exclude);
  return tools.filter((t) => (!include || include.test(t.name)) && !exclude.test(t.name));
}
