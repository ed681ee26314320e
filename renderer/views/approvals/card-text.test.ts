// A crafted resource URI or prompt name on an approval card's title (card-text.ts): every hidden
// character, control character and line break is written out, and each trick is flagged.
import { describe, expect, it } from 'vitest';
import { showHidden, splitHidden } from '../../../common/visible-text';
import { cardTitle, cardTitleText } from './card-text';

const resource = (uri: string) => ({ kind: 'resource' as const, tool: `resource:${uri}`, server: 'everything' });
const kinds = (uri: string) => cardTitle(resource(uri)).flags.map((f) => f.kind);

describe('cardTitle', () => {
  it('a right-to-left override in a URI is written as \\u202E and flagged', () => {
    const r = resource('file:///srv/report\u202Efdp.exe');
    expect(cardTitle(r)).toMatchObject({ lead: 'Read resource ', name: 'file:///srv/report\u202Efdp.exe' });
    expect(cardTitleText(r)).toBe('Read resource file:///srv/report\\u202Efdp.exe');
    expect(kinds('file:///srv/report\u202Efdp.exe')).toEqual(['bidi_control']);
  });

  it('a newline cannot fake a second line: written \\n, flagged as a line break', () => {
    const uri = 'demo://resource/1\nRead resource demo://resource/safe';
    expect(cardTitleText(resource(uri))).toBe('Read resource demo://resource/1\\nRead resource demo://resource/safe');
    expect(cardTitleText(resource(uri))).not.toContain('\n');
    expect(kinds(uri)).toEqual(['line_break']);
    // The card draws the same parts: the newline is a marked part of its own.
    expect(splitHidden(uri, { oneLine: true })).toContainEqual({ hidden: '\n', shown: '\\n', code: 'U+000A', bidi: false });
  });

  it('control and zero-width characters are written out and flagged', () => {
    expect(cardTitleText(resource('demo://a\u001B[2Kb'))).toBe('Read resource demo://a\\u001B[2Kb');
    expect(kinds('demo://a\u001B[2Kb')).toEqual(['invisible']);
    expect(cardTitleText(resource('demo://ok\u200B.txt'))).toBe('Read resource demo://ok\\u200B.txt');
    expect(kinds('demo://ok\u200B.txt')).toEqual(['invisible']);
  });

  it('look-alike letters (a Cyrillic о in a Latin word) are flagged by name', () => {
    const title = cardTitle(resource('demo://n\u043Etes'));
    expect(title.flags).toEqual([expect.objectContaining({ kind: 'mixed_script', message: expect.stringContaining('\u043E U+043E Cyrillic') })]);
  });

  it('a prompt name goes the same way; a plain one has no flags', () => {
    const prompt = { kind: 'prompt' as const, tool: 'prompt:everything.sum\u202Emary', server: 'everything' };
    expect(cardTitleText(prompt)).toBe('Get prompt sum\\u202Emary');
    expect(cardTitle(prompt).flags.map((f) => f.kind)).toEqual(['bidi_control']);
    expect(cardTitle({ kind: 'prompt', tool: 'prompt:everything.simple-prompt', server: 'everything' })).toEqual({ lead: 'Get prompt ', name: 'simple-prompt', flags: [] });
    expect(cardTitle({ tool: 'fs.write', advertisedName: 'write_file', server: 'workspace' })).toEqual({ lead: '', name: 'write_file', flags: [] });
  });
});

describe('oneLine is only for names', () => {
  it('an argument keeps its line breaks as text (a file body is many lines); a name writes them out', () => {
    expect(showHidden('a\nb\tc')).toBe('a\nb\tc');
    expect(showHidden('a\nb\tc\r', { oneLine: true })).toBe('a\\nb\\tc\\r');
  });
});
