import { describe, expect, it } from 'vitest';
import { compileGlob, compileGlobs, matchGlob } from './glob';

describe('glob over canonical names', () => {
  it('`*` stays inside one dotted segment', () => {
    expect(matchGlob('files.read_*', 'files.read_file')).toBe(true);
    expect(matchGlob('files.read_*', 'files.read_')).toBe(true);
    expect(matchGlob('files.read_*', 'files.write_file')).toBe(false);
    expect(matchGlob('*.delete_*', 'files.delete_file')).toBe(true);
    expect(matchGlob('*.delete_*', 'a.b.delete_x')).toBe(false);
    expect(matchGlob('fs.*', 'fs.read')).toBe(true);
    // The documented trap: a dotted tool name is not covered by `server.*`…
    expect(matchGlob('fs.*', 'fs.a.b')).toBe(false);
    expect(matchGlob('*', 'fs.read')).toBe(false);
  });

  it('`**` crosses dots and matches anything', () => {
    expect(matchGlob('fs.**', 'fs.a.b')).toBe(true);
    expect(matchGlob('**', 'anything.at.all')).toBe(true);
    expect(matchGlob('**.delete_*', 'a.b.delete_x')).toBe(true);
    expect(matchGlob('***', 'x.y')).toBe(true);
  });

  it('`?` is one character, not a dot', () => {
    expect(matchGlob('fs.rea?', 'fs.read')).toBe(true);
    expect(matchGlob('fs.rea?', 'fs.rea')).toBe(false);
    expect(matchGlob('fs?read', 'fs.read')).toBe(false);
  });

  it('everything else is literal, whole-name and case-sensitive', () => {
    expect(matchGlob('a+b.c', 'a+b.c')).toBe(true);
    expect(matchGlob('a+b.c', 'aab.c')).toBe(false);
    expect(matchGlob('fs.read', 'xfs.read')).toBe(false);
    expect(matchGlob('fs.read', 'fs.readx')).toBe(false);
    expect(matchGlob('fs.(x|y)', 'fs.x')).toBe(false);
    expect(matchGlob('fs.[ab]', 'fs.[ab]')).toBe(true);
    expect(matchGlob('FS.read', 'fs.read')).toBe(false);
  });

  it('compiled lists match when any glob does and report which', () => {
    const m = compileGlobs(['files.write_*', '*.delete_*']);
    expect(m.test('x.delete_all')).toBe(true);
    expect(m.first('x.delete_all')).toBe('*.delete_*');
    expect(m.test('files.read')).toBe(false);
    expect(compileGlobs([]).test('a.b')).toBe(false);
    expect(compileGlob('a.*').test('a.b')).toBe(true);
  });
});
