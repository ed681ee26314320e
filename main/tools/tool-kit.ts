// The shared shape of a built-in tool: its MCP definition, its documentation extras and its
// handler. workspace-tools.ts registers every ToolDefinition the same way.
import { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorType } from './errors';
import type { ConfineHooks, Workspace } from './confine';
import type { ToolsServerOptions } from './options';

export interface ToolContext {
  readonly ws: Workspace;
  readonly options: ToolsServerOptions;
  /** Test seam only (unit tests); the real server never sets it. */
  readonly hooks?: ConfineHooks;
}

export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string;
  readonly friendlyName: string;
  readonly title: string;
  readonly description: string;
  readonly inputShape: Shape;
  readonly outputSchema: z.ZodObject;
  readonly annotations: ToolAnnotations;
  readonly errorTypes: readonly ErrorType[];
  readonly securityNotes: readonly string[];
  /** The error type for a result too large to transmit (see MAX_RESULT_BYTES); default InternalError. */
  readonly resultTooLargeError?: ErrorType;
  /** Which argument names a path, so failures can report error_details.path_attempted. */
  readonly pathArgument?: string;
  run(ctx: ToolContext, args: z.output<z.ZodObject<Shape>>): Promise<Record<string, unknown>>;
}

export function defineTool<Shape extends z.ZodRawShape>(def: ToolDefinition<Shape>): ToolDefinition<Shape> {
  return def;
}

const ERROR_KEYS = ['error_type', 'error_message', 'error_details'] as const;

/**
 * Builds an output schema that admits both the success object and the failure object.
 * Why: the SDK's Client validates structuredContent against outputSchema even when
 * `isError: true` (client/index.js callTool, SDK 1.32), so a success-only schema would make every
 * structured failure look like a protocol error to SDK clients. The JSON Schema says precisely
 * which keys each branch requires (anyOf), and the zod check enforces the success branch.
 */
export function resultSchema(
  success: z.ZodRawShape,
  errorTypes: readonly ErrorType[],
  errorDetails: z.ZodRawShape = {},
): z.ZodObject {
  const required = Object.entries(success).filter(([, s]) => !(s as z.ZodType).safeParse(undefined).success).map(([k]) => k);
  const optionalSuccess = Object.fromEntries(Object.entries(success).map(([k, s]) => [k, (s as z.ZodType).optional()]));
  const schema = z
    .object({
      ...optionalSuccess,
      error_type: z.enum(errorTypes as [ErrorType, ...ErrorType[]]).optional().describe('Failure only: the kind of error.'),
      error_message: z.string().optional().describe('Failure only: what was expected and what was found.'),
      error_details: z.object(errorDetails).catchall(z.unknown()).optional().describe('Failure only: machine-readable context of the error.'),
    })
    .superRefine((value, ctx) => {
      const isFailure = value.error_type !== undefined;
      const keys = isFailure ? ERROR_KEYS : required;
      for (const key of keys) {
        if ((value as Record<string, unknown>)[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required` });
      }
    })
    .meta({ anyOf: [{ required }, { required: [...ERROR_KEYS] }] });
  return schema;
}
