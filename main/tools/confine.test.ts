import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lexicalResolve, openConfinedForRead, openWorkspace, resolveConfined, writeConfined, type Workspace } from './confine';
import { ToolError } from './errors';

let root: string;
let outside: string;
let ws: Workspace;

beforeEach(async () => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'gh-confine-')));
  outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'gh-confine-out-')));
  writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
  ws = await openWorkspace(root);
});
afterEach(() => { rmSync(root, { recursive: true, force: true }); rmSync(outside, { recursive: true, force: true }); });

async function reason(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try { await (typeof p === 'function' ? p() : p); return undefined; } catch (e) { return e instanceof ToolError ? `${e.type}:${String(e.details.reason)}` : String(e); }
}

describe('lexicalResolve', () => {
  it('refuses dangerous spellings on every platform', async () => {
    expect(await reason(() => lexicalResolve(ws, 'a\0b'))).toBe('PathOutsideWorkspaceError:nul_byte');
    expect(await reason(() => lexicalResolve(ws, 'D:\\x'))).toBe('PathOutsideWorkspaceError:windows_drive');
    expect(await reason(() => lexicalResolve(ws, '\\\\srv\\share'))).toBe('PathOutsideWorkspaceError:unc');
    expect(await reason(() => lexicalResolve(ws, 'a/../../b'))).toBe('PathOutsideWorkspaceError:dot_dot');
    expect(await reason(() => lexicalResolve(ws, '/etc'))).toBe('PathOutsideWorkspaceError:absolute_outside');
    expect(await reason(() => lexicalResolve(ws, ''))).toBe('InvalidArgumentError:undefined');
    expect(lexicalResolve(ws, 'a/./b/../c')).toBe(path.join(root, 'a', 'c'));
    expect(lexicalResolve(ws, root)).toBe(root);
  });

  it('accepts absolute paths spelled through a symlinked root', async () => {
    const alias = path.join(outside, 'alias');
    symlinkSync(root, alias);
    const viaAlias = await openWorkspace(alias);
    expect(lexicalResolve(viaAlias, path.join(alias, 'x.txt'))).toBe(path.join(root, 'x.txt'));
    expect(lexicalResolve(viaAlias, path.join(root, 'x.txt'))).toBe(path.join(root, 'x.txt'));
  });
});

describe('check/use race (deterministic, via the afterCheck test seam)', () => {
  it('a read whose folder is swapped for a link out after the check is refused', async () => {
    mkdirSync(path.join(root, 'dir'));
    writeFileSync(path.join(root, 'dir', 'secret.txt'), 'inside');
    const swap = (): void => {
      renameSync(path.join(root, 'dir'), path.join(root, 'dir.moved'));
      symlinkSync(outside, path.join(root, 'dir'));
    };
    expect(await reason(openConfinedForRead(ws, 'dir/secret.txt', { afterCheck: swap }))).toBe('PathOutsideWorkspaceError:swapped_after_check');
  });

  it('a read whose file is swapped for a symlink after the check is refused (O_NOFOLLOW)', async () => {
    writeFileSync(path.join(root, 'f.txt'), 'inside');
    const swap = (): void => { rmSync(path.join(root, 'f.txt')); symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'f.txt')); };
    expect(await reason(openConfinedForRead(ws, 'f.txt', { afterCheck: swap }))).toBe('PathOutsideWorkspaceError:undefined');
  });

  it('a write whose folder is swapped for a link out before the rename writes nothing outside', async () => {
    mkdirSync(path.join(root, 'dir'));
    const swap = (): void => { renameSync(path.join(root, 'dir'), path.join(root, 'dir.moved')); symlinkSync(outside, path.join(root, 'dir')); };
    expect(await reason(writeConfined(ws, 'dir/new.txt', Buffer.from('x'), { hooks: { afterCheck: swap } }))).toBe('PathOutsideWorkspaceError:swapped_after_check');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET');
  });
});

describe('resolveConfined', () => {
  it('reports existence and the deepest existing prefix', async () => {
    mkdirSync(path.join(root, 'a'));
    const r = await resolveConfined(ws, 'a/b/c.txt');
    expect(r).toMatchObject({ exists: false, existingPrefix: path.join(root, 'a'), real: path.join(root, 'a', 'b', 'c.txt') });
  });

  it('refuses a dangling symlink that points out', async () => {
    symlinkSync(path.join(outside, 'later.txt'), path.join(root, 'dangling'));
    expect(await reason(resolveConfined(ws, 'dangling'))).toBe('PathOutsideWorkspaceError:symlink_outside');
  });
});
