// Odd path errors map to the tool spec's error types (resources/workspace-tools/MCP_TOOL_SPECIFICATION.md "Error types"), never
// to InternalError: a name over 255 bytes, a path over 4096, a NUL byte, a symlink loop, a FIFO.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openWorkspace } from './confine';
import { defaultOptions } from './options';
import { invokeTool } from './workspace-tools';
import { fsReadTool } from './fs-read';
import { fsWriteTool } from './fs-write';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'gh-odd-')));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function errorTypeOf(tool: typeof fsReadTool | typeof fsWriteTool, args: Record<string, unknown>): Promise<{ type: string; message: string }> {
  const ws = await openWorkspace(root);
  const r = await invokeTool(tool as never, { ws, options: defaultOptions() }, args);
  expect(r.isError).toBe(true);
  const s = r.structuredContent as { error_type: string; error_message: string };
  return { type: s.error_type, message: s.error_message };
}

it.each([
  ['a name over 255 bytes', () => 'n'.repeat(300) + '.txt'],
  ['a path over 4096 bytes', () => Array.from({ length: 40 }, () => 'd'.repeat(120)).join('/') + '/f.txt'],
])('read_file: %s is InvalidArgumentError, not InternalError', async (_what, make) => {
  const e = await errorTypeOf(fsReadTool, { file_path: make() });
  expect(e.type).not.toBe('InternalError');
  expect(['InvalidArgumentError', 'FileNotFoundError']).toContain(e.type);
});

it('write_file: a name over 255 bytes is InvalidArgumentError', async () => {
  const e = await errorTypeOf(fsWriteTool, { file_path: 'w'.repeat(300), content: 'x' });
  expect(e.type).toBe('InvalidArgumentError');
  expect(e.message).toMatch(/too long/);
});

it('read_file: a NUL byte in the path is refused with a spec error type', async () => {
  // confine.ts refuses it before any syscall (PathOutsideWorkspaceError); never InternalError.
  const e = await errorTypeOf(fsReadTool, { file_path: 'a\u0000b.txt' });
  expect(e.type).not.toBe('InternalError');
});

it('read_file: a symlink loop is not InternalError', async () => {
  symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
  symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
  const e = await errorTypeOf(fsReadTool, { file_path: 'loop-a' });
  expect(e.type).not.toBe('InternalError');
});

it('read_file: a FIFO is NotAFileError', async () => {
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  const e = await errorTypeOf(fsReadTool, { file_path: 'pipe' });
  expect(e.type).toBe('NotAFileError');
});
