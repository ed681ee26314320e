// The committed MCP_TOOL_SPECIFICATION.md of the built-in tools must equal a fresh generation
// from the real server's tools/list, so the document cannot drift from the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { buildToolsServer, makeTempDir, removeDir, REPO_ROOT, startToolsServer, type ToolsServerHandle } from '../fixtures/tools/harness';
import { generateToolSpecMarkdown } from '../../main/tools/spec-doc';
import { BUILTIN_FRIENDLY_NAMES, BUILTIN_TOOL_SECURITY_NOTES, WORKSPACE_TOOLS_SERVER_NAME } from '../../main/tools/workspace-tools';

const SPEC_FILE = path.join(REPO_ROOT, 'resources', 'workspace-tools', 'MCP_TOOL_SPECIFICATION.md');
const REGENERATE = 'UPDATE_SPEC=1 npx vitest run tests/integration/tools-spec.test.ts';

let ws: string;
let server: ToolsServerHandle;
let tools: Tool[];

beforeAll(async () => {
  await buildToolsServer();
  ws = makeTempDir('gh-ws-');
  server = await startToolsServer(ws);
  tools = (await server.client.listTools()).tools;
});
afterAll(async () => { await server?.close(); removeDir(ws); });

function generate(): string {
  return generateToolSpecMarkdown({
    serverId: 'workspace-tools',
    serverName: `${WORKSPACE_TOOLS_SERVER_NAME} (built-in workspace tools)`,
    tools,
    canonicalName: (t) => t.name, // the built-ins' advertised names are already canonical
    securityNotes: BUILTIN_TOOL_SECURITY_NOTES,
  });
}

describe('built-in tools advertisement', () => {
  it('advertises the six canonical tools with friendly names, titles, schemas and annotations', () => {
    expect(tools.map((t) => t.name)).toEqual(['fs.read', 'fs.write', 'repo.apply_patch', 'process.exec', 'net.http_request', 'repo.validate_change_set']);
    for (const t of tools) {
      expect(t._meta?.['gatehouse/friendlyName']).toBe(BUILTIN_FRIENDLY_NAMES[t.name]);
      expect(t.title).toBeTruthy();
      expect(t.description!.length).toBeGreaterThan(80);
      expect(t.outputSchema?.type).toBe('object');
      expect(t.annotations).toMatchObject({ readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean), openWorldHint: expect.any(Boolean) });
    }
    const read = tools[0]!;
    expect(read.inputSchema.required).toEqual(['file_path']);
    expect(Object.keys(read.inputSchema.properties!)).toEqual(['file_path', 'max_chars', 'encoding']);
    expect(read.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });

  it('the committed MCP_TOOL_SPECIFICATION.md is current', () => {
    const fresh = generate();
    expect(generate()).toBe(fresh); // deterministic
    if (process.env.UPDATE_SPEC === '1') writeFileSync(SPEC_FILE, fresh);
    const committed = existsSync(SPEC_FILE) ? readFileSync(SPEC_FILE, 'utf8') : '';
    expect(committed === fresh, `${path.relative(REPO_ROOT, SPEC_FILE)} is out of date; regenerate it with: ${REGENERATE}`).toBe(true);
  });
});
