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
  /**
   * One sentence saying what a successful call did, as specific as the read_file specification's
   * example ("Successfully read 65 characters from src/app/main.py using utf-8 encoding.").
   * Sent as the result's `_meta["gatehouse/explanation"]` and used as the legacy envelope's
   * `explanation`. Never carries content, only names and counts.
   */
  explain(args: z.output<z.ZodObject<Shape>>, result: Record<string, any>): string;
}

/** _meta key of a successful result's one-sentence explanation (see ToolDefinition.explain). */
export const EXPLANATION_META_KEY = 'gatehouse/explanation';

/** "1 file", "2 files". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function defineTool<Shape extends z.ZodRawShape>(def: ToolDefinition<Shape>): ToolDefinition<Shape> {
  return def;
}

const ERROR_KEYS = ['error_type', 'error_message', 'error_details'] as const;

// Output schemas are written for the strictest common client (MCP Inspector CLI `--strict`,
// which flags what a single-`type` dialect such as Gemini's OpenAPI subset cannot take):
//  - never a `type` array: zod turns `.nullable()` into `type: [T, "null"]` for draft-7, but keeps
//    a union whose `null` branch is described as `anyOf` with one `type` per branch;
//  - never a keyword-less schema (`{}`): a free-form map says `additionalProperties: true`.

/** `schema` or null, as `anyOf` branches of one type each; `meaning` says what null stands for. */
export function orNull<T extends z.ZodType>(schema: T, meaning: string) {
  return z.union([schema, z.null().describe(meaning)]);
}

/** An object with the given keys and any others (error details, free-form context). */
export function openObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape).catchall(z.unknown()).meta({ additionalProperties: true });
}

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
      error_details: openObject(errorDetails).optional().describe('Failure only: machine-readable context of the error.'),
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
