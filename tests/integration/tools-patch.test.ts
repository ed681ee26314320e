// repo.apply_patch and repo.validate_change_set through the real server over stdio.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildToolsServer, errorOf, makeTempDir, removeDir, startToolsServer, structured, type ToolsServerHandle } from '../fixtures/tools/harness';

let ws: string;
let outside: string;
let server: ToolsServerHandle | undefined;

beforeAll(async () => { await buildToolsServer(); });
beforeEach(() => { ws = makeTempDir('gh-ws-'); outside = makeTempDir('gh-outside-'); });
afterEach(async () => { await server?.close(); server = undefined; removeDir(ws); removeDir(outside); });

async function start(options?: unknown): Promise<ToolsServerHandle> {
  server = await startToolsServer(ws, options);
  return server;
}
const read = (p: string): string => readFileSync(path.join(ws, p), 'utf8');

const MULTI = [
  'diff --git a/src/app.ts b/src/app.ts',
  'index 1111111..2222222 100644',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,3 +1,3 @@',
  ' line 1',
  '-line 2',
  '+line two',
  ' line 3',
  '@@ -8,3 +8,4 @@',
  ' line 8',
  ' line 9',
  ' line 10',
  '+line 11',
  'diff --git a/docs/new.md b/docs/new.md',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/docs/new.md',
  '@@ -0,0 +1,2 @@',
  '+# New',
  '+no newline here',
  '\\ No newline at end of file',
  'diff --git a/old.txt b/old.txt',
  'deleted file mode 100644',
  '--- a/old.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-bye',
  '',
].join('\n');

function seed(): void {
  mkdirSync(path.join(ws, 'src'));
  writeFileSync(path.join(ws, 'src/app.ts'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  writeFileSync(path.join(ws, 'old.txt'), 'bye\n');
}

describe('repo.apply_patch', () => {
  it('applies a multi-file git diff: modify with two hunks, create, delete', async () => {
    seed();
    const s = await start();
    const r = await s.call('repo.apply_patch', { patch: MULTI });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(structured(r)).toEqual({
      files: [
        { path: 'src/app.ts', action: 'modified', hunks_applied: 2, max_offset_lines: 0 },
        { path: 'docs/new.md', action: 'created', hunks_applied: 1, max_offset_lines: 0 },
        { path: 'old.txt', action: 'deleted', hunks_applied: 1, max_offset_lines: 0 },
      ],
      files_changed: 3,
    });
    expect(read('src/app.ts')).toBe('line 1\nline two\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\n');
    expect(read('docs/new.md')).toBe('# New\nno newline here');
    expect(existsSync(path.join(ws, 'old.txt'))).toBe(false);
  });

  it('finds a hunk at a shifted offset and keeps CRLF lines intact', async () => {
    writeFileSync(path.join(ws, 'crlf.txt'), 'extra\r\nextra\r\na\r\nb\r\nc\r\n');
    const s = await start();
    const patch = '--- crlf.txt\n+++ crlf.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n';
    const r = structured(await s.call('repo.apply_patch', { patch }));
    expect(r.files[0]).toMatchObject({ path: 'crlf.txt', max_offset_lines: 2 });
    expect(read('crlf.txt')).toBe('extra\r\nextra\r\na\r\nB\r\nc\r\n');
  });

  it('all or nothing: one conflicting hunk leaves every file untouched (PatchConflictError)', async () => {
    seed();
    const s = await start();
    const broken = MULTI.replace(' line 10\n+line 11', ' line 10 (changed upstream)\n+line 11');
    const e = errorOf(await s.call('repo.apply_patch', { patch: broken }));
    expect(e.type).toBe('PatchConflictError');
    expect(e.details).toMatchObject({ path: 'src/app.ts', hunk: 2 });
    expect(read('src/app.ts')).toContain('line 2\n');
    expect(existsSync(path.join(ws, 'docs'))).toBe(false);
    expect(read('old.txt')).toBe('bye\n');
  });

  it('a write failure on the second file leaves the first untouched (PermissionError)', async () => {
    // The second file's folder is unwritable, so staging its temp file fails and nothing is
    // renamed. Rollback after a failed rename is covered in main/tools/apply-patch.test.ts.
    mkdirSync(path.join(ws, 'a'));
    mkdirSync(path.join(ws, 'b'));
    writeFileSync(path.join(ws, 'a/x.txt'), 'x\n');
    writeFileSync(path.join(ws, 'b/y.txt'), 'y\n');
    chmodSync(path.join(ws, 'b'), 0o555);
    chmodSync(ws, 0o777);
    chmodSync(path.join(ws, 'a'), 0o777);
    chmodSync(path.join(ws, 'a/x.txt'), 0o666);
    server = await startToolsServer(ws, undefined, { unprivileged: true });
    const patch = '--- a/a/x.txt\n+++ b/a/x.txt\n@@ -1 +1 @@\n-x\n+X\n--- a/b/y.txt\n+++ b/b/y.txt\n@@ -1 +1 @@\n-y\n+Y\n';
    const e = errorOf(await server.call('repo.apply_patch', { patch }));
    expect(e.type).toBe('PermissionError');
    expect(read('a/x.txt')).toBe('x\n');
    expect(read('b/y.txt')).toBe('y\n');
    expect(readdirSync(path.join(ws, 'a'))).toEqual(['x.txt']);
  });

  it('PatchParseError, FileNotFoundError, PathOutsideWorkspaceError, FileTooLargeError, DecodeError', async () => {
    writeFileSync(path.join(ws, 'exists.txt'), 'here\n');
    writeFileSync(path.join(ws, 'bin.dat'), Buffer.from([0xff, 0x0a]));
    symlinkSync(outside, path.join(ws, 'out'));
    const s = await start({ max_write_bytes: 20 });
    expect(errorOf(await s.call('repo.apply_patch', { patch: 'this is not a diff' })).type).toBe('PatchParseError');
    expect(errorOf(await s.call('repo.apply_patch', { patch: '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-only one line\n' })).type).toBe('PatchParseError');
    expect(errorOf(await s.call('repo.apply_patch', { patch: '--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n' })).type).toBe('FileNotFoundError');
    const create = errorOf(await s.call('repo.apply_patch', { patch: '--- /dev/null\n+++ b/exists.txt\n@@ -0,0 +1 @@\n+new\n' }));
    expect(create).toMatchObject({ type: 'PatchConflictError', details: { reason: 'already_exists' } });
    for (const target of ['../evil.txt', 'out/evil.txt']) {
      expect(errorOf(await s.call('repo.apply_patch', { patch: `--- /dev/null\n+++ b/${target}\n@@ -0,0 +1 @@\n+evil\n` })).type, target).toBe('PathOutsideWorkspaceError');
    }
    expect(errorOf(await s.call('repo.apply_patch', { patch: '--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1 @@\n+' + 'x'.repeat(30) + '\n' })).type).toBe('FileTooLargeError');
    expect(errorOf(await s.call('repo.apply_patch', { patch: '--- a/bin.dat\n+++ b/bin.dat\n@@ -1 +1 @@\n-x\n+y\n' })).type).toBe('DecodeError');
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(ws).sort()).toEqual(['bin.dat', 'exists.txt', 'out']);
  });
});

describe('repo.validate_change_set', () => {
  it('reports per-change verdicts and writes nothing', async () => {
    seed();
    symlinkSync(outside, path.join(ws, 'out'));
    const s = await start({ max_write_bytes: 100 });
    const before = readdirSync(ws).sort();
    const r = await s.call('repo.validate_change_set', {
      changes: [
        { path: 'src/new.ts', action: 'create', content: 'export {};\n' },
        { path: 'src/new.ts', action: 'modify', patch: '@@ -1 +1 @@\n-export {};\n+export const x = 1;\n' },
        { path: 'src/app.ts', action: 'modify', patch: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -2 +2 @@\n-line 2\n+line two\n' },
        { path: 'old.txt', action: 'delete' },
        { path: 'old.txt', action: 'modify', content: 'again' },
        { path: 'src/app.ts', action: 'create', content: 'dup' },
        { path: 'src/app.ts', action: 'modify', patch: '@@ -1 +1 @@\n-nope\n+x\n' },
        { path: 'out/x.txt', action: 'create', content: 'x' },
        { path: 'huge.txt', action: 'create', content: 'x'.repeat(101) },
        { path: 'bad.txt', action: 'create' },
      ],
    });
    expect(r.isError).toBeFalsy();
    const v = structured(r);
    expect(v.ok).toBe(false);
    expect(v.results.map((x: any) => x.ok ? 'ok' : x.error_type)).toEqual([
      'ok', 'ok', 'ok', 'ok', 'FileNotFoundError', 'PatchConflictError', 'PatchConflictError', 'PathOutsideWorkspaceError', 'FileTooLargeError', 'InvalidArgumentError',
    ]);
    expect(v.results[1]).toMatchObject({ index: 1, path: 'src/new.ts', ok: true, resulting_bytes: 20 });
    expect(readdirSync(ws).sort()).toEqual(before);
    expect(read('src/app.ts')).toContain('line 2\n');
    expect(readdirSync(outside)).toEqual([]);
    const good = structured(await s.call('repo.validate_change_set', { changes: [{ path: 'src/app.ts', action: 'delete' }] }));
    expect(good.ok).toBe(true);
  });

  it('InvalidArgumentError for an empty change list', async () => {
    const s = await start();
    expect(errorOf(await s.call('repo.validate_change_set', { changes: [] })).type).toBe('InvalidArgumentError');
  });
});
