// One field of an elicitation form on the terminal: how it is shown (title, what it takes, its
// default), and how a typed line becomes its value (an option by value, title or number; a
// number, a yes/no, a comma-separated list), checked with the broker's own validator.
import { isObject } from '../base/is-object';
import { allowedValues, validateElicitationContent } from './questions';
import { cut, safeJson, sanitize } from './terminal-text';

/** One field of an elicitation form: its title, description, what it takes, its default. */
export function renderField(key: string, p: Record<string, unknown>, required: boolean, n: number, of: number): string {
  const title = typeof p.title === 'string' && p.title !== key ? `${sanitize(p.title, true)} (${sanitize(key, true)})` : sanitize(key, true);
  const lines = [`  [${n}/${of}] ${cut(title)}${required ? ', required' : ''}`];
  if (typeof p.description === 'string' && p.description) lines.push(`        ${cut(sanitize(p.description, true))}`);
  const type = fieldType(p);
  const options = fieldOptions(type === 'array' && isObject(p.items) ? p.items : p);
  if (options) {
    const list = options.map((o, i) => `${i + 1}) ${o.title !== undefined ? `${o.title} [${o.shown}]` : o.shown}`).join('  ');
    lines.push(`        ${type === 'array' ? 'any of (comma-separated)' : 'one of'}: ${cut(sanitize(list, true))}`);
  } else if (type === 'boolean') lines.push('        yes or no');
  else if (type === 'number' || type === 'integer') {
    const range = [typeof p.minimum === 'number' ? `at least ${p.minimum}` : '', typeof p.maximum === 'number' ? `at most ${p.maximum}` : ''].filter(Boolean).join(', ');
    lines.push(`        ${type === 'integer' ? 'a whole number' : 'a number'}${range ? `, ${range}` : ''}`);
  } else if (type === 'array') lines.push('        a comma-separated list');
  else if (typeof p.format === 'string') lines.push(`        ${sanitize(p.format, true)}`);
  if (p.default !== undefined) lines.push(`        default ${cut(sanitize(safeJson(p.default), true))} (Enter keeps it)`);
  else if (!required) lines.push('        optional (Enter leaves it out)');
  return `${lines.join('\n')}\n`;
}

function fieldType(p: Record<string, unknown>): string | undefined {
  if (typeof p.type === 'string') return p.type;
  const allowed = allowedValues(p);
  return allowed ? typeof allowed[0] : undefined;
}

interface FieldOption {
  value: unknown;
  shown: string;
  title?: string;
}

/** The values a field (or an array field's items) admits, with their titles. */
function fieldOptions(p: Record<string, unknown>): FieldOption[] | undefined {
  const values = allowedValues(p);
  if (!values) return undefined;
  const alts = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  const names = Array.isArray(p.enumNames) ? p.enumNames : undefined;
  return values.map((value, i) => {
    const alt = Array.isArray(p.enum) ? undefined : alts?.[i];
    const t = isObject(alt) && typeof alt.title === 'string' ? alt.title : typeof names?.[i] === 'string' ? (names[i] as string) : undefined;
    const shown = typeof value === 'string' ? value : safeJson(value);
    return t !== undefined && t !== shown ? { value, shown, title: t } : { value, shown };
  });
}

/** The option a person means by `text`: its value, its title, or its number in the list. */
function pickOption(options: FieldOption[], text: string): unknown {
  const byValue = options.find((o) => o.shown === text);
  if (byValue) return byValue.value;
  const byTitle = options.filter((o) => (o.title ?? o.shown).toLowerCase() === text.toLowerCase());
  if (byTitle.length === 1) return byTitle[0]!.value;
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 1 && n <= options.length) return options[n - 1]!.value;
  }
  return undefined;
}

/**
 * A typed line as the field's value, checked with the broker's own validator
 * (validateElicitationContent): an empty line takes the default, leaves an optional field out,
 * or is refused for a required one.
 */
export function readField(key: string, p: Record<string, unknown>, required: boolean, line: string): { value: unknown } | { error: string } {
  const text = line.trim();
  let value: unknown;
  if (text === '') {
    if (p.default !== undefined) value = p.default;
    else if (required) return { error: `'${key}' is required` };
    else return { value: undefined };
  } else value = parseField(p, text);
  const error = validateElicitationContent({ type: 'object', properties: { [key]: p } }, { [key]: value });
  return error ? { error } : { value };
}

function parseField(p: Record<string, unknown>, text: string): unknown {
  const type = fieldType(p);
  if (type === 'array') {
    const options = isObject(p.items) ? fieldOptions(p.items) : undefined;
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => (options ? (pickOption(options, s) ?? s) : s));
  }
  const options = fieldOptions(p);
  if (options) {
    const picked = pickOption(options, text);
    if (picked !== undefined) return picked;
  }
  switch (type) {
    case 'number':
    case 'integer':
      return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : text;
    case 'boolean': {
      const t = text.toLowerCase();
      if (['y', 'yes', 'true', '1'].includes(t)) return true;
      if (['n', 'no', 'false', '0'].includes(t)) return false;
      return text;
    }
    default:
      return text;
  }
}
