import { describe, expect, it } from 'vitest';
import { attachJsonText, messageJsonText, sendText } from './json-text';

describe('json-text', () => {
  it('keeps a text on a record invisibly, and uses it only while the record still holds that message', () => {
    const message = { jsonrpc: '2.0', id: 1, result: {} };
    const record: { message: unknown; bytes: number } = { message, bytes: 3 };
    attachJsonText(record, message, 'KEPT');
    expect(messageJsonText(record)).toBe('KEPT');
    // Invisible to JSON, spread, keys and deep equality.
    expect(JSON.stringify(record)).toBe(JSON.stringify({ message, bytes: 3 }));
    expect(Object.keys(record)).toEqual(['message', 'bytes']);
    expect({ ...record }).toEqual({ message, bytes: 3 });
    expect(structuredClone(record)).toEqual({ message, bytes: 3 });
    // A record whose message was replaced (a redacted copy) is serialised afresh.
    const copy = { jsonrpc: '2.0', id: 1, result: { redacted: true } };
    record.message = copy;
    expect(messageJsonText(record)).toBe(JSON.stringify(copy));
    expect(messageJsonText({ message: { a: 1 } })).toBe('{"a":1}');
  });

  it('writes the text its channel made, carried with the send, else serialises', () => {
    const a = { jsonrpc: '2.0', id: 1, result: {} };
    expect(sendText(a, { jsonText: 'MADE' })).toBe('MADE');
    expect(sendText(a, undefined)).toBe(JSON.stringify(a));
    expect(sendText(a, {})).toBe(JSON.stringify(a));
  });
});
