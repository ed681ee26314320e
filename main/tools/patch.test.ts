import { describe, expect, it } from 'vitest';
import { applyFilePatch, parseUnifiedDiff } from './patch';
import { ToolError } from './errors';

const apply = (current: string | null, diff: string): string | null => {
  const [fp] = parseUnifiedDiff(diff);
  const r = applyFilePatch('f', current, fp!);
  return r.deleted ? null : r.content;
};

describe('parseUnifiedDiff', () => {
  it('parses plain diff -u headers with timestamps and strips git prefixes only when used', () => {
    const [plain] = parseUnifiedDiff('--- a.txt\t2024-01-01 00:00:00\n+++ a.txt\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-x\n+y\n');
    expect(plain).toMatchObject({ oldPath: 'a.txt', newPath: 'a.txt' });
    const [git] = parseUnifiedDiff('--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-x\n+y\n');
    expect(git).toMatchObject({ oldPath: 'src/x.ts', newPath: 'src/x.ts' });
  });

  it('handles git empty new and deleted files without hunks', () => {
    const files = parseUnifiedDiff('diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/gone b/gone\ndeleted file mode 100644\n');
    expect(files).toEqual([{ oldPath: null, newPath: 'empty', hunks: [] }, { oldPath: 'gone', newPath: null, hunks: [] }]);
  });

  it('refuses renames, binary patches, garbage and short hunks', () => {
    for (const bad of ['hello', '--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n', 'diff --git a/x b/x\nGIT binary patch\n', '--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n', 'diff --git a/x b/y\nrename from x\nrename to y\n']) {
      expect(() => parseUnifiedDiff(bad), bad).toThrow(ToolError);
    }
  });
});

describe('applyFilePatch', () => {
  it('handles missing newline at end on either side', () => {
    expect(apply('a\nb', '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n')).toBe('a\nb\n');
    expect(apply('a\nb\n', '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n')).toBe('a\nc');
  });

  it('inserts into an empty file and at the top of a file', () => {
    expect(apply('', '--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n')).toBe('x\ny\n');
    expect(apply('b\n', '--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n')).toBe('a\nb\n');
  });

  it('conflicts on changed context, create-over-existing and partial delete', () => {
    const codes = (fn: () => unknown): string => { try { fn(); return 'ok'; } catch (e) { return (e as ToolError).type; } };
    expect(codes(() => apply('a\nB\n', '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'))).toBe('PatchConflictError');
    expect(codes(() => apply('x\n', '--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+y\n'))).toBe('PatchConflictError');
    expect(codes(() => apply('a\nb\n', '--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n'))).toBe('PatchConflictError');
    expect(codes(() => apply(null, '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n'))).toBe('FileNotFoundError');
    expect(apply('a\n', '--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n')).toBeNull();
  });

  it('applies later hunks after an earlier hunk changed the line count, at shifted offsets', () => {
    const file = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const diff = '--- a/f\n+++ b/f\n@@ -2,1 +2,3 @@\n-l2\n+l2a\n+l2b\n+l2c\n@@ -15,1 +17,1 @@\n-l15\n+L15\n';
    const out = apply('new first\n' + file, diff)!;
    expect(out.split('\n')).toContain('L15');
    expect(out.split('\n').slice(0, 5)).toEqual(['new first', 'l1', 'l2a', 'l2b', 'l2c']);
  });
});
