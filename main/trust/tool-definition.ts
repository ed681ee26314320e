// What of a tool is pinned: everything a model reads or a client acts on (name, title,
// description, input and output schema, annotations, the tool's `_meta`) and the instructions
// its server gave at initialize (or in `server/discover`, MCP 2026-07-28), hashed as canonical
// JSON with SHA-256 so key order or whitespace never counts as a change. `_meta` is pinned
// because clients act on it (`gatehouse/friendlyName` named tools until main/gateway/tool-surface.ts
// stopped honouring it from upstream) and some show it to the model; `instructions` go into
// the model's context beside the tools, so a changed line there is held like a changed
// description (docs/trust.md). `icons` are left out: a picture the model does not read.
// Absent fields are left out of the hash, so a tool without `_meta` from a server without
// instructions keeps the hash it was pinned with before they were pinned.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson, sha256Hex } from '../policy/fingerprint';
import { showHidden } from '../../common/visible-text';

export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  _meta?: unknown;
  /** The server's `instructions`, shared by all its tools. */
  instructions?: string;
}

export function toolDefinition(tool: Tool, instructions?: string): ToolDefinition {
  const def: ToolDefinition = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) def.title = tool.title;
  if (tool.description !== undefined) def.description = tool.description;
  if (tool.outputSchema !== undefined) def.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) def.annotations = tool.annotations;
  if (tool._meta !== undefined && Object.keys(tool._meta).length > 0) def._meta = tool._meta;
  if (instructions !== undefined && instructions !== '') def.instructions = instructions;
  return JSON.parse(canonicalJson(def)) as ToolDefinition;
}

export function definitionHash(def: ToolDefinition): string {
  return sha256Hex(canonicalJson(def));
}

/** A stable, line-per-field text of a definition, for a line diff a person can read. */
export function definitionText(def: ToolDefinition | undefined): string {
  if (!def) return '';
  // Hidden characters become \uXXXX escapes (still valid JSON): seen in the diff, unable to reorder it.
  return `${showHidden(JSON.stringify(JSON.parse(canonicalJson(def)), null, 2))}\n`;
}
