// Entry of the built-in workspace tools server (bundled to out/tools-server.mjs):
//   node out/tools-server.mjs --workspace /abs/root [--options '<json>']
// stdout carries MCP protocol bytes only; every diagnostic goes to stderr. Bad arguments or
// options exit with status 2 and say what was expected.
//
// Importing this file starts the server; the definitions live in workspace-tools.ts.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { UsageError, parseServerArgs } from './options';
import { openWorkspace } from './confine';
import { BUILTIN_TOOLS, WORKSPACE_TOOLS_SERVER_NAME, createWorkspaceToolsServer } from './workspace-tools';
import { StructuredErrorTransport } from './structured-errors';

function fail(message: string, code: number): never {
  process.stderr.write(`${WORKSPACE_TOOLS_SERVER_NAME}: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseServerArgs(process.argv.slice(2));
  } catch (e) {
    fail(e instanceof UsageError ? e.message : String(e), 2);
  }
  let ws;
  try {
    ws = await openWorkspace(args.workspace);
  } catch (e) {
    fail(`cannot use workspace ${args.workspace}: ${e instanceof Error ? e.message : String(e)}`, 2);
  }
  const server = createWorkspaceToolsServer({ ws, options: args.options });
  const pathArguments = Object.fromEntries(BUILTIN_TOOLS.filter((t) => t.pathArgument).map((t) => [t.name, t.pathArgument!]));
  const transport = new StructuredErrorTransport(new StdioServerTransport(), pathArguments);
  // A client that goes away closes stdin; exit then instead of lingering as an orphan.
  process.stdin.on('end', () => { void server.close().finally(() => process.exit(0)); });
  await server.connect(transport);
  process.stderr.write(`${WORKSPACE_TOOLS_SERVER_NAME}: serving ${ws.realRoot}\n`);
}

main().catch((e: unknown) => fail(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, 1));
