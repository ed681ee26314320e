// The two primitives every confinement check shares (./confine.ts, ./dir-fd.ts), and the
// workspace they check against.
import path from 'node:path';
import { ToolError } from './errors';

/** True when `child` is `parent` or below it (both absolute, already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/** PathOutsideWorkspaceError with the path as given and a machine-readable reason. */
export function outsideWorkspace(input: string, reason: string, message: string): ToolError {
  return new ToolError('PathOutsideWorkspaceError', message, { path_attempted: input, reason });
}

export interface Workspace {
  /** The root as given (absolute). */
  readonly root: string;
  /** The root with every symlink resolved: confinement is checked against this. */
  readonly realRoot: string;
}
