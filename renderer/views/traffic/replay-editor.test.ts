import { describe, expect, it } from 'vitest';
import { argumentsOf, parseArguments } from './replay-editor';

describe('edit-then-replay arguments', () => {
  it('takes a JSON object, and says what is wrong with anything else', () => {
    expect(parseArguments('{"path": "a.txt"}')).toEqual({ args: { path: 'a.txt' } });
    expect(parseArguments('  ')).toEqual({ args: {} });
    expect(parseArguments('{"path": ')).toMatchObject({ error: expect.stringMatching(/^Not JSON: /) });
    expect(parseArguments('[1]')).toEqual({ error: 'Expected a JSON object of arguments, found an array' });
    expect(parseArguments('null')).toEqual({ error: 'Expected a JSON object of arguments, found null' });
    expect(parseArguments('"x"')).toEqual({ error: 'Expected a JSON object of arguments, found string' });
  });

  it('reads the arguments of a tools/call request message', () => {
    expect(argumentsOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } })).toEqual({ message: 'hi' });
    expect(argumentsOf({ params: {} })).toEqual({});
    expect(argumentsOf(undefined)).toEqual({});
  });
});
