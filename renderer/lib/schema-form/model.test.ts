import { describe, expect, it } from 'vitest';
import { errorsByPath, fieldsFromSchema, humanize, initialValue, setIn, toArguments, toJson, valueFromJson, type ObjectField } from './model';

const writeFile = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Relative to the workspace' },
    content: { type: 'string' },
    mode: { type: 'string', enum: ['overwrite', 'append'], default: 'overwrite' },
    create_dirs: { type: 'boolean' },
    max_bytes: { type: 'integer', minimum: 1, maximum: 1_048_576 },
    ratio: { type: 'number', exclusiveMinimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['path', 'content'],
};

describe('fieldsFromSchema', () => {
  it('maps each property to a field with its kind, required marker, help text and bounds', () => {
    const root = fieldsFromSchema(writeFile) as ObjectField;
    expect(root.kind).toBe('object');
    const byKey = Object.fromEntries(root.fields.map((f) => [f.key, f]));
    expect(byKey.path).toMatchObject({ kind: 'string', required: true, label: 'Path', description: 'Relative to the workspace', multiline: false });
    expect(byKey.content).toMatchObject({ kind: 'string', required: true, multiline: true });
    expect(byKey.mode).toMatchObject({ kind: 'enum', options: ['overwrite', 'append'], default: 'overwrite', required: false });
    expect(byKey.create_dirs).toMatchObject({ kind: 'boolean', label: 'Create dirs', required: false });
    expect(byKey.max_bytes).toMatchObject({ kind: 'integer', minimum: 1, maximum: 1_048_576 });
    expect(byKey.ratio).toMatchObject({ kind: 'number', exclusiveMinimum: 0 });
    expect(byKey.tags).toMatchObject({ kind: 'array', item: { kind: 'string' } });
  });

  it('follows local $refs, unwraps nullable unions and falls back to raw JSON for the rest', () => {
    const root = fieldsFromSchema({
      type: 'object',
      $defs: { Header: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } }, required: ['name'] } },
      properties: {
        headers: { type: 'array', items: { $ref: '#/$defs/Header' } },
        timeout: { anyOf: [{ type: 'number' }, { type: 'null' }] },
        body: { oneOf: [{ type: 'string' }, { type: 'object' }] },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        loop: { $ref: '#/$defs/Missing' },
      },
    }) as ObjectField;
    const byKey = Object.fromEntries(root.fields.map((f) => [f.key, f]));
    expect(byKey.headers).toMatchObject({ kind: 'array', item: { kind: 'object', fields: [{ key: 'name', required: true }, { key: 'value', required: false }] } });
    expect(byKey.timeout).toMatchObject({ kind: 'number', nullable: true });
    expect(byKey.body?.kind).toBe('json');
    expect(byKey.env?.kind).toBe('json');
    expect(byKey.loop?.kind).toBe('json');
  });

  it('survives a self-referencing schema', () => {
    const tree = { $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } } } }, $ref: '#/$defs/Node' };
    expect(() => fieldsFromSchema(tree)).not.toThrow();
  });
});

describe('humanize', () => {
  it('turns property names into labels, keeping acronyms', () => {
    expect(humanize('create_dirs')).toBe('Create dirs');
    expect(humanize('maxBytes')).toBe('Max bytes');
    expect(humanize('url')).toBe('URL');
    expect(humanize('request_id')).toBe('Request ID');
  });
});

describe('values → JSON', () => {
  const root = fieldsFromSchema(writeFile);

  it('starts from defaults and leaves untouched optional fields out', () => {
    let v = initialValue(root);
    v = setIn(v, ['path'], 'notes/todo.md');
    v = setIn(v, ['content'], 'hello');
    expect(toArguments(root, v)).toEqual({ args: { path: 'notes/todo.md', content: 'hello', mode: 'overwrite' }, errors: [] });
  });

  it('converts numbers, booleans, enums and arrays', () => {
    let v = initialValue(root);
    v = setIn(v, ['path'], 'a');
    v = setIn(v, ['content'], 'b');
    v = setIn(v, ['mode'], 1);
    v = setIn(v, ['create_dirs'], true);
    v = setIn(v, ['max_bytes'], ' 4096 ');
    v = setIn(v, ['ratio'], '0.5');
    v = setIn(v, ['tags'], ['x', 'y']);
    expect(toJson(root, v)).toEqual({ value: { path: 'a', content: 'b', mode: 'append', create_dirs: true, max_bytes: 4096, ratio: 0.5, tags: ['x', 'y'] }, errors: [] });
  });

  it('says what was expected and what was found', () => {
    let v = initialValue(root);
    v = setIn(v, ['max_bytes'], '2.5');
    v = setIn(v, ['ratio'], 'abc');
    const { errors } = toJson(root, v);
    expect(errorsByPath(errors)).toEqual(
      new Map([
        ['path', 'Required'],
        ['content', 'Required'],
        ['max_bytes', 'Expected a whole number, found 2.5'],
        ['ratio', 'Expected a number, found "abc"'],
      ]),
    );
    expect(toJson(root, setIn(v, ['max_bytes'], '0')).errors).toContainEqual({ path: 'max_bytes', message: 'Expected at least 1, found 0' });
    expect(toJson(root, setIn(v, ['ratio'], '0')).errors).toContainEqual({ path: 'ratio', message: 'Expected more than 0, found 0' });
  });

  it('checks string lengths, patterns and array sizes with item paths', () => {
    const f = fieldsFromSchema({
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
        items: { type: 'array', minItems: 2, items: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } }, required: ['n'] } },
      },
      required: ['items'],
    });
    const { errors } = toJson(f, { id: 'ABC', items: [{ n: '9' }] });
    expect(errors).toEqual([
      { path: 'id', message: 'Expected text matching ^[a-z]+$' },
      { path: 'items[0].n', message: 'Expected at most 3, found 9' },
      { path: 'items', message: 'Expected at least 2 items, found 1' },
    ]);
  });

  it('parses raw JSON fields and reports bad JSON', () => {
    const f = fieldsFromSchema({ type: 'object', properties: { body: { oneOf: [{ type: 'string' }, { type: 'object' }] } } });
    expect(toJson(f, { body: '{"a": [1, 2]}' }).value).toEqual({ body: { a: [1, 2] } });
    const bad = toJson(f, { body: '{a:1}' });
    expect(bad.errors[0]?.path).toBe('body');
    expect(bad.errors[0]?.message).toMatch(/^Expected JSON: /);
  });

  it('leaves an untouched optional object out, but validates it once filled in', () => {
    const f = fieldsFromSchema({
      type: 'object',
      properties: { options: { type: 'object', properties: { mode: { type: 'string' }, depth: { type: 'integer' } }, required: ['mode'] } },
    });
    expect(toJson(f, initialValue(f))).toEqual({ value: {}, errors: [] });
    expect(toJson(f, { options: { mode: '', depth: '2' } }).errors).toEqual([{ path: 'options.mode', message: 'Required' }]);
  });

  it('round-trips through the raw JSON editor', () => {
    const json = { path: 'p', content: 'c', mode: 'append', create_dirs: false, max_bytes: 10, tags: ['t'] };
    const v = valueFromJson(root, json);
    expect(toJson(root, v)).toEqual({ value: json, errors: [] });
  });
});
