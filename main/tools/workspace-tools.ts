// The built-in workspace tools server (resources/workspace-tools/MCP_TOOL_SPECIFICATION.md): one McpServer exposing six tools under their
// canonical names, each carrying its friendly name in _meta for the gateway's friendly surface.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolError, failureResult, isToolError, successResult, type ErrorType } from './errors';
import type { ConfineHooks, Workspace } from './confine';
import type { ToolsServerOptions } from './options';
import { EXPLANATION_META_KEY, type ToolContext, type ToolDefinition } from './tool-kit';
import { fsReadTool } from './fs-read';
import { fsWriteTool } from './fs-write';
import { applyPatchTool } from './apply-patch';
import { execTool } from './exec';
import { httpTool } from './http';
import { validateChangeSetTool } from './validate-change-set';

export const WORKSPACE_TOOLS_SERVER_NAME = 'gatehouse-workspace-tools';
export const WORKSPACE_TOOLS_SERVER_VERSION = '0.1.0';
/** _meta key under which each tool names its friendly alias. */
export const FRIENDLY_NAME_META_KEY = 'gatehouse/friendlyName';

export const BUILTIN_TOOLS: readonly ToolDefinition<any>[] = [fsReadTool, fsWriteTool, applyPatchTool, execTool, httpTool, validateChangeSetTool];

/** Canonical name → friendly name. */
export const BUILTIN_FRIENDLY_NAMES: Readonly<Record<string, string>> = Object.fromEntries(BUILTIN_TOOLS.map((t) => [t.name, t.friendlyName]));

/** Canonical name → security considerations, for the tool specification document. */
export const BUILTIN_TOOL_SECURITY_NOTES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(BUILTIN_TOOLS.map((t) => [t.name, t.securityNotes]));

/** Canonical name → the error_type values a failure may carry. */
export const BUILTIN_TOOL_ERROR_TYPES: Readonly<Record<string, readonly ErrorType[]>> = Object.fromEntries(BUILTIN_TOOLS.map((t) => [t.name, t.errorTypes]));

export interface WorkspaceToolsServerConfig {
  ws: Workspace;
  options: ToolsServerOptions;
  /** Unit-test seam for the check/use race; never set by the real server. */
  hooks?: ConfineHooks;
}

function pathAttempted(def: ToolDefinition<any>, args: unknown): string | null {
  if (!def.pathArgument || typeof args !== 'object' || args === null) return null;
  const v = (args as Record<string, unknown>)[def.pathArgument];
  return typeof v === 'string' ? v : null;
}

/**
 * Largest serialized result we send. Why: the SDK's stdio transport refuses messages over 10 MiB
 * (STDIO_DEFAULT_MAX_BUFFER_SIZE) and closes the connection, and a result carries its data twice
 * (structuredContent and JSON text) with JSON escaping that can grow a control character to 13
 * bytes, so 1 MiB of NUL characters would already be ~13 MiB on the wire.
 */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

function explanationOf(def: ToolDefinition<any>, args: unknown, structured: Record<string, unknown>): string {
  try {
    return def.explain(args as never, structured);
  } catch {
    return `Successfully ran ${def.friendlyName}.`; // an explanation must never turn a success into a failure
  }
}

/** Runs one tool and turns any outcome into a CallToolResult of the shared shape. */
export async function invokeTool(def: ToolDefinition<any>, ctx: ToolContext, args: unknown): Promise<CallToolResult> {
  try {
    const structured = await def.run(ctx, args as never);
    const result = successResult(structured);
    result._meta = { [EXPLANATION_META_KEY]: explanationOf(def, args, structured) };
    const size = Buffer.byteLength(JSON.stringify(result), 'utf8');
    if (size > MAX_RESULT_BYTES) {
      throw new ToolError(def.resultTooLargeError ?? 'InternalError', `the result would be ${size} bytes once serialized, over the ${MAX_RESULT_BYTES}-byte message limit; ask for less (max_chars, a lower cap, truncate)`, {
        reason: 'result_too_large', result_bytes: size, max_result_bytes: MAX_RESULT_BYTES,
      });
    }
    return result;
  } catch (e) {
    const err = isToolError(e) ? e : new ToolError('InternalError', e instanceof Error ? e.message : String(e));
    if (!isToolError(e)) process.stderr.write(`gatehouse-workspace-tools: ${def.name} internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    const type = (def.errorTypes as readonly string[]).includes(err.type) ? err.type : 'InternalError';
    const details: Record<string, unknown> = { ...err.details };
    if (def.pathArgument) details.path_attempted = pathAttempted(def, args) ?? details.path_attempted ?? null;
    if (type !== err.type) details.original_error_type = err.type;
    const failure = failureResult(type, err.message, details);
    if (Buffer.byteLength(JSON.stringify(failure), 'utf8') <= MAX_RESULT_BYTES) return failure;
    // Partial output in details (a timed-out command's stdout) can be large too: keep the scalars.
    const scalars = Object.fromEntries(Object.entries(details).filter(([, v]) => v === null || typeof v !== 'object' && String(v).length <= 4096));
    return failureResult(type, err.message, { ...scalars, details_dropped: 'too large to transmit' });
  }
}

export function createWorkspaceToolsServer(config: WorkspaceToolsServerConfig): McpServer {
  const server = new McpServer(
    { name: WORKSPACE_TOOLS_SERVER_NAME, title: 'Gatehouse workspace tools', version: WORKSPACE_TOOLS_SERVER_VERSION },
    {
      instructions:
        'Workspace tools confined to one folder: read and write files, apply patches, run commands and make HTTP requests to allowed hosts. ' +
        `Every failure is a tool result with isError and structuredContent {error_type, error_message, error_details}.`,
    },
  );
  const ctx: ToolContext = { ws: config.ws, options: config.options, hooks: config.hooks };
  for (const def of BUILTIN_TOOLS) {
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        inputSchema: def.inputShape,
        outputSchema: def.outputSchema,
        annotations: { title: def.title, ...def.annotations },
        _meta: { [FRIENDLY_NAME_META_KEY]: def.friendlyName },
      },
      (args: unknown) => invokeTool(def, ctx, args),
    );
  }
  return server;
}
