// Lexical "is this path inside the workspace" check behind the `inside_workspace` rule
// constraint. Lexical only: symlinks are the tools server's business (it must realpath before
// opening); this check keeps a rule from *allowing* what plainly points elsewhere.
import path from 'node:path';

export type PathCheck = { inside: true; resolved: string } | { inside: false; why: string };

/**
 * Resolves `candidate` relative to `workspace` (which must be absolute) and says whether it
 * stays inside it (the workspace root itself counts as inside).
 *
 * Refused outright, whatever they would resolve to:
 *  - NUL bytes (C APIs truncate at them, so the path checked is not the path opened);
 *  - drive forms (`C:\x`, `C:x`) and UNC/device forms (`\\server\share`, `//server/share`, `\\?\`):
 *    they name other volumes or hosts, and on POSIX `C:x` would wrongly look relative;
 *  - `file:` URLs and a leading `~`: servers such as server-filesystem expand `~` to $HOME,
 *    so `~/.ssh` is not `<workspace>/~/.ssh` where the server is concerned.
 * On POSIX a backslash is treated as a separator too, so `a\..\..\x` is judged as the escape
 * it would be for a server that normalises backslashes; the cautious reading either way.
 */
export function checkInsideWorkspace(candidate: string, workspace: string, impl: path.PlatformPath = path): PathCheck {
  if (candidate.length === 0) return { inside: false, why: 'empty path' };
  if (candidate.includes('\0')) return { inside: false, why: 'path contains a NUL byte' };
  if (/^[A-Za-z]:/.test(candidate)) return { inside: false, why: 'drive-letter paths are not accepted' };
  if (/^[\\/]{2}/.test(candidate)) return { inside: false, why: 'UNC and device paths are not accepted' };
  if (/^file:/i.test(candidate)) return { inside: false, why: 'file: URLs are not accepted' };
  if (candidate.startsWith('~')) return { inside: false, why: 'home-relative (~) paths are not accepted' };
  if (!impl.isAbsolute(workspace)) throw new Error(`workspace must be an absolute path, found "${workspace}"`);

  const posix = impl.sep === '/';
  const normalised = posix ? candidate.replace(/\\/g, '/') : candidate;
  const root = impl.resolve(workspace);
  const resolved = impl.resolve(root, normalised);
  const fold = (p: string) => (posix ? p : p.toLowerCase()); // Windows paths compare case-insensitively
  const base = root.endsWith(impl.sep) ? root : root + impl.sep;
  if (fold(resolved) === fold(root) || fold(resolved).startsWith(fold(base))) return { inside: true, resolved };
  return { inside: false, why: 'path resolves outside the workspace' };
}
