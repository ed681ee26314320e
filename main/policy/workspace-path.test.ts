import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkInsideWorkspace } from './workspace-path';

const ws = '/home/u/project';
const inside = (p: string) => checkInsideWorkspace(p, ws, path.posix).inside;

describe('checkInsideWorkspace (POSIX)', () => {
  it('accepts relative and absolute paths that stay inside, and the root itself', () => {
    expect(inside('src/a.ts')).toBe(true);
    expect(inside('./src/../README.md')).toBe(true);
    expect(inside('/home/u/project/x')).toBe(true);
    expect(inside('.')).toBe(true);
    expect(inside('/home/u/project')).toBe(true);
  });

  it('normalises `..` lexically before judging', () => {
    expect(inside('../other/x')).toBe(false);
    expect(inside('src/../../x')).toBe(false);
    expect(inside('/home/u/project/../project-evil/x')).toBe(false);
    expect(inside('/home/u/project-evil')).toBe(false); // a sibling sharing the prefix
    expect(inside('/etc/passwd')).toBe(false);
    expect(inside('a\\..\\..\\x')).toBe(false); // backslashes count as separators
  });

  it('refuses NUL, drive, UNC, file: and ~ forms', () => {
    expect(checkInsideWorkspace('a\0b', ws, path.posix)).toEqual({ inside: false, why: 'path contains a NUL byte' });
    expect(inside('C:\\Windows')).toBe(false);
    expect(inside('c:relative')).toBe(false);
    expect(inside('\\\\server\\share\\x')).toBe(false);
    expect(inside('//server/share')).toBe(false);
    expect(inside('file:///etc/passwd')).toBe(false);
    expect(inside('~/.ssh/id_rsa')).toBe(false);
    expect(inside('')).toBe(false);
  });

  it('treats a root workspace as containing everything', () => {
    expect(checkInsideWorkspace('/etc/x', '/', path.posix).inside).toBe(true);
  });
});

describe('checkInsideWorkspace (Windows)', () => {
  const w = (p: string) => checkInsideWorkspace(p, 'C:\\Users\\u\\proj', path.win32).inside;
  it('judges win32 paths case-insensitively and refuses drive forms in arguments', () => {
    expect(w('src\\a.ts')).toBe(true);
    expect(w('..\\x')).toBe(false);
    expect(w('C:\\Users\\u\\proj\\x')).toBe(false); // drive forms refused even when inside
    expect(w('\\\\?\\C:\\x')).toBe(false);
  });
});
