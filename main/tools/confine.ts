// Workspace confinement, the one place every built-in tool resolves a path (docs/security.md "Workspace confinement").
//
// A path is refused before it touches the disk when its spelling is dangerous on any platform
// (NUL, Windows drive and UNC forms), then resolved lexically (`..`), then the longest existing
// prefix is realpath'd so symlinks are followed the way the kernel would. Checking is not enough:
// a symlink can be swapped in between the check and the use, so reads open the checked real path
// with O_NOFOLLOW and then verify what the descriptor actually points at. Writes and deletes on
// Linux walk the path one directory descriptor at a time (./dir-fd.ts), so a component swapped
// for a symlink after the check cannot redirect them; elsewhere they go to a fresh temp file
// (O_EXCL|O_NOFOLLOW) whose descriptor is verified the same way before it is renamed.
// Reads refuse a regular file with more than one hard link unless allowed: its other names may
// lie outside the workspace, and no path check can see them.
import { constants as C, promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ToolError, errnoCode, fsErrorToToolError } from './errors';
import { dirFdAvailable, removeDirFd, stageWriteDirFd } from './dir-fd';
import { isInside, outsideWorkspace, type Workspace } from './inside';

// Declared in ./inside.ts, which dir-fd.ts shares with this file, so the two do not import each
// other; tools import it from here as before.
export type { Workspace } from './inside';

/** Test seam: lets a unit test swap a symlink in exactly between the check and the use. */
export interface ConfineHooks {
  afterCheck?: (realPath: string) => void | Promise<void>;
}

export interface ResolvedPath {
  /** What the caller passed, for error details. */
  readonly input: string;
  /** The confined real path (symlinks in the existing prefix resolved). */
  readonly real: string;
  /** Whether the full path exists right now. */
  readonly exists: boolean;
  /** The real path of the deepest existing ancestor (== real when it exists). */
  readonly existingPrefix: string;
}

export async function openWorkspace(root: string): Promise<Workspace> {
  if (!path.isAbsolute(root)) throw new Error(`workspace root must be an absolute path, got ${JSON.stringify(root)}`);
  const realRoot = await fsp.realpath(root);
  const st = await fsp.stat(realRoot);
  if (!st.isDirectory()) throw new Error(`workspace root is not a directory: ${root}`);
  return { root: path.resolve(root), realRoot };
}

export { isInside };

/** The workspace-relative spelling of a confined real path, with `/` separators. */
export function displayPath(ws: Workspace, real: string): string {
  const rel = path.relative(ws.realRoot, real);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

const outside = outsideWorkspace;

/**
 * Refuses spellings that mean "somewhere else" on some platform, whatever platform we run on:
 * a profile written on Linux must not become an escape when the same agent runs on Windows.
 * Backslashes count as separators everywhere for the same reason.
 */
export function lexicalResolve(ws: Workspace, input: string): string {
  if (typeof input !== 'string' || input.length === 0) {
    throw new ToolError('InvalidArgumentError', 'path must be a non-empty string', { path_attempted: input ?? null });
  }
  if (input.includes('\0')) throw outside(input, 'nul_byte', `path contains a NUL byte: ${JSON.stringify(input)}`);
  if (/^[A-Za-z]:/.test(input)) throw outside(input, 'windows_drive', `Windows drive paths are refused: ${input}`);
  if (/^[\\/]{2}/.test(input)) throw outside(input, 'unc', `UNC and device paths are refused: ${input}`);
  const spelled = input.replace(/\\/g, '/');
  let resolved: string;
  if (path.isAbsolute(spelled)) {
    resolved = path.resolve(spelled);
    // An absolute path may be spelled through the root as given or through its real path.
    if (isInside(ws.root, resolved)) resolved = path.join(ws.realRoot, path.relative(ws.root, resolved));
    else if (!isInside(ws.realRoot, resolved)) throw outside(input, 'absolute_outside', `absolute path is outside the workspace: ${input}`);
  } else {
    resolved = path.resolve(ws.realRoot, spelled);
  }
  if (!isInside(ws.realRoot, resolved)) throw outside(input, 'dot_dot', `path escapes the workspace: ${input}`);
  return resolved;
}

/** Resolves and confines a path; the file itself need not exist. */
export async function resolveConfined(ws: Workspace, input: string): Promise<ResolvedPath> {
  const lexical = lexicalResolve(ws, input);
  const tail: string[] = [];
  let probe = lexical;
  for (;;) {
    try {
      const realPrefix = await fsp.realpath(probe);
      const real = tail.length ? path.join(realPrefix, ...tail) : realPrefix;
      if (!isInside(ws.realRoot, real)) {
        throw outside(input, 'symlink_outside', `path resolves through a symbolic link to outside the workspace: ${input}`);
      }
      return { input, real, exists: tail.length === 0, existingPrefix: realPrefix };
    } catch (e) {
      if (e instanceof ToolError) throw e;
      const code = errnoCode(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsErrorToToolError(e, input, 'resolve');
      // A dangling symlink also gives ENOENT: refuse it when it points out, so creating the
      // file later can never follow it.
      const link = await fsp.lstat(probe).catch(() => undefined);
      const linkText = link?.isSymbolicLink() ? await fsp.readlink(probe).catch(() => undefined) : undefined;
      if (linkText !== undefined) {
        const target = path.resolve(path.dirname(probe), linkText);
        if (!isInside(ws.realRoot, target)) {
          throw outside(input, 'symlink_outside', `path contains a symbolic link that points outside the workspace: ${input}`);
        }
      }
      const parent = path.dirname(probe);
      if (parent === probe || !isInside(ws.realRoot, parent)) {
        // The root itself vanished; nothing sensible to resolve against.
        throw fsErrorToToolError(e, input, 'resolve');
      }
      tail.unshift(path.basename(probe));
      probe = parent;
    }
  }
}

/**
 * Verifies which file an open descriptor refers to. On Linux the kernel tells us
 * (/proc/self/fd/N); elsewhere we re-resolve the path and compare device and inode.
 */
export async function verifyDescriptor(ws: Workspace, handle: FileHandle, expectedReal: string, input: string): Promise<void> {
  let actual: string | undefined;
  try {
    actual = await fsp.readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    actual = undefined;
  }
  if (actual !== undefined) {
    if (!isInside(ws.realRoot, actual)) {
      throw outside(input, 'swapped_after_check', `the file opened for ${input} is outside the workspace (a link was swapped in after the check)`);
    }
    return;
  }
  const [st, again] = await Promise.all([handle.stat(), fsp.realpath(expectedReal).catch(() => undefined)]);
  const againSt = again !== undefined && isInside(ws.realRoot, again) ? await fsp.stat(again).catch(() => undefined) : undefined;
  if (!againSt || againSt.dev !== st.dev || againSt.ino !== st.ino) {
    throw outside(input, 'swapped_after_check', `the file opened for ${input} is not the file that was checked (a link was swapped in after the check)`);
  }
}

export interface OpenedFile {
  readonly handle: FileHandle;
  readonly real: string;
  readonly stat: Stats;
}

export interface ReadOptions {
  /** Read a regular file that has other hard links (off by default: they may lie outside). */
  allowHardLinks?: boolean;
}

/** Opens a confined, existing regular file for reading, verified after open. */
export async function openConfinedForRead(ws: Workspace, input: string, hooks?: ConfineHooks, opts: ReadOptions = {}): Promise<OpenedFile> {
  const resolved = await resolveConfined(ws, input);
  if (!resolved.exists) {
    throw new ToolError('FileNotFoundError', `no such file: ${input}`, { path_attempted: input });
  }
  await hooks?.afterCheck?.(resolved.real);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO planted in the workspace must not hang the server.
    handle = await fsp.open(resolved.real, C.O_RDONLY | C.O_NOFOLLOW | (C.O_NONBLOCK ?? 0));
  } catch (e) {
    throw fsErrorToToolError(e, input, 'open');
  }
  try {
    await verifyDescriptor(ws, handle, resolved.real, input);
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new ToolError('NotAFileError', `not a regular file: ${input}`, { path_attempted: input, kind: stat.isDirectory() ? 'directory' : 'special' });
    }
    if (stat.nlink > 1 && !opts.allowHardLinks) {
      throw outside(
        input,
        'hard_link',
        `${input} has ${stat.nlink} hard links; its other names may lie outside the workspace, so it is not read (the tools option allow_hardlinked_reads: true allows it)`,
      );
    }
    return { handle, real: resolved.real, stat };
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw fsErrorToToolError(e, input, 'open');
  }
}

export interface WriteOptions {
  createParents?: boolean;
  overwrite?: boolean;
  hooks?: ConfineHooks;
}

/** A file written to a temp sibling, not yet visible under its name. */
export interface StagedWrite {
  readonly real: string;
  readonly existed: boolean;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

async function ensureParents(ws: Workspace, input: string, resolved: ResolvedPath, create: boolean): Promise<void> {
  const parent = path.dirname(resolved.real);
  if (resolved.existingPrefix === parent || (resolved.exists && resolved.existingPrefix === resolved.real)) return;
  if (!create) {
    throw new ToolError('FileNotFoundError', `parent folder does not exist: ${displayPath(ws, parent)} (set create_parent_dirs to create it)`, { path_attempted: input, missing: displayPath(ws, parent) });
  }
  const missing = path.relative(resolved.existingPrefix, parent).split(path.sep);
  let current = resolved.existingPrefix;
  for (const part of missing) {
    const next = path.join(current, part);
    try {
      await fsp.mkdir(next);
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST') throw fsErrorToToolError(e, input, 'create folder');
    }
    // Verify each created (or concurrently appeared) folder is a real folder still inside.
    const real = await fsp.realpath(next).catch((e) => { throw fsErrorToToolError(e, input, 'create folder'); });
    const st = await fsp.lstat(real);
    if (!isInside(ws.realRoot, real) || !st.isDirectory()) {
      throw outside(input, 'swapped_after_check', `created folder ${displayPath(ws, next)} does not resolve inside the workspace`);
    }
    current = real;
  }
}

/** Writes data to a verified temp file beside the target; commit() renames it into place. */
export async function stageWrite(ws: Workspace, input: string, data: Uint8Array, opts: WriteOptions = {}): Promise<StagedWrite> {
  const resolved = await resolveConfined(ws, input);
  if (await dirFdAvailable(ws)) {
    const staged = await stageWriteDirFd(ws, input, resolved.real, data, { createParents: opts.createParents ?? false, overwrite: opts.overwrite ?? true });
    let real = staged.real;
    return {
      get real() {
        return real;
      },
      existed: staged.existed,
      discard: staged.discard,
      commit: async () => {
        real = await staged.commit(opts.hooks?.afterCheck ? () => opts.hooks!.afterCheck!(staged.real) : undefined);
      },
    };
  }
  let existing: Stats | undefined;
  if (resolved.exists) {
    existing = await fsp.lstat(resolved.real).catch((e) => { throw fsErrorToToolError(e, input, 'write'); });
    if (!existing.isFile()) throw new ToolError('NotAFileError', `not a regular file: ${input}`, { path_attempted: input });
    if (opts.overwrite === false) throw new ToolError('FileExistsError', `file already exists: ${input}`, { path_attempted: input });
  }
  await ensureParents(ws, input, resolved, opts.createParents ?? false);
  const dir = path.dirname(resolved.real);
  const temp = path.join(dir, `.${path.basename(resolved.real)}.gatehouse-${randomBytes(6).toString('hex')}.tmp`);
  let handle: FileHandle;
  try {
    handle = await fsp.open(temp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, existing ? existing.mode & 0o7777 : 0o666);
  } catch (e) {
    throw fsErrorToToolError(e, input, 'write');
  }
  const discard = async (): Promise<void> => { await fsp.unlink(temp).catch(() => undefined); };
  try {
    await verifyDescriptor(ws, handle, temp, input);
    await handle.writeFile(data);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await discard();
    throw fsErrorToToolError(e, input, 'write');
  }
  await handle.close();
  return {
    real: resolved.real,
    existed: resolved.exists,
    discard,
    commit: async () => {
      try {
        await opts.hooks?.afterCheck?.(resolved.real);
        // rename() replaces a symlink at the target rather than following it, and the temp file's
        // random name cannot exist in a folder swapped in meanwhile, so a late swap fails closed.
        const dirNow = await fsp.realpath(dir).catch(() => undefined);
        if (dirNow === undefined || !isInside(ws.realRoot, dirNow)) {
          throw outside(input, 'swapped_after_check', `folder of ${input} no longer resolves inside the workspace`);
        }
        await fsp.rename(temp, resolved.real);
      } catch (e) {
        await discard();
        throw fsErrorToToolError(e, input, 'write');
      }
    },
  };
}

/** Atomic write: temp file + rename, with confinement verified at every step. */
export async function writeConfined(ws: Workspace, input: string, data: Uint8Array, opts: WriteOptions = {}): Promise<{ real: string; created: boolean }> {
  const staged = await stageWrite(ws, input, data, opts);
  await staged.commit();
  return { real: staged.real, created: !staged.existed };
}

/** Removes a confined regular file (used by apply_patch deletions and their rollback). */
export async function removeConfined(ws: Workspace, real: string, input: string): Promise<void> {
  if (await dirFdAvailable(ws)) return removeDirFd(ws, real, input);
  const dirNow = await fsp.realpath(path.dirname(real)).catch((e) => { throw fsErrorToToolError(e, input, 'delete'); });
  if (!isInside(ws.realRoot, dirNow)) throw outside(input, 'swapped_after_check', `folder of ${input} no longer resolves inside the workspace`);
  const st = await fsp.lstat(path.join(dirNow, path.basename(real))).catch((e) => { throw fsErrorToToolError(e, input, 'delete'); });
  if (!st.isFile()) throw new ToolError('NotAFileError', `not a regular file: ${input}`, { path_attempted: input });
  await fsp.unlink(path.join(dirNow, path.basename(real))).catch((e) => { throw fsErrorToToolError(e, input, 'delete'); });
}
