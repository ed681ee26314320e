// Race-free writes on Linux, in userland: every path component is opened as a directory
// descriptor and the next one is looked up *in that descriptor*, never by a path string that the
// kernel would re-walk from the root.
//
// Node has no openat(), but Linux has the same thing as a path: `/proc/self/fd/<dirfd>/<name>`.
// `/proc/self/fd/<dirfd>` is a magic link the kernel resolves to the very directory that fd holds
// (not to whatever path it had), so `<name>` is looked up in that directory even when an attacker
// has since swapped one of its ancestors for a symlink (renameat2(RENAME_EXCHANGE) in a loop was
// the attack: 4 files written outside in 15 s, 209 temp files left there). Each component is
// opened with O_DIRECTORY|O_NOFOLLOW, so a symlink is never followed implicitly: it is read,
// resolved against the workspace, and followed only when it stays inside (the walk restarts
// from the root along the target, at most MAX_LINKS times).
//
// A write then creates its temp file, fsyncs it and renames it *within the same directory
// descriptor*, and removes the temp file on every failure. Before the rename the directory must
// still be where it was checked (readlink of its fd); after it, a directory moved out of the
// workspace meanwhile gets the file taken back out and the call fails. Measured by
// tests/integration/tools-race.test.ts (a renameat2 exchange loop against write_file and
// apply_patch through the real tools server).
import { constants as C, promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ToolError, errnoCode, fsErrorToToolError } from './errors';
import { isInside, outsideWorkspace, type Workspace } from './inside';

const MAX_LINKS = 40;
/** mkdir/open retries when a component keeps changing under us (a racing peer). */
const MAX_RETRIES = 256;

let available: boolean | undefined;

/** True when /proc/self/fd/<dirfd>/<name> lookups work here (Linux with /proc mounted). */
export async function dirFdAvailable(ws: Workspace): Promise<boolean> {
  if (available !== undefined) return available;
  if (process.platform !== 'linux') return (available = false);
  let h: FileHandle | undefined;
  try {
    h = await fsp.open(ws.realRoot, C.O_RDONLY | C.O_DIRECTORY);
    const st = await fsp.stat(`/proc/self/fd/${h.fd}/.`);
    const root = await fsp.stat(ws.realRoot);
    available = st.ino === root.ino && st.dev === root.dev;
  } catch {
    available = false;
  } finally {
    await h?.close().catch(() => undefined);
  }
  return available;
}

const outside = outsideWorkspace;

const at = (dir: FileHandle, name: string) => `/proc/self/fd/${dir.fd}/${name}`;

/** Components of `real` below the workspace root (it must be inside). */
export function relParts(ws: Workspace, real: string): string[] {
  const rel = path.relative(ws.realRoot, real);
  return rel === '' ? [] : rel.split(path.sep);
}

/**
 * Where a symlink found in the real folder `dirRel` (components below the root) points, as
 * components below the root; PathOutsideWorkspaceError when that is outside.
 */
export function linkTarget(ws: Workspace, dirRel: string[], target: string, input: string): string[] {
  const refuse = () => outside(input, 'symlink_outside', `path contains a symbolic link that points outside the workspace: ${input}`);
  let parts: string[];
  let segments: string[];
  if (path.isAbsolute(target)) {
    const abs = path.resolve(target);
    const base = isInside(ws.realRoot, abs) ? ws.realRoot : isInside(ws.root, abs) ? ws.root : undefined;
    if (base === undefined) throw refuse();
    parts = [];
    segments = path.relative(base, abs).split(path.sep);
  } else {
    parts = [...dirRel];
    segments = target.split('/');
  }
  for (const s of segments) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (parts.length === 0) throw refuse();
      parts.pop();
    } else parts.push(s);
  }
  return parts;
}

function tooManyLinks(input: string): ToolError {
  return new ToolError('InvalidArgumentError', `too many symbolic links in ${input} (more than ${MAX_LINKS})`, { path_attempted: input });
}

/** A symlink's text, or undefined when the name stopped being a symlink since its lstat (EINVAL, ENOENT). */
async function readlinkOrChanged(p: string, input: string): Promise<string | undefined> {
  try {
    return await fsp.readlink(p);
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'EINVAL' || code === 'ENOENT') return undefined;
    throw fsErrorToToolError(e, input, 'resolve');
  }
}

export interface WalkedParent {
  /** The parent folder, open: every later step goes through it. */
  readonly dir: FileHandle;
  /** Its components below the root, symlinks resolved. */
  readonly dirRel: string[];
  readonly leaf: string;
  /** The leaf as it is now (undefined: absent). Never a symlink. */
  readonly leafStat: Stats | undefined;
}

/**
 * Opens the parent folder of `parts` (components below the root) component by component, and
 * resolves a symlink leaf too. Creates missing folders when `create`. The caller closes `dir`.
 */
export async function walkToParent(ws: Workspace, input: string, parts: string[], create: boolean): Promise<WalkedParent> {
  let todo = [...parts];
  let links = 0;
  let retries = 0;
  for (;;) {
    if (todo.length === 0) throw new ToolError('NotAFileError', `not a regular file: ${input} (the workspace root)`, { path_attempted: input, kind: 'directory' });
    let dir = await fsp.open(ws.realRoot, C.O_RDONLY | C.O_DIRECTORY).catch((e) => { throw fsErrorToToolError(e, input, 'open the workspace'); });
    const dirRel: string[] = [];
    let restart: string[] | undefined;
    let handedOver = false;
    try {
      while (todo.length > 1 && restart === undefined) {
        const name = todo[0]!;
        let next: FileHandle | undefined;
        try {
          next = await fsp.open(at(dir, name), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
        } catch (e) {
          const code = errnoCode(e);
          if (++retries > MAX_RETRIES) throw outside(input, 'swapped_after_check', `${input} kept changing while it was resolved`);
          if (code === 'ENOENT') {
            if (!create) {
              const missing = [...dirRel, name].join('/');
              throw new ToolError('FileNotFoundError', `parent folder does not exist: ${missing} (set create_parent_dirs to create it)`, { path_attempted: input, missing });
            }
            await fsp.mkdir(at(dir, name)).catch((err) => { if (errnoCode(err) !== 'EEXIST') throw fsErrorToToolError(err, input, 'create folder'); });
            continue; // open what is there now, through the same descriptor
          }
          if (code === 'ELOOP' || code === 'ENOTDIR') {
            const st = await fsp.lstat(at(dir, name)).catch(() => undefined);
            if (st?.isSymbolicLink()) {
              const target = await readlinkOrChanged(at(dir, name), input);
              if (target === undefined) continue; // no longer a link: look again
              if (++links > MAX_LINKS) throw tooManyLinks(input);
              restart = [...linkTarget(ws, dirRel, target, input), ...todo.slice(1)];
              break;
            }
            // Vanished, or a folder again: the name changed between open and lstat; look again.
            if (st === undefined || st.isDirectory()) continue;
            throw new ToolError('NotAFileError', `not a folder: ${[...dirRel, name].join('/')} (in ${input})`, { path_attempted: input, kind: 'file' });
          }
          throw fsErrorToToolError(e, input, 'resolve');
        }
        await dir.close();
        dir = next;
        dirRel.push(name);
        todo = todo.slice(1);
      }
      if (restart === undefined) {
        const leaf = todo[0]!;
        const st = await fsp.lstat(at(dir, leaf)).catch((e) => {
          if (errnoCode(e) === 'ENOENT') return undefined;
          throw fsErrorToToolError(e, input, 'resolve');
        });
        if (st?.isSymbolicLink()) {
          const target = await readlinkOrChanged(at(dir, leaf), input);
          if (target !== undefined && ++links > MAX_LINKS) throw tooManyLinks(input);
          if (target === undefined && ++retries > MAX_RETRIES) throw outside(input, 'swapped_after_check', `${input} kept changing while it was resolved`);
          // No longer a link: walk the same path again.
          restart = target === undefined ? [...dirRel, leaf] : linkTarget(ws, dirRel, target, input);
        } else {
          handedOver = true; // the caller closes it
          return { dir, dirRel, leaf, leafStat: st };
        }
      }
    } finally {
      if (!handedOver) await dir.close().catch(() => undefined);
    }
    todo = restart;
  }
}

export interface DirFdStaged {
  readonly real: string;
  readonly existed: boolean;
  commit(afterCheck?: () => void | Promise<void>): Promise<string>;
  discard(): Promise<void>;
}

/**
 * Writes `data` to a temp file in the target's own folder (through its descriptor), fsynced;
 * commit() renames it over the target within that folder. Every failure removes the temp file.
 */
export async function stageWriteDirFd(
  ws: Workspace,
  input: string,
  lexicalReal: string,
  data: Uint8Array,
  opts: { createParents: boolean; overwrite: boolean },
): Promise<DirFdStaged> {
  const walked = await walkToParent(ws, input, relParts(ws, lexicalReal), opts.createParents);
  const { dir, dirRel, leaf, leafStat } = walked;
  const expectedDir = path.join(ws.realRoot, ...dirRel);
  const tempName = `.${leaf}.gatehouse-${randomBytes(6).toString('hex')}.tmp`;
  let file: FileHandle | undefined;
  let tempExists = false;
  let tempIno = 0;
  let closed = false;
  const cleanup = async () => {
    if (closed) return;
    closed = true;
    if (tempExists) await fsp.unlink(at(dir, tempName)).catch(() => undefined);
    await file?.close().catch(() => undefined);
    await dir.close().catch(() => undefined);
  };
  try {
    if (leafStat && !leafStat.isFile()) throw new ToolError('NotAFileError', `not a regular file: ${input}`, { path_attempted: input });
    if (leafStat && !opts.overwrite) throw new ToolError('FileExistsError', `file already exists: ${input}`, { path_attempted: input });
    file = await fsp.open(at(dir, tempName), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, leafStat ? leafStat.mode & 0o7777 : 0o666);
    tempExists = true;
    // Belt and braces: the kernel's own name for what we created.
    const created = await fsp.readlink(`/proc/self/fd/${file.fd}`);
    if (!isInside(ws.realRoot, created)) throw outside(input, 'swapped_after_check', `the temp file for ${input} is outside the workspace`);
    await file.writeFile(data);
    await file.sync();
    tempIno = (await file.stat()).ino;
  } catch (e) {
    await cleanup();
    throw fsErrorToToolError(e, input, 'write');
  }
  return {
    real: path.join(expectedDir, leaf),
    existed: leafStat !== undefined,
    discard: cleanup,
    async commit(afterCheck) {
      try {
        await afterCheck?.();
        const before = await fsp.readlink(`/proc/self/fd/${dir.fd}`);
        if (before !== expectedDir) {
          throw outside(input, 'swapped_after_check', `folder of ${input} moved after the check (now ${isInside(ws.realRoot, before) ? path.relative(ws.realRoot, before) || '.' : 'outside the workspace'})`);
        }
        await fsp.rename(at(dir, tempName), at(dir, leaf));
        tempExists = false;
        const after = await fsp.readlink(`/proc/self/fd/${dir.fd}`);
        if (!isInside(ws.realRoot, after)) {
          // The folder left the workspace between the check and the rename: take our file back.
          const landed = await fsp.lstat(at(dir, leaf)).catch(() => undefined);
          if (landed?.ino === tempIno) await fsp.unlink(at(dir, leaf)).catch(() => undefined);
          throw outside(input, 'swapped_after_check', `folder of ${input} left the workspace during the write; the file was removed`);
        }
        return path.join(after, leaf);
      } catch (e) {
        throw fsErrorToToolError(e, input, 'write');
      } finally {
        await cleanup();
      }
    },
  };
}

/** Removes a regular file through its folder's descriptor (apply_patch deletions, rollback). */
export async function removeDirFd(ws: Workspace, real: string, input: string): Promise<void> {
  const { dir, leaf, leafStat } = await walkToParent(ws, input, relParts(ws, real), false);
  try {
    if (!leafStat) throw new ToolError('FileNotFoundError', `no such file: ${input}`, { path_attempted: input });
    if (!leafStat.isFile()) throw new ToolError('NotAFileError', `not a regular file: ${input}`, { path_attempted: input });
    await fsp.unlink(at(dir, leaf));
  } catch (e) {
    throw fsErrorToToolError(e, input, 'delete');
  } finally {
    await dir.close().catch(() => undefined);
  }
}
