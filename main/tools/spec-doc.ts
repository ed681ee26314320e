// Generates resources/workspace-tools/MCP_TOOL_SPECIFICATION.md from what a server advertises in tools/list.
// Output is deterministic (no timestamps, tools in list order, JSON with stable indentation) so
// a committed copy can be compared byte for byte with a fresh generation.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export interface ToolSpecInput {
  serverId: string;
  serverName: string;
  tools: Tool[];
  /** Friendly (natural) name; default `_meta["gatehouse/friendlyName"]`, else the tool's name. */
  friendlyName?: (tool: Tool) => string;
  /** Canonical name; default `<serverId>.<tool name>`. */
  canonicalName?: (tool: Tool) => string;
  /** Extra security considerations per tool name (as advertised). */
  securityNotes?: Readonly<Record<string, readonly string[]>>;
  /** Error types per tool name; default: the `error_type` enum of the tool's outputSchema. */
  errorTypes?: Readonly<Record<string, readonly string[]>>;
}

type JsonSchema = Record<string, any>;

const ERROR_KEYS = new Set(['error_type', 'error_message', 'error_details']);

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

function code(text: string): string {
  const ticks = text.includes('`') ? '``' : '`';
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

export function schemaType(s: JsonSchema | undefined): string {
  if (!s || typeof s !== 'object') return 'any';
  if (Array.isArray(s.enum)) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.anyOf) && !s.type) return s.anyOf.map((x: JsonSchema) => schemaType(x)).join(' | ');
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const one = (t: string): string => {
    if (t === 'array') return `array<${schemaType(s.items)}>`;
    if (t === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object' && Object.keys(s.additionalProperties).length && !s.properties) {
      return `object<string, ${schemaType(s.additionalProperties)}>`;
    }
    return t;
  };
  return types.length ? types.map(one).join(' | ') : 'any';
}

function example(s: JsonSchema | undefined): string {
  if (s && Array.isArray(s.examples) && s.examples.length) return code(JSON.stringify(s.examples[0]));
  if (s && s.default !== undefined) return code(JSON.stringify(s.default));
  return '';
}

function constraints(s: JsonSchema): string {
  const parts: string[] = [];
  if (typeof s.minimum === 'number' && s.minimum > -Number.MAX_SAFE_INTEGER) parts.push(`≥ ${s.minimum}`);
  if (typeof s.maximum === 'number' && s.maximum < Number.MAX_SAFE_INTEGER) parts.push(`≤ ${s.maximum}`);
  if (typeof s.minLength === 'number' && s.minLength > 0) parts.push(`min length ${s.minLength}`);
  if (typeof s.minItems === 'number' && s.minItems > 0) parts.push(`min ${s.minItems} items`);
  if (typeof s.maxItems === 'number') parts.push(`max ${s.maxItems} items`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function json(value: unknown): string {
  return ['```json', JSON.stringify(value, null, 2), '```'].join('\n');
}

function defaultFriendly(tool: Tool): string {
  const v = tool._meta?.['gatehouse/friendlyName'];
  return typeof v === 'string' ? v : tool.name;
}

function outputBranches(schema: JsonSchema): { success: string[] | null; failure: boolean } {
  const anyOf: JsonSchema[] = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const failure = anyOf.some((b) => Array.isArray(b.required) && b.required.includes('error_type'));
  const ok = anyOf.find((b) => Array.isArray(b.required) && !b.required.includes('error_type'));
  return { success: ok ? ok.required : Array.isArray(schema.required) ? schema.required : null, failure };
}

function annotationNotes(tool: Tool): string[] {
  const a = tool.annotations ?? {};
  const notes: string[] = [];
  if (a.readOnlyHint === true) notes.push('Read-only (`readOnlyHint: true`): does not modify its environment.');
  else notes.push(`May modify its environment (\`readOnlyHint: ${a.readOnlyHint ?? 'unset'}\`).`);
  if (a.readOnlyHint !== true) {
    notes.push(a.destructiveHint === false
      ? 'Additive only (`destructiveHint: false`): does not delete or overwrite.'
      : `May delete or overwrite data (\`destructiveHint: ${a.destructiveHint ?? 'unset'}\`); consider requiring approval.`);
  }
  notes.push(a.openWorldHint === false
    ? 'Closed world (`openWorldHint: false`): interacts only with the workspace / the server\'s own domain.'
    : `Open world (\`openWorldHint: ${a.openWorldHint ?? 'unset'}\`): may interact with external systems.`);
  return notes;
}

function idempotency(tool: Tool): string {
  const a = tool.annotations ?? {};
  if (a.readOnlyHint === true) return 'Idempotent: read-only, so repeating a call has no additional effect (`readOnlyHint: true`' + (a.idempotentHint === true ? ', `idempotentHint: true`).' : ').');
  if (a.idempotentHint === true) return 'Idempotent (`idempotentHint: true`): repeating a call with the same arguments has no additional effect.';
  return `Not idempotent (\`idempotentHint: ${a.idempotentHint ?? 'unset'}\`): repeating a call may have additional effects.`;
}

function toolSection(tool: Tool, input: ToolSpecInput): string {
  const friendly = (input.friendlyName ?? defaultFriendly)(tool);
  const canonical = (input.canonicalName ?? ((t: Tool) => `${input.serverId}.${t.name}`))(tool);
  const out: string[] = [];
  out.push(`## ${code(friendly)} (${code(canonical)})`, '');
  if (tool.title ?? tool.annotations?.title) out.push(`**${tool.title ?? tool.annotations?.title}**`, '');
  out.push('### Invocation names', '');
  out.push(`- friendly: ${code(friendly)}`);
  out.push(`- canonical: ${code(canonical)} (advertised on the canonical surface as ${code(canonical.replace(/\./g, '_'))})`);
  if (tool.name !== friendly && tool.name !== canonical) out.push(`- as the server advertises it: ${code(tool.name)}`);
  out.push('', '### Purpose', '', tool.description ?? '(no description)', '');

  const inSchema = tool.inputSchema as JsonSchema;
  const props: Record<string, JsonSchema> = inSchema.properties ?? {};
  const required = new Set<string>(inSchema.required ?? []);
  out.push('### Parameters', '');
  if (Object.keys(props).length === 0) out.push('None.');
  else {
    out.push('| name | type | required | description | example |', '|---|---|---|---|---|');
    for (const [name, s] of Object.entries(props)) {
      out.push(`| ${code(name)} | ${cell(schemaType(s))}${cell(constraints(s))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(s.description ?? '')} | ${cell(example(s))} |`);
    }
  }
  out.push('', '### Arguments JSON Schema', '', json(inSchema), '');

  out.push('### Output', '');
  const outSchema = tool.outputSchema as JsonSchema | undefined;
  if (!outSchema) {
    out.push('No outputSchema: results are unstructured content.', '');
  } else {
    const { success, failure } = outputBranches(outSchema);
    const okRequired = new Set(success ?? []);
    const fields = Object.entries((outSchema.properties ?? {}) as Record<string, JsonSchema>).filter(([k]) => !failure || !ERROR_KEYS.has(k));
    out.push('On success, `structuredContent` (and the same object as JSON text content):', '');
    out.push('| field | type | always present | description |', '|---|---|---|---|');
    for (const [name, s] of fields) out.push(`| ${code(name)} | ${cell(schemaType(s))} | ${okRequired.has(name) ? 'yes' : 'no'} | ${cell(s.description ?? '')} |`);
    out.push('');
    if (failure) {
      out.push('On failure, `isError: true` with `structuredContent` `{error_type, error_message, error_details}` (and the same as JSON text content).');
      out.push('The outputSchema admits both shapes (`anyOf`), because SDK clients validate structuredContent of error results too.', '');
    }
    out.push('#### Output JSON Schema', '', json(outSchema), '');
  }

  out.push('### Error types', '');
  const declared = input.errorTypes?.[tool.name] ?? (outSchema?.properties?.error_type?.enum as string[] | undefined);
  if (declared?.length) for (const t of declared) out.push(`- ${code(t)}`);
  else out.push('Not declared by the server.');
  out.push('', '### Idempotency', '', idempotency(tool), '');

  out.push('### Security considerations', '');
  for (const n of annotationNotes(tool)) out.push(`- ${n}`);
  for (const n of input.securityNotes?.[tool.name] ?? []) out.push(`- ${n}`);
  out.push('');
  return out.join('\n');
}

export function generateToolSpecMarkdown(input: ToolSpecInput): string {
  const friendly = input.friendlyName ?? defaultFriendly;
  const canonical = input.canonicalName ?? ((t: Tool) => `${input.serverId}.${t.name}`);
  const out: string[] = [];
  out.push(`# MCP tool specification: ${input.serverName}`, '');
  out.push(`Server id: ${code(input.serverId)}. Generated from the server's \`tools/list\`; do not edit by hand.`, '');
  out.push('| friendly name | canonical name | title | read-only | idempotent |', '|---|---|---|---|---|');
  for (const t of input.tools) {
    const a = t.annotations ?? {};
    out.push(`| ${code(friendly(t))} | ${code(canonical(t))} | ${cell(t.title ?? a.title ?? '')} | ${a.readOnlyHint === true ? 'yes' : 'no'} | ${a.readOnlyHint === true || a.idempotentHint === true ? 'yes' : 'no'} |`);
  }
  out.push('');
  for (const t of input.tools) out.push(toolSection(t, input));
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
