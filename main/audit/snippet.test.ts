import { describe, expect, it } from 'vitest';
import { findSnippet } from './snippet';

describe('audit search snippet', () => {
  it('finds the match in the first matching field, with context and the match offsets', () => {
    const message = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'src/Greet.mjs' } } };
    const s = findSnippet(
      [
        ['method', 'tools/call'],
        ['message', message],
      ],
      'greet',
      10,
    )!;
    expect(s.field).toBe('message');
    expect(s.text.slice(s.start, s.end)).toBe('Greet');
    expect(s.text.startsWith('…')).toBe(true);
    expect(s.text.endsWith('.mjs"}}}')).toBe(true);
  });

  it('folds ASCII case only (as LIKE does) and keeps offsets across line breaks', () => {
    const s = findSnippet([['line', 'first\nSECOND line ß']], 'second', 100)!;
    expect(s.text).toBe('first SECOND line ß');
    expect(s.text.slice(s.start, s.end)).toBe('SECOND');
    expect(findSnippet([['line', 'STRASSE']], 'straße')).toBeUndefined();
  });

  it('returns nothing for an empty query or no match', () => {
    expect(findSnippet([['a', 'x']], '')).toBeUndefined();
    expect(findSnippet([['a', 'x'], ['b', null]], 'y')).toBeUndefined();
  });
});
