// Shapes of the Resources and Prompts views, the HAR and curl exports of Traffic and the Audit
// view's outcome filter and export (docs/ui-layout.md "Resources and Prompts", "HAR and curl").
// MCP's own shapes (a resource, a prompt, their contents) are taken loose: the window shows what
// a server sent, and the gateway has already redacted it.
import { z } from 'zod';

export const ResourceItemSchema = z
  .object({ uri: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional(), size: z.number().optional() })
  .loose();
export const ResourceTemplateItemSchema = z
  .object({ uriTemplate: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() })
  .loose();

/** One part of a resources/read result: text, or base64 `blob`. */
export const ResourceContentSchema = z
  .object({ uri: z.string(), mimeType: z.string().optional(), text: z.string().optional(), blob: z.string().optional() })
  .loose();

export const PromptArgumentSchema = z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }).loose();
export const PromptItemSchema = z
  .object({ name: z.string(), title: z.string().optional(), description: z.string().optional(), arguments: z.array(PromptArgumentSchema).optional() })
  .loose();
export const PromptMessageSchema = z.object({ role: z.string(), content: z.unknown() }).loose();

/** A window's request through the gateway: the result, or the error it got, and its exchange. */
export const ResourceReadOutputSchema = z.object({
  result: z.object({ contents: z.array(ResourceContentSchema) }).loose().optional(),
  error: z.string().optional(),
  exchange: z.string(),
});
export const PromptGetOutputSchema = z.object({
  result: z.object({ description: z.string().optional(), messages: z.array(PromptMessageSchema) }).loose().optional(),
  error: z.string().optional(),
  exchange: z.string(),
});

/** The Audit view's outcome filter (main/audit/queries.ts CALL_GROUPS); `denied` includes the timeout's denials. */
export const CallGroupSchema = z.enum(['allowed', 'approved', 'denied', 'timeout_denied', 'error', 'ok', 'pending', 'cancelled']);

/** The streams of `gatehouse audit export --jsonl` (`--stderr`, `--decisions`; calls as `audit calls --json`). */
export const AuditStreamSchema = z.enum(['messages', 'decisions', 'stderr', 'calls']);
