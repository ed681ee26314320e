// One failure shape for every built-in tool (MCP_TOOL_SPECIFICATION.md "Error types"): a tool result with `isError: true` whose
// structuredContent is `{error_type, error_message, error_details}`. Handlers throw ToolError;
// the wrapper in workspace-tools.ts turns it into that result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const ERROR_TYPES = [
  'InvalidArgumentError',
  'PathOutsideWorkspaceError',
  'FileNotFoundError',
  'FileExistsError',
  'NotAFileError',
  'PermissionError',
  'FileTooLargeError',
  'UnsupportedEncodingError',
  'DecodeError',
  'EncodeError',
  'PatchParseError',
  'PatchConflictError',
  'CommandNotFoundError',
  'CommandNotAllowedError',
  'TimeoutError',
  'HostNotAllowedError',
  'NetworkError',
  'ResponseTooLargeError',
  'OutputTooLargeError',
  'InternalError',
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

export type ErrorDetails = Record<string, unknown>;

export class ToolError extends Error {
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = type;
  }
}

export function isToolError(e: unknown): e is ToolError {
  return e instanceof ToolError;
}

/** A Node errno error (`ENOENT`, `EACCES`…), as thrown by node:fs. */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof (e as { code: unknown }).code === 'string') {
    return (e as { code: string }).code;
  }
  return undefined;
}

/**
 * Maps a filesystem error onto the tool error vocabulary, so a raw errno never reaches the
 * agent as an opaque internal error.
 */
export function fsErrorToToolError(e: unknown, pathAttempted: string, what: string): ToolError {
  if (isToolError(e)) return e;
  const code = errnoCode(e);
  const details = { path_attempted: pathAttempted, errno: code ?? null };
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new ToolError('FileNotFoundError', `${what}: no such file: ${pathAttempted}`, details);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ToolError('PermissionError', `${what}: permission denied: ${pathAttempted}`, details);
    case 'EISDIR':
      return new ToolError('NotAFileError', `${what}: expected a regular file, found a directory: ${pathAttempted}`, details);
    case 'EEXIST':
      return new ToolError('FileExistsError', `${what}: already exists: ${pathAttempted}`, details);
    case 'ELOOP':
      // O_NOFOLLOW met a symlink where the checked path had none: it was swapped in after the check.
      return new ToolError('PathOutsideWorkspaceError', `${what}: ${pathAttempted} became a symbolic link after it was checked`, details);
    case 'ENAMETOOLONG':
      // A path component over NAME_MAX (255 bytes) or a path over PATH_MAX: no such file can exist.
      return new ToolError('InvalidArgumentError', `${what}: the path is too long (a name over 255 bytes, or the whole path over 4096): ${pathAttempted.slice(0, 300)}${pathAttempted.length > 300 ? '…' : ''}`, details);
    case 'EINVAL':
    case 'ERR_INVALID_ARG_VALUE':
    case 'ERR_INVALID_ARG_TYPE':
      // A NUL byte in the path, or a name the filesystem cannot hold.
      return new ToolError('InvalidArgumentError', `${what}: not a valid path: ${JSON.stringify(pathAttempted.slice(0, 300))}`, details);
    case 'ENXIO':
    case 'ENODEV':
      // A socket, a FIFO without a writer, a device: not something to read or write as a file.
      return new ToolError('NotAFileError', `${what}: expected a regular file: ${pathAttempted}`, details);
    case 'EBUSY':
    case 'ETXTBSY':
      return new ToolError('PermissionError', `${what}: ${pathAttempted} is busy (${code})`, details);
    case 'EFBIG':
    case 'ENOSPC':
      return new ToolError('FileTooLargeError', `${what}: no space for ${pathAttempted} (${code})`, details);
    default:
      return new ToolError('InternalError', `${what}: ${pathAttempted}: ${e instanceof Error ? e.message : String(e)}`, details);
  }
}

export function successResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

export function failureResult(type: ErrorType, message: string, details: ErrorDetails): CallToolResult {
  const structured = { error_type: type, error_message: message, error_details: details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
