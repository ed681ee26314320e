// The descriptor walk of ./dir-fd.ts (Linux): symlinks inside are followed one by one, any that
// leads out is refused, folders are created through descriptors, temp files never survive.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openConfinedForRead, openWorkspace, removeConfined, writeConfined, type Workspace } from './confine';
import { dirFdAvailable, linkTarget, walkToParent } from './dir-fd';
import { ToolError } from './errors';

let root: string;
let outside: string;
let ws: Workspace;

beforeEach(async () => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'gh-dirfd-')));
  outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'gh-dirfd-out-')));
  writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
  ws = await openWorkspace(root);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof ToolError ? `${e.type}:${String(e.details.reason)}` : String(e);
  }
}

describe('linkTarget', () => {
  it('resolves relative and absolute targets below the root, refuses the rest', () => {
    expect(linkTarget(ws, ['a', 'b'], '../c/d', 'x')).toEqual(['a', 'c', 'd']);
    expect(linkTarget(ws, ['a'], './e', 'x')).toEqual(['a', 'e']);
    expect(linkTarget(ws, ['a'], path.join(root, 'z'), 'x')).toEqual(['z']);
    expect(() => linkTarget(ws, ['a'], '../../etc', 'x')).toThrow(/outside the workspace/);
    expect(() => linkTarget(ws, [], outside, 'x')).toThrow(/outside the workspace/);
  });
});

describe.runIf(process.platform === 'linux')('writes through directory descriptors', () => {
  it('is in use here', async () => {
    expect(await dirFdAvailable(ws)).toBe(true);
  });

  it('follows symlinks that stay inside, component by component, and reports the real path', async () => {
    mkdirSync(path.join(root, 'real', 'deep'), { recursive: true });
    symlinkSync('real', path.join(root, 'alias'));
    symlinkSync('../real/deep', path.join(root, 'real', 'up'));
    const r = await writeConfined(ws, 'alias/up/f.txt', Buffer.from('through links'));
    expect(r).toEqual({ real: path.join(root, 'real', 'deep', 'f.txt'), created: true });
    expect(readFileSync(path.join(root, 'real', 'deep', 'f.txt'), 'utf8')).toBe('through links');
    // A symlink leaf inside is written through (the file it names is replaced, the link stays).
    symlinkSync('real/deep/f.txt', path.join(root, 'leaf-link'));
    expect((await writeConfined(ws, 'leaf-link', Buffer.from('again'))).real).toBe(path.join(root, 'real', 'deep', 'f.txt'));
    expect(readFileSync(path.join(root, 'leaf-link'), 'utf8')).toBe('again');
  });

  it('refuses a folder or leaf link that leads out, leaving nothing anywhere', async () => {
    symlinkSync(outside, path.join(root, 'out'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'leaf-out'));
    expect(await failure(writeConfined(ws, 'out/x.txt', Buffer.from('x')))).toBe('PathOutsideWorkspaceError:symlink_outside');
    expect(await failure(writeConfined(ws, 'leaf-out', Buffer.from('x')))).toBe('PathOutsideWorkspaceError:symlink_outside');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET');
    expect(readdirSync(root).filter((n) => n.includes('.gatehouse-'))).toEqual([]);
  });

  it('stops at a symlink loop with a clear error', async () => {
    symlinkSync('b', path.join(root, 'a'));
    symlinkSync('a', path.join(root, 'b'));
    // (writeConfined's first check, realpath, already refuses it with ELOOP; the walk itself too:)
    expect(await failure(writeConfined(ws, 'a/x.txt', Buffer.from('x')))).toBe('PathOutsideWorkspaceError:undefined');
    await expect(walkToParent(ws, 'a/x.txt', ['a', 'x.txt'], false)).rejects.toThrow(/too many symbolic links in a\/x.txt/);
  });

  it('creates missing folders only when asked, and removes files through the folder descriptor', async () => {
    expect(await failure(writeConfined(ws, 'a/b/c.txt', Buffer.from('x')))).toBe('FileNotFoundError:undefined');
    await writeConfined(ws, 'a/b/c.txt', Buffer.from('x'), { createParents: true });
    expect(readFileSync(path.join(root, 'a', 'b', 'c.txt'), 'utf8')).toBe('x');
    await removeConfined(ws, path.join(root, 'a', 'b', 'c.txt'), 'a/b/c.txt');
    expect(readdirSync(path.join(root, 'a', 'b'))).toEqual([]);
    expect(await failure(writeConfined(ws, 'a/b', Buffer.from('x')))).toBe('NotAFileError:undefined');
  });

  it('keeps the mode of a file it replaces and fails FileExistsError without overwrite', async () => {
    writeFileSync(path.join(root, 'm.sh'), 'old', { mode: 0o750 });
    await writeConfined(ws, 'm.sh', Buffer.from('new'));
    expect(readFileSync(path.join(root, 'm.sh'), 'utf8')).toBe('new');
    expect((await import('node:fs')).statSync(path.join(root, 'm.sh')).mode & 0o777).toBe(0o750);
    expect(await failure(writeConfined(ws, 'm.sh', Buffer.from('x'), { overwrite: false }))).toBe('FileExistsError:undefined');
  });
});

describe('reads of hard-linked files', () => {
  it('are refused with the reason and the option that allows them', async () => {
    linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hl.txt'));
    expect(await failure(openConfinedForRead(ws, 'hl.txt'))).toBe('PathOutsideWorkspaceError:hard_link');
    const opened = await openConfinedForRead(ws, 'hl.txt', undefined, { allowHardLinks: true });
    await opened.handle.close();
  });
});
