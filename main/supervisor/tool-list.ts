// A server's whole tool list, page by page, through its SDK client.
import { ListToolsResultSchema, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
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
