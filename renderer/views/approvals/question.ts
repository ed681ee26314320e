// Sampling and elicitation requests a person answers in the inbox (docs/gateway.md "Questions from servers"): what
// the card shows and the answer it sends, free of React. The host checks every answer again
// (main/approvals/questions.ts); this side only helps the person get it right first time.
import { isObject } from '../../../common/is-object';
import { MAX_SAMPLING_REPLY_CHARS } from '../../../common/host-api';
import { toArguments, type Field, type FormValue, type JsonSchema } from '../../lib/schema-form/model';
import type { PendingApproval } from '../../state/types';

export interface ConversationMessage {
  role: string;
  text: string;
}

export type QuestionView =
  | { type: 'elicitation-form'; message: string; schema: JsonSchema }
  | { type: 'elicitation-url'; message: string; url: string; elicitationId?: string; /** Only http(s) URLs become links. */ openable: boolean }
  | { type: 'sampling'; messages: ConversationMessage[]; systemPrompt?: string; maxTokens?: number; modelHints: string[]; temperature?: number };

/** What a sampling or elicitation request asks; undefined for a tool approval. */
export function questionView(r: Pick<PendingApproval, 'kind' | 'question'>): QuestionView | undefined {
  const q = r.question;
  if (!isObject(q)) return undefined;
  if (r.kind === 'elicitation') {
    const message = typeof q.message === 'string' ? q.message : '';
    if (q.mode === 'url' && typeof q.url === 'string') {
      return { type: 'elicitation-url', message, url: q.url, elicitationId: typeof q.elicitationId === 'string' ? q.elicitationId : undefined, openable: isHttpUrl(q.url) };
    }
    return { type: 'elicitation-form', message, schema: formSchema(isObject(q.requestedSchema) ? q.requestedSchema : {}) };
  }
  if (r.kind === 'sampling') {
    const messages = Array.isArray(q.messages) ? q.messages.filter(isObject).map((m) => ({ role: typeof m.role === 'string' ? m.role : '?', text: contentText(m.content) })) : [];
    const prefs = isObject(q.modelPreferences) ? q.modelPreferences : {};
    const hints = Array.isArray(prefs.hints) ? prefs.hints.flatMap((h) => (isObject(h) && typeof h.name === 'string' ? [h.name] : [])) : [];
    return {
      type: 'sampling',
      messages,
      systemPrompt: typeof q.systemPrompt === 'string' ? q.systemPrompt : undefined,
      maxTokens: typeof q.maxTokens === 'number' ? q.maxTokens : undefined,
      temperature: typeof q.temperature === 'number' ? q.temperature : undefined,
      modelHints: hints,
    };
  }
  return undefined;
}

export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/** One message's content as text: text as is, media and tool blocks as a short placeholder. */
export function contentText(content: unknown): string {
  if (Array.isArray(content)) return content.map(contentText).join('\n');
  if (!isObject(content)) return '';
  switch (content.type) {
    case 'text':
      return typeof content.text === 'string' ? content.text : '';
    case 'image':
    case 'audio':
      return `[${content.type}${typeof content.mimeType === 'string' ? ` ${content.mimeType}` : ''}]`;
    case 'tool_use':
      return `[tool call ${typeof content.name === 'string' ? content.name : ''}: ${JSON.stringify(content.input ?? {})}]`;
    case 'tool_result':
      return `[tool result] ${contentText(content.content)}`;
    default:
      return JSON.stringify(content);
  }
}

/**
 * The requested schema in the shape the schema form knows: the spec's titled single and
 * multi-select enums (`oneOf`/`anyOf` of `{const, title}`) become plain `enum`s.
 */
export function formSchema(schema: JsonSchema): JsonSchema {
  const props = isObject(schema.properties) ? schema.properties : {};
  const out: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(props)) {
    if (!isObject(p)) continue;
    const consts = constOptions(p);
    if (consts) {
      const { oneOf: _o, anyOf: _a, ...rest } = p;
      out[key] = { ...rest, enum: consts };
    } else if (p.type === 'array' && isObject(p.items)) {
      const items = constOptions(p.items);
      if (items) {
        const { oneOf: _o, anyOf: _a, ...rest } = p.items;
        out[key] = { ...p, items: { type: 'string', ...rest, enum: items } };
      } else out[key] = p;
    } else out[key] = p;
  }
  return { type: 'object', properties: out, ...(Array.isArray(schema.required) ? { required: schema.required } : {}) };
}

function constOptions(p: Record<string, unknown>): unknown[] | undefined {
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alts = p[key];
    if (Array.isArray(alts) && alts.length > 0 && alts.every((a) => isObject(a) && 'const' in a)) return alts.map((a) => (a as { const: unknown }).const);
  }
  return undefined;
}

/** The form's values as elicitation content, with the form's own validation messages. */
export function elicitationContent(field: Field, value: FormValue): { content: Record<string, unknown>; errors: Array<{ path: string; message: string }> } {
  const { args, errors } = toArguments(field, value);
  const content: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) content[k] = v;
  return { content, errors };
}

/** Why a sampling reply cannot be sent yet (empty, too long), or undefined. */
export function replyProblem(text: string): string | undefined {
  if (!text.trim()) return 'Write the reply first.';
  if (text.length > MAX_SAMPLING_REPLY_CHARS) return `The reply is ${text.length} characters; at most ${MAX_SAMPLING_REPLY_CHARS} can be sent.`;
  return undefined;
}

/** Ctrl+Enter (Cmd+Enter on macOS) sends. */
export function isSendKey(e: { key: string; ctrlKey: boolean; metaKey: boolean }): boolean {
  return e.key === 'Enter' && (e.ctrlKey || e.metaKey);
}

/** A question is answered from its card; the single-letter approval keys apply only to D (decline). */
export function questionKeyChoice(key: string): 'decline' | undefined {
  return key === 'd' ? 'decline' : undefined;
}
