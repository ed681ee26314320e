import { describe, expect, it } from 'vitest';
import { classifyDiff, diffStats, patchArgument } from './diff';

describe('classifyDiff', () => {
  it('numbers lines from the hunk header and tells additions from removals', () => {
    const lines = classifyDiff('--- a/x.txt\n+++ b/x.txt\n@@ -3,3 +3,3 @@\n keep\n-old\n+new\n\\ No newline at end of file\n');
    expect(lines.map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ['file', undefined, undefined],
      ['file', undefined, undefined],
      ['hunk', undefined, undefined],
      ['ctx', 3, 3],
      ['del', 4, undefined],
      ['add', undefined, 4],
      ['meta', undefined, undefined],
    ]);
    expect(diffStats(lines)).toEqual({ added: 1, removed: 1, files: 1 });
  });
});

describe('patchArgument', () => {
  it('finds the patch of apply_patch under any of its names', () => {
    expect(patchArgument('repo.apply_patch', undefined, { patch: 'p' })).toBe('p');
    expect(patchArgument('x', 'apply_patch', { patch: 'p' })).toBe('p');
    expect(patchArgument('fs.write', 'write_file', { patch: 'p' })).toBeNull();
    expect(patchArgument('repo.apply_patch', undefined, { patch: 3 })).toBeNull();
  });
});
