import { describe, expect, it } from 'vitest';
import { fieldsFromSchema, initialValue, setIn, type FormValue } from '../../lib/schema-form/model';
import { contentText, elicitationContent, formSchema, isSendKey, questionKeyChoice, questionView, replyProblem } from './question';

// server-everything's trigger-elicitation-request schema, trimmed.
const REQUESTED = {
  type: 'object',
  properties: {
    name: { title: 'String', type: 'string', description: 'Your full, legal name' },
    check: { title: 'Boolean', type: 'boolean' },
    integer: { title: 'Integer', type: 'integer', minimum: 1, maximum: 100, default: 42 },
    hero: { type: 'string', title: 'Titled Single Select Enum', oneOf: [{ const: 'hero-1', title: 'Superman' }, { const: 'hero-2', title: 'Green Lantern' }], default: 'hero-1' },
    fish: { type: 'array', title: 'Titled Multiple Select Enum', items: { anyOf: [{ const: 'fish-1', title: 'Tuna' }, { const: 'fish-2', title: 'Salmon' }] }, default: ['fish-1'] },
  },
  required: ['name'],
};

describe('questionView', () => {
  it('is undefined for a tool approval, or a question without a payload', () => {
    expect(questionView({ kind: 'tool', question: undefined })).toBeUndefined();
    expect(questionView({ kind: 'sampling', question: undefined })).toBeUndefined();
  });

  it('reads an elicitation in form mode, with titled enums as plain enums', () => {
    const v = questionView({ kind: 'elicitation', question: { message: 'Please provide inputs', requestedSchema: REQUESTED } });
    expect(v?.type).toBe('elicitation-form');
    if (v?.type !== 'elicitation-form') return;
    expect(v.message).toBe('Please provide inputs');
    const props = v.schema.properties as Record<string, Record<string, unknown>>;
    expect(props.hero).toMatchObject({ type: 'string', enum: ['hero-1', 'hero-2'], default: 'hero-1' });
    expect(props.hero).not.toHaveProperty('oneOf');
    expect(props.fish).toMatchObject({ type: 'array', items: { type: 'string', enum: ['fish-1', 'fish-2'] } });
    expect(v.schema.required).toEqual(['name']);
  });

  it('reads an elicitation in URL mode; only http(s) URLs are openable', () => {
    expect(questionView({ kind: 'elicitation', question: { mode: 'url', message: 'Sign in', url: 'https://example.com/a', elicitationId: 'e' } })).toEqual({
      type: 'elicitation-url',
      message: 'Sign in',
      url: 'https://example.com/a',
      elicitationId: 'e',
      openable: true,
    });
    const js = questionView({ kind: 'elicitation', question: { mode: 'url', message: 'x', url: 'javascript:alert(1)' } });
    expect(js).toMatchObject({ type: 'elicitation-url', openable: false });
  });

  it('reads a sampling request as a conversation', () => {
    const v = questionView({
      kind: 'sampling',
      question: {
        messages: [
          { role: 'user', content: { type: 'text', text: 'hi' } },
          { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'xx', mimeType: 'image/png' }] },
        ],
        systemPrompt: 'Be brief.',
        maxTokens: 10,
        temperature: 0.7,
        modelPreferences: { hints: [{ name: 'claude' }, {}] },
      },
    });
    expect(v).toEqual({
      type: 'sampling',
      messages: [
        { role: 'user', text: 'hi' },
        { role: 'assistant', text: 'a\n[image image/png]' },
      ],
      systemPrompt: 'Be brief.',
      maxTokens: 10,
      temperature: 0.7,
      modelHints: ['claude'],
    });
  });
});

describe('answers', () => {
  it('turns the form into elicitation content (defaults included, empty optional fields left out)', () => {
    const root = fieldsFromSchema(formSchema(REQUESTED));
    let value: FormValue = initialValue(root);
    const empty = elicitationContent(root, value);
    expect(empty.errors.map((e) => e.path)).toEqual(['name']);
    value = setIn(value, ['name'], 'Ada');
    const { content, errors } = elicitationContent(root, value);
    expect(errors).toEqual([]);
    expect(content).toEqual({ name: 'Ada', integer: 42, hero: 'hero-1', fish: ['fish-1'] }); // an optional boolean left unset is left out
  });

  it('says why a reply cannot be sent', () => {
    expect(replyProblem('  ')).toBe('Write the reply first.');
    expect(replyProblem('x'.repeat(100_001))).toMatch(/at most 100000/);
    expect(replyProblem('42')).toBeUndefined();
  });

  it('keys: Ctrl/Cmd+Enter sends; of the approval letters only D applies, as decline', () => {
    expect(isSendKey({ key: 'Enter', ctrlKey: true, metaKey: false })).toBe(true);
    expect(isSendKey({ key: 'Enter', ctrlKey: false, metaKey: true })).toBe(true);
    expect(isSendKey({ key: 'Enter', ctrlKey: false, metaKey: false })).toBe(false);
    expect(questionKeyChoice('d')).toBe('decline');
    expect(questionKeyChoice('a')).toBeUndefined();
    expect(questionKeyChoice('s')).toBeUndefined();
  });

  it('shows tool blocks and unknown content briefly', () => {
    expect(contentText({ type: 'tool_use', name: 'get', input: { a: 1 } })).toBe('[tool call get: {"a":1}]');
    expect(contentText({ type: 'resource_link', uri: 'x' })).toBe('{"type":"resource_link","uri":"x"}');
  });
});
