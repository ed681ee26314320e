// Questions a person answers in place of an agent's client (docs/gateway.md "Questions from servers"): a server's
// `elicitation/create` (MCP 2025-11-25 client/elicitation, form and URL mode) or
// `sampling/createMessage` (client/sampling) that no connected client can answer. Pure
// functions: the checks an answer must pass and the protocol result it becomes. The broker
// (ApprovalBroker.ask) and the host API dispatcher both use them, so a window learns why an
// answer was refused before anything is settled.

import type { z } from 'zod';
import type { ApprovalQuestionSchema, ElicitationFormQuestionSchema, ElicitationUrlQuestionSchema, SamplingQuestionSchema } from '../../common/host-api-shapes';
import { isObject } from '../base/is-object';

export type QuestionKind = 'sampling' | 'elicitation';

// The question shapes are the host API's (common/host-api-shapes.ts): a window shows the same
// params the server sent (redacted).
/** `elicitation/create` params in form mode (mode absent or 'form'). */
export type ElicitationFormQuestion = z.infer<typeof ElicitationFormQuestionSchema>;
/** `elicitation/create` params in URL mode: the person opens the URL; the answer carries no content. */
export type ElicitationUrlQuestion = z.infer<typeof ElicitationUrlQuestionSchema>;
export type ElicitationQuestion = ElicitationFormQuestion | ElicitationUrlQuestion;
/** `sampling/createMessage` params, as the server sent them (redacted). */
export type SamplingQuestion = z.infer<typeof SamplingQuestionSchema>;
export type Question = z.infer<typeof ApprovalQuestionSchema>;

/** How a person answers a question; `allow_once` / `deny` are accepted as accept / decline. */
export type QuestionChoice = 'accept' | 'decline' | 'cancel';

/** The `model` of a reply a person wrote. */
export const HUMAN_MODEL = 'human (Gatehouse)';
/** Largest sampling reply a person can send, in UTF-8 bytes. */
export const MAX_SAMPLING_REPLY_BYTES = 100_000;
/** MCP 2025-11-25 client/sampling, Error Handling: "User rejected sampling request: -1". */
export const SAMPLING_REJECTED_CODE = -1;
export const SAMPLING_REJECTED_MESSAGE = 'User rejected sampling request';

export function questionChoice(choice: unknown): QuestionChoice | undefined {
  switch (choice) {
    case 'accept':
    case 'allow_once':
      return 'accept';
    case 'decline':
    case 'deny':
      return 'decline';
    case 'cancel':
      return 'cancel';
    default:
      return undefined;
  }
}

export function isUrlElicitation(q: unknown): q is ElicitationUrlQuestion {
  return isObject(q) && q.mode === 'url';
}

export type AnswerCheck = { ok: true; result: Record<string, unknown> } | { ok: false; error: string };

/**
 * An "accept" answer's content checked against the question, and the result the server gets:
 * elicitation → `{action: 'accept', content?}`; sampling → a CreateMessageResult with the
 * person's text.
 */
export function acceptAnswer(kind: QuestionKind, question: unknown, content: unknown): AnswerCheck {
  if (kind === 'sampling') {
    if (!isObject(content) || typeof content.text !== 'string') return { ok: false, error: 'a sampling reply needs content {text: string}' };
    const extra = Object.keys(content).filter((k) => k !== 'text');
    if (extra.length) return { ok: false, error: `a sampling reply takes only {text}, not ${extra.join(', ')}` };
    const text = content.text;
    if (!text.trim()) return { ok: false, error: 'the reply is empty' };
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_SAMPLING_REPLY_BYTES) return { ok: false, error: `the reply is ${bytes} bytes; at most ${MAX_SAMPLING_REPLY_BYTES} are allowed` };
    return { ok: true, result: { role: 'assistant', content: { type: 'text', text }, model: HUMAN_MODEL, stopReason: 'endTurn' } };
  }
  if (isUrlElicitation(question)) {
    if (content !== undefined && !(isObject(content) && Object.keys(content).length === 0)) {
      return { ok: false, error: 'a URL elicitation is accepted or declined; it takes no content' };
    }
    return { ok: true, result: { action: 'accept' } };
  }
  const schema = isObject(question) ? question.requestedSchema : undefined;
  const error = validateElicitationContent(schema, content ?? {});
  if (error) return { ok: false, error };
  return { ok: true, result: { action: 'accept', content: content ?? {} } };
}

/**
 * Checks elicitation content against a requested schema (a flat object of primitive
 * properties, per the spec): every required field present, no field the schema does not
 * name, each value of its type (string, number, integer, boolean, array of strings), within
 * its enum / bounds / length, and the spec's string formats (email, uri, date, date-time).
 * Returns why it does not fit, or undefined.
 */
export function validateElicitationContent(schema: unknown, content: unknown): string | undefined {
  if (!isObject(content)) return 'content must be an object of field values';
  const s = isObject(schema) ? schema : {};
  const props = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
  for (const key of required) if (content[key] === undefined || content[key] === null) return `'${key}' is required`;
  for (const [key, value] of Object.entries(content)) {
    const p = props[key];
    if (!isObject(p)) return `'${key}' is not a field of the requested schema`;
    if (value === undefined) continue;
    const err = checkValue(p, value);
    if (err) return `'${key}' ${err}`;
  }
  return undefined;
}

/** The values a property admits: `enum`, or the `const`s of a titled `oneOf`/`anyOf`. */
export function allowedValues(p: Record<string, unknown>): unknown[] | undefined {
  if (Array.isArray(p.enum)) return p.enum;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alts = p[key];
    if (Array.isArray(alts) && alts.length > 0 && alts.every((a) => isObject(a) && 'const' in a)) return alts.map((a) => (a as { const: unknown }).const);
  }
  return undefined;
}

function checkValue(p: Record<string, unknown>, v: unknown): string | undefined {
  const allowed = allowedValues(p);
  const type = typeof p.type === 'string' ? p.type : allowed ? typeof allowed[0] : undefined;
  switch (type) {
    case 'string': {
      if (typeof v !== 'string') return `must be a string, found ${kindOf(v)}`;
      if (allowed && !allowed.includes(v)) return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;
      if (typeof p.minLength === 'number' && v.length < p.minLength) return `must have at least ${p.minLength} characters`;
      if (typeof p.maxLength === 'number' && v.length > p.maxLength) return `must have at most ${p.maxLength} characters`;
      return checkFormat(p.format, v);
    }
    case 'number':
    case 'integer': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a number, found ${kindOf(v)}`;
      if (type === 'integer' && !Number.isInteger(v)) return 'must be an integer';
      if (allowed && !allowed.includes(v)) return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;
      if (typeof p.minimum === 'number' && v < p.minimum) return `must be at least ${p.minimum}`;
      if (typeof p.maximum === 'number' && v > p.maximum) return `must be at most ${p.maximum}`;
      return undefined;
    }
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `must be true or false, found ${kindOf(v)}`;
    case 'array': {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return 'must be a list of strings';
      const items = isObject(p.items) ? allowedValues(p.items) : undefined;
      const bad = items ? v.find((x) => !items.includes(x)) : undefined;
      if (bad !== undefined) return `has ${JSON.stringify(bad)}, which is not one of ${items!.map((a) => JSON.stringify(a)).join(', ')}`;
      if (typeof p.minItems === 'number' && v.length < p.minItems) return `needs at least ${p.minItems} item(s)`;
      if (typeof p.maxItems === 'number' && v.length > p.maxItems) return `takes at most ${p.maxItems} item(s)`;
      return undefined;
    }
    default:
      // A type the spec does not define for elicitation: any primitive value.
      return ['string', 'number', 'boolean'].includes(typeof v) ? undefined : `must be a string, number or boolean, found ${kindOf(v)}`;
  }
}

function checkFormat(format: unknown, v: string): string | undefined {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? undefined : 'must be an email address';
    case 'uri':
      try {
        new URL(v);
        return undefined;
      } catch {
        return 'must be a URI';
      }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : 'must be a date (YYYY-MM-DD)';
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : 'must be a date and time (ISO 8601)';
    default:
      return undefined;
  }
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v;
}

