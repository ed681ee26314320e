// What of a tool is pinned: everything a model reads or a client acts on (name, title,
// description, input and output schema, annotations), hashed as canonical JSON with SHA-256
// so key order or whitespace never counts as a change. `_meta` and `icons` are left out: they
// are display hints a server may vary (and they are not shown to the model).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson, sha256Hex } from '../policy/fingerprint';
import { showHidden } from './poisoning';

export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export function toolDefinition(tool: Tool): ToolDefinition {
  const def: ToolDefinition = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) def.title = tool.title;
  if (tool.description !== undefined) def.description = tool.description;
  if (tool.outputSchema !== undefined) def.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) def.annotations = tool.annotations;
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
