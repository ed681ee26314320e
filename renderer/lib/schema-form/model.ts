// The schema form's model, free of React: JSON Schema → fields → form values → JSON arguments,
// with validation messages that say what was expected and what was found.
//
// Scope: strings, numbers/integers with bounds, booleans, enums, arrays of scalars
// or objects, nested objects, required markers, descriptions, defaults. Anything else (oneOf,
// tuple arrays, additionalProperties maps, …) becomes a raw JSON field rather than a guess.
// Local `$ref`s (`#/$defs/…`, `#/definitions/…`) are followed, with a depth cap for cycles.

import { isObject } from '../../../common/is-object';

export type JsonSchema = Record<string, unknown>;

interface Base {
  /** Property name; '' for the root. */
  key: string;
  label: string;
  required: boolean;
  description?: string;
  default?: unknown;
  /** The schema admits null as well (`type: ["string","null"]`, `anyOf [X, {type:null}]`). */
  nullable?: boolean;
}

export interface StringField extends Base {
  kind: 'string';
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  /** Render a textarea: long text, patches, code. */
  multiline: boolean;
}

export interface NumberField extends Base {
  kind: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export interface BooleanField extends Base {
  kind: 'boolean';
}

export interface EnumField extends Base {
  kind: 'enum';
  options: unknown[];
}

export interface ObjectField extends Base {
  kind: 'object';
  fields: Field[];
}

export interface ArrayField extends Base {
  kind: 'array';
  item: Field;
  minItems?: number;
  maxItems?: number;
}

export interface JsonField extends Base {
  kind: 'json';
}

export type Field = StringField | NumberField | BooleanField | EnumField | ObjectField | ArrayField | JsonField;

/**
 * Form values, shaped like the fields: numbers are kept as the text typed (so `1.` or `-` can
 * be typed on the way to a number), enums as the index of the option (-1 = unset), booleans
 * as null when an optional one is left unset, raw JSON as its text.
 */
export type FormValue = string | boolean | null | number | FormValue[] | { [key: string]: FormValue };

export interface FieldError {
  /** `a.b[0].c`; '' for the root. */
  path: string;
  message: string;
}

const MAX_REF_DEPTH = 8;
const MULTILINE_NAMES = /^(patch|diff|content|body|text|script|code|prompt|query|sql|message)$/i;

// ---- schema → fields ---------------------------------------------------------------------

export function fieldsFromSchema(schema: JsonSchema): Field {
  return build(schema, { key: '', required: true, root: schema, depth: 0 });
}

interface Ctx {
  key: string;
  required: boolean;
  root: JsonSchema;
  depth: number;
}

function resolveRef(schema: JsonSchema, root: JsonSchema, depth: number): JsonSchema | null {
  let s = schema;
  let d = depth;
  while (typeof s.$ref === 'string') {
    if (d++ > MAX_REF_DEPTH) return null;
    const ref = s.$ref;
    if (!ref.startsWith('#')) return null;
    let target: unknown = root;
    for (const part of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'));
      target = isObject(target) ? target[key] : undefined;
    }
    if (!isObject(target)) return null;
    const { $ref: _ref, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s;
}

/** Unwraps `anyOf/oneOf: [X, {type: "null"}]` and `type: [T, "null"]` into X + nullable. */
function unwrapNullable(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.length === 2) {
      const nonNull = alts.filter((a) => !(isObject(a) && a.type === 'null'));
      if (nonNull.length === 1 && isObject(nonNull[0])) {
        const { [key]: _alts, ...rest } = schema;
        return { schema: { ...rest, ...nonNull[0] }, nullable: true };
      }
    }
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    if (types.length === 1) return { schema: { ...schema, type: types[0] }, nullable: types.length !== schema.type.length };
  }
  return { schema, nullable: false };
}

const ACRONYMS = new Set(['id', 'url', 'uri', 'http', 'json', 'api', 'cwd', 'ms', 'ttl', 'sql', 'html', 'css', 'io']);

export function humanize(key: string): string {
  if (!key) return '';
  const words = key.replace(/[_-]+/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').trim().split(/\s+/);
  return words
    .map((w, i) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w.toLowerCase()))
    .join(' ');
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function build(raw: JsonSchema, ctx: Ctx): Field {
  const resolved = resolveRef(raw, ctx.root, ctx.depth);
  const label = humanize(ctx.key);
  if (!resolved) return { kind: 'json', key: ctx.key, label, required: ctx.required, description: 'Schema reference not followed: edit as JSON.' };
  const { schema, nullable } = unwrapNullable(resolved);
  const base: Base = {
    key: ctx.key,
    label: typeof schema.title === 'string' && ctx.key ? schema.title : label,
    required: ctx.required,
    description: typeof schema.description === 'string' ? schema.description : undefined,
    default: schema.default,
    nullable: nullable || undefined,
  };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { ...base, kind: 'enum', options: schema.enum };
  if ('const' in schema) return { ...base, kind: 'enum', options: [schema.const] };

  const type = schema.type ?? (isObject(schema.properties) ? 'object' : undefined);
  switch (type) {
    case 'string':
      return {
        ...base,
        kind: 'string',
        minLength: num(schema.minLength),
        maxLength: num(schema.maxLength),
        pattern: typeof schema.pattern === 'string' ? schema.pattern : undefined,
        format: typeof schema.format === 'string' ? schema.format : undefined,
        multiline: MULTILINE_NAMES.test(ctx.key) || (num(schema.maxLength) ?? 0) > 200,
      };
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: type === 'integer' ? 'integer' : 'number',
        minimum: num(schema.minimum),
        maximum: num(schema.maximum),
        exclusiveMinimum: num(schema.exclusiveMinimum),
        exclusiveMaximum: num(schema.exclusiveMaximum),
      };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'object': {
      const props = isObject(schema.properties) ? schema.properties : {};
      const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
      // A free-form map (no properties, only additionalProperties) has no fields to show.
      if (Object.keys(props).length === 0 && ctx.depth > 0) return { ...base, kind: 'json' };
      const fields = Object.entries(props).map(([key, s]) =>
        isObject(s) ? build(s, { key, required: required.has(key), root: ctx.root, depth: ctx.depth + 1 }) : ({ kind: 'json', key, label: humanize(key), required: required.has(key) } as JsonField),
      );
      return { ...base, kind: 'object', fields };
    }
    case 'array': {
      if (!isObject(schema.items)) return { ...base, kind: 'json' };
      const item = build(schema.items, { key: '', required: true, root: ctx.root, depth: ctx.depth + 1 });
      if (item.kind === 'array' || item.kind === 'json') return { ...base, kind: 'json' };
      return { ...base, kind: 'array', item, minItems: num(schema.minItems), maxItems: num(schema.maxItems) };
    }
    default:
      return { ...base, kind: 'json' };
  }
}

// ---- initial values and JSON → form ------------------------------------------------------

export function initialValue(field: Field): FormValue {
  if (field.default !== undefined) return valueFromJson(field, field.default);
  return emptyValue(field);
}

export function emptyValue(field: Field): FormValue {
  switch (field.kind) {
    case 'string':
    case 'number':
    case 'integer':
    case 'json':
      return '';
    case 'boolean':
      return field.required ? false : null;
    case 'enum':
      return field.required && field.options.length === 1 ? 0 : -1;
    case 'object':
      return Object.fromEntries(field.fields.map((f) => [f.key, initialValue(f)]));
    case 'array':
      return [];
  }
}

/** Loads a JSON value into form values (defaults, and switching back from the raw editor). */
export function valueFromJson(field: Field, json: unknown): FormValue {
  switch (field.kind) {
    case 'string':
      return typeof json === 'string' ? json : json === undefined || json === null ? '' : String(json);
    case 'number':
    case 'integer':
      return typeof json === 'number' ? String(json) : typeof json === 'string' ? json : '';
    case 'boolean':
      return typeof json === 'boolean' ? json : field.required ? false : null;
    case 'enum': {
      const i = field.options.findIndex((o) => JSON.stringify(o) === JSON.stringify(json));
      return i;
    }
    case 'object': {
      const src = isObject(json) ? json : {};
      return Object.fromEntries(field.fields.map((f) => [f.key, src[f.key] === undefined ? initialValue(f) : valueFromJson(f, src[f.key])]));
    }
    case 'array':
      return Array.isArray(json) ? json.map((v) => valueFromJson(field.item, v)) : [];
    case 'json':
      return json === undefined ? '' : JSON.stringify(json, null, 2);
  }
}

// ---- form → JSON, with validation -------------------------------------------------------

export interface ToJsonResult {
  value: unknown;
  errors: FieldError[];
}

export function toJson(field: Field, value: FormValue): ToJsonResult {
  const errors: FieldError[] = [];
  const out = convert(field, value, '', errors);
  return { value: out, errors };
}

/** The arguments object for tools/call: the root converted, `{}` when everything is empty. */
export function toArguments(field: Field, value: FormValue): { args: Record<string, unknown>; errors: FieldError[] } {
  const { value: v, errors } = toJson(field, value);
  return { args: isObject(v) ? v : {}, errors };
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

function show(v: string): string {
  return v.length > 40 ? `"${v.slice(0, 37)}…"` : `"${v}"`;
}

function convert(field: Field, value: FormValue, path: string, errors: FieldError[]): unknown {
  const fail = (message: string): undefined => {
    errors.push({ path, message });
    return undefined;
  };
  switch (field.kind) {
    case 'string': {
      const s = typeof value === 'string' ? value : '';
      if (s === '') return field.required ? fail('Required') : undefined;
      if (field.minLength !== undefined && s.length < field.minLength) return fail(`Expected at least ${field.minLength} characters, found ${s.length}`);
      if (field.maxLength !== undefined && s.length > field.maxLength) return fail(`Expected at most ${field.maxLength} characters, found ${s.length}`);
      if (field.pattern !== undefined) {
        let re: RegExp | null = null;
        try {
          re = new RegExp(field.pattern, 'u');
        } catch {}
        if (re && !re.test(s)) return fail(`Expected text matching ${field.pattern}`);
      }
      return s;
    }
    case 'number':
    case 'integer': {
      const s = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
      if (s === '') return field.required ? fail('Required') : undefined;
      const n = Number(s);
      if (!Number.isFinite(n)) return fail(`Expected a number, found ${show(s)}`);
      if (field.kind === 'integer' && !Number.isInteger(n)) return fail(`Expected a whole number, found ${s}`);
      if (field.minimum !== undefined && n < field.minimum) return fail(`Expected at least ${field.minimum}, found ${n}`);
      if (field.maximum !== undefined && n > field.maximum) return fail(`Expected at most ${field.maximum}, found ${n}`);
      if (field.exclusiveMinimum !== undefined && n <= field.exclusiveMinimum) return fail(`Expected more than ${field.exclusiveMinimum}, found ${n}`);
      if (field.exclusiveMaximum !== undefined && n >= field.exclusiveMaximum) return fail(`Expected less than ${field.exclusiveMaximum}, found ${n}`);
      return n;
    }
    case 'boolean':
      if (value === null || value === undefined) return field.required ? false : undefined;
      return Boolean(value);
    case 'enum': {
      const i = typeof value === 'number' ? value : -1;
      if (i < 0 || i >= field.options.length) return field.required ? fail(`Required: choose one of ${field.options.map((o) => JSON.stringify(o)).join(', ')}`) : undefined;
      return field.options[i];
    }
    case 'object': {
      const src = isObject(value) ? (value as Record<string, FormValue>) : {};
      // An optional object the user never touched is left out, required children and all:
      // asking for `options.mode` only makes sense once someone fills in `options`.
      if (!field.required && field.fields.every((f) => sameValue(src[f.key] ?? initialValue(f), initialValue(f)))) return undefined;
      const out: Record<string, unknown> = {};
      for (const f of field.fields) {
        const v = convert(f, src[f.key] ?? emptyValue(f), join(path, f.key), errors);
        if (v !== undefined) out[f.key] = v;
      }
      return out;
    }
    case 'array': {
      const items = Array.isArray(value) ? value : [];
      if (items.length === 0 && !field.required) return undefined;
      const out: unknown[] = [];
      items.forEach((item, i) => {
        const v = convert({ ...field.item, required: true }, item, join(path, i), errors);
        if (v !== undefined) out.push(v);
      });
      if (field.minItems !== undefined && items.length < field.minItems) errors.push({ path, message: `Expected at least ${field.minItems} item${field.minItems === 1 ? '' : 's'}, found ${items.length}` });
      if (field.maxItems !== undefined && items.length > field.maxItems) errors.push({ path, message: `Expected at most ${field.maxItems} items, found ${items.length}` });
      return out;
    }
    case 'json': {
      const s = typeof value === 'string' ? value.trim() : '';
      if (s === '') return field.required ? fail('Required') : undefined;
      try {
        return JSON.parse(s);
      } catch (e) {
        return fail(`Expected JSON: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
}

function sameValue(a: FormValue, b: FormValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Errors by path, for showing each under its input. */
export function errorsByPath(errors: FieldError[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const e of errors) if (!m.has(e.path)) m.set(e.path, e.message);
  return m;
}

/** A short label for an enum option. */
export function optionLabel(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Updates the value at a path (`['a', 0, 'b']`) immutably. */
export function setIn(value: FormValue, path: Array<string | number>, next: FormValue): FormValue {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (typeof head === 'number') {
    const arr = Array.isArray(value) ? value.slice() : [];
    arr[head] = setIn(arr[head] ?? null, rest, next);
    return arr;
  }
  const obj = isObject(value) ? { ...(value as Record<string, FormValue>) } : {};
  obj[head] = setIn(obj[head] ?? null, rest, next);
  return obj;
}
