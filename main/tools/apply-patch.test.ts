import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openWorkspace } from './confine';
import { defaultOptions } from './options';
import { invokeTool } from './workspace-tools';
import { applyPatchTool } from './apply-patch';

let root: string;
beforeEach(() => { root = realpathSync(mkdtempSync(path.join(tmpdir(), 'gh-patch-'))); });
afterEach(() => { rmSync(root, { recursive: true, force: true }); });

it('restores files already committed when a later commit fails', async () => {
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  writeFileSync(path.join(root, 'b.txt'), 'b\n');
  writeFileSync(path.join(root, 'gone.txt'), 'g\n');
  const ws = await openWorkspace(root);
  // The seam runs when b.txt is opened for reading (phase 1) and again just before its rename
  // (phase 3): fail the second, after a.txt and new.txt have landed.
  let seenB = 0;
  const hooks = { afterCheck: (real: string) => { if (real.endsWith('b.txt') && ++seenB === 2) throw Object.assign(new Error('disk on fire'), { code: 'EIO' }); } };
  const patch = [
    '--- a/a.txt', '+++ b/a.txt', '@@ -1 +1 @@', '-a', '+A',
    '--- /dev/null', '+++ b/new.txt', '@@ -0,0 +1 @@', '+n',
    '--- a/b.txt', '+++ b/b.txt', '@@ -1 +1 @@', '-b', '+B',
    '--- a/gone.txt', '+++ /dev/null', '@@ -1 +0,0 @@', '-g', '',
  ].join('\n');
  const r = await invokeTool(applyPatchTool, { ws, options: defaultOptions(), hooks }, { patch });
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toMatchObject({ error_type: 'InternalError', error_details: { rolled_back: true, not_restored: [] } });
  expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
  expect(readFileSync(path.join(root, 'gone.txt'), 'utf8')).toBe('g\n');
  expect(readdirSync(root).sort()).toEqual(['a.txt', 'b.txt', 'gone.txt']);
});
